import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

/** A property row: the foundation's base columns plus the contract's input groups (migration 0002). */
export interface PropertiesBaseTable {
  id: Generated<number>;
  brand_id: number;
  name: string;
  status: Generated<'active' | 'inactive' | 'archived'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CoverageTable {
  integration_id: number;
  property_id: number;
  external_id: string | null;
  created_at: Timestamp;
}

export interface PropertiesTable extends PropertiesBaseTable {
  property_type: string | null;
  property_category: string | null;
  description: Generated<string>;
  address_line_1: Generated<string>;
  address_line_2: string | null;
  landmark: string | null;
  city: Generated<string>;
  state: Generated<string>;
  country: Generated<string>;
  pin_code: Generated<string>;
  latitude: number | null;
  longitude: number | null;
  formatted_address: Generated<string>;
  bedrooms: Generated<number>;
  washrooms: Generated<number>;
  min_guests: Generated<number>;
  max_guests: Generated<number>;
  weekday_base_price: Generated<number>;
  weekday_per_night_occupancy: Generated<number>;
  weekday_extra_adult_price: Generated<number>;
  weekday_extra_child_price: Generated<number>;
  weekend_base_price: Generated<number>;
  weekend_per_night_occupancy: Generated<number>;
  weekend_extra_adult_price: Generated<number>;
  weekend_extra_child_price: Generated<number>;
  is_private: Generated<boolean>;
  is_pet_friendly: Generated<boolean>;
  max_pets: number | null;
  pet_charges: number | null;
  is_veg: Generated<boolean>;
  is_smoking_in_rooms: Generated<boolean>;
  gst_applicable: Generated<boolean>;
  price_includes_gst: Generated<boolean>;
  created_by_integration_id: number | null;
  archived_at: Timestamp | null;
}

export interface UnitsTable {
  /** The unit's inventory_id. */
  id: Generated<number>;
  property_id: number;
  name: string;
  code: string | null;
  max_occupancy: number | null;
  is_active: Generated<boolean>;
  is_default: Generated<boolean>;
  position: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A partner's external_unit_id for a unit, per integration. */
export interface UnitAliasesTable {
  integration_id: number;
  unit_id: number;
  external_id: string;
}

/** The version of a property's availability inputs (see touchInputsVersion in properties.lock.ts). */
export interface CalendarVersionsTable {
  property_id: number;
  /** bigint: the driver returns it as a string. */
  version: string;
}

export interface PropertyTables {
  coverage: CoverageTable;
  properties: PropertiesTable;
  units: UnitsTable;
  unit_aliases: UnitAliasesTable;
  calendar_versions: CalendarVersionsTable;
}
