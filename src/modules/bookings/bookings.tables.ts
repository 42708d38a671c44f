import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled', 'completed', 'refunded'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const MEAL_PLANS = ['EP', 'CP', 'MAP', 'AP'] as const;
export type MealPlan = (typeof MEAL_PLANS)[number];

/** One entry of a booking's units, in the order the booking lists them. */
export interface BookingUnit {
  unit_id: number;
  adults: number;
  children: number;
  meal_plan: MealPlan;
}

/** jsonb: written as JSON text, read back parsed. */
type Json<T> = ColumnType<T, string, string>;

/**
 * A booking (migration 2026_11_22_0040_bookings). Its `currency` column (not null, default 'INR')
 * is left out: nothing reads it, this release no longer writes it, and the release after the
 * previous one stops serving drops it (docs/database.md, "Pending contract steps").
 */
export interface BookingsTable {
  id: Generated<number>;
  /** The integration that created it; null for host bookings. */
  integration_id: number | null;
  external_booking_id: string;
  property_id: number;
  /** The property's brand, on host bookings (their ids are unique per brand); null on partner bookings. */
  brand_id: Generated<number | null>;
  status: BookingStatus;
  revision: Generated<number>;
  /** `YYYY-MM-DD` */
  check_in: string;
  /** `YYYY-MM-DD`, exclusive */
  check_out: string;
  units: Json<BookingUnit[]>;
  guest_name: string;
  guest_phone_code: string | null;
  guest_mobile: string | null;
  total: number;
  notes: string | null;
  source_channel: string;
  source_reference: string | null;
  reason: string | null;
  refund_note: string | null;
  cancelled_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Tables owned by the bookings module (see its migrations). */
/** The last generated `DL-<n>` host booking name of each brand. */
export interface HostBookingNamesTable {
  brand_id: number;
  /** bigint: the driver returns it as a string. */
  last_number: ColumnType<string, number | string, number | string>;
}

export interface BookingTables {
  bookings: BookingsTable;
  host_booking_names: HostBookingNamesTable;
}
