/** Tables owned by the calendar module (migration 2026_11_22_0010_calendar). */

export type BlockScope = 'everywhere' | 'ota_only';

/** Per-night settings of a whole property; null = no setting for that night. */
export interface CalendarNightsTable {
  property_id: number;
  /** `YYYY-MM-DD` */
  night: string;
  block_scope: BlockScope | null;
  units_cap: number | null;
  base_price: number | null;
  extra_adult_price: number | null;
  extra_child_price: number | null;
  min_stay: number | null;
  max_stay: number | null;
  stop_sell: boolean | null;
  closed_to_arrival: boolean | null;
  closed_to_departure: boolean | null;
}

/** A block of one unit for one night. */
export interface UnitBlocksTable {
  unit_id: number;
  night: string;
  block_scope: BlockScope;
}

/**
 * A booking hold: one row per unit and night held by a pending or confirmed booking. The primary
 * key (unit_id, night) enforces one hold per unit and night in the database.
 */
export interface UnitNightsTable {
  unit_id: number;
  night: string;
  booking_id: number;
}

/** Meal plans beyond EP (always offered, price 0, not stored). */
export interface MealPlansTable {
  property_id: number;
  code: 'CP' | 'MAP' | 'AP';
  adult_price: number;
  child_price: number;
}

/** Property-wide booking rules; null = the platform default. */
export interface BookingRulesTable {
  property_id: number;
  min_stay: number | null;
  max_stay: number | null;
  min_advance_days: number | null;
  max_advance_days: number | null;
}

/** The last night through which an integration has been sent a property's calendar (horizon roll). */
export interface HorizonMarksTable {
  integration_id: number;
  property_id: number;
  through: string;
}

/** The version of a unit's holds (see touchUnitHoldsQuery). */
export interface UnitHoldVersionsTable {
  unit_id: number;
  /** bigint: the driver returns it as a string. */
  version: string;
}

export interface CalendarTables {
  calendar_nights: CalendarNightsTable;
  unit_blocks: UnitBlocksTable;
  unit_nights: UnitNightsTable;
  meal_plans: MealPlansTable;
  booking_rules: BookingRulesTable;
  horizon_marks: HorizonMarksTable;
  unit_hold_versions: UnitHoldVersionsTable;
}
