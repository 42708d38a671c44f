/** What the booking flows (create, update and cancel, reads) share: refusals, units, views, the 409 picture. */
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { fail, type AppError, notFound, validationFailed, type FieldErrors } from '../../http/errors.js';
import { availabilityForStay, HoldConflict, unavailable, type StayQuery } from '../calendar/calendar.holds.js';
import { type StayRules } from './bookings.input.js';
import { bookingUnits, bookingView, NO_IDS, type BookingView, type ViewIds } from './bookings.payloads.js';
import type { UnitEntryInput } from './bookings.schemas.js';
import { selectAliasesOfUnits, selectPropertyExternalId, type PropertyUnit } from '../properties/properties.sql.js';
import { isHost, type BookingRow, type Viewer } from './bookings.sql.js';
import type { BookingUnit, MealPlan } from './bookings.tables.js';

export const rulesOf = (deps: Deps): StayRules => ({ maxStayNights: deps.config.maxStayNights });

// ---------------------------------------------------------------------------------------------
// Refusals

export const bookingNotFound = () => notFound('No such booking.');

// ---------------------------------------------------------------------------------------------
// Units

/** A requested unit entry after resolution: a unit id, or null for "the service picks one". */
export interface RequestedUnit {
  unitId: number | null;
  adults: number;
  children: number;
  meal_plan: MealPlan;
}

/**
 * Resolves unit entries against the property's units (decisions §4): an alias unknown to the
 * integration (or of another property's unit) → 422 on units.N.external_unit_id; an inventory_id
 * of another property → units.N.inventory_id; the same unit twice → units.N; a unit off sale →
 * 422 UNIT_INACTIVE with errors["units.N"] = { inventory_id, is_active: false }.
 */
export function resolveUnits(entries: UnitEntryInput[], units: PropertyUnit[]): RequestedUnit[] {
  const byAlias = new Map(units.filter((u) => u.alias !== null).map((u) => [u.alias!, u]));
  const byId = new Map(units.map((u) => [u.id, u]));
  const errors: FieldErrors = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  const seen = new Map<number, number>();
  const resolved = entries.map((entry, i): PropertyUnit | null => {
    let unit: PropertyUnit | null = null;
    if (entry.external_unit_id !== undefined) {
      unit = byAlias.get(entry.external_unit_id) ?? null;
      if (!unit) add(`units.${i}.external_unit_id`, 'is not a unit of this property');
    }
    if (entry.inventory_id !== undefined) {
      const other = byId.get(entry.inventory_id) ?? null;
      if (!other) add(`units.${i}.inventory_id`, 'is not a unit of this property');
      else if (unit && unit.id !== other.id) add(`units.${i}`, 'external_unit_id and inventory_id name different units');
      unit ??= other;
    }
    if (unit) {
      const first = seen.get(unit.id);
      if (first !== undefined) add(`units.${i}`, `names the same unit as units.${first}`);
      else seen.set(unit.id, i);
    }
    return unit;
  });
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const inactive: Record<string, unknown> = {};
  resolved.forEach((unit, i) => {
    if (unit && !unit.isActive) inactive[`units.${i}`] = { inventory_id: unit.id, is_active: false };
  });
  if (Object.keys(inactive).length > 0) {
    throw fail('UNIT_INACTIVE', 'A unit of this booking is off sale and cannot be booked.', inactive);
  }
  return entries.map((entry, i) => ({
    unitId: resolved[i]?.id ?? null,
    adults: entry.adults ?? 1,
    children: entry.children ?? 0,
    meal_plan: entry.meal_plan ?? 'EP',
  }));
}

export function storedUnits(requested: RequestedUnit[], unitIds: number[]): BookingUnit[] {
  return requested.map((r, i) => ({ unit_id: unitIds[i], adults: r.adults, children: r.children, meal_plan: r.meal_plan }));
}

// ---------------------------------------------------------------------------------------------
// Views

/** The viewer's ids for one booking. */
export async function idsFor(db: Deps['db'] | Transaction<DB>, viewer: Viewer, row: BookingRow): Promise<ViewIds> {
  if (isHost(viewer)) return NO_IDS;
  const [propertyExternalId, aliases] = await Promise.all([
    selectPropertyExternalId(db, viewer.integrationId, row.property_id),
    selectAliasesOfUnits(
      db,
      viewer.integrationId,
      bookingUnits(row).map((u) => u.unit_id),
    ),
  ]);
  return { propertyExternalId, aliases };
}

export async function viewOf(deps: Deps, viewer: Viewer, row: BookingRow): Promise<BookingView> {
  return bookingView(row, await idsFor(deps.db, viewer, row));
}

/**
 * A lost race on a (unit, night) hold (HoldConflict): another booking took it between our check
 * and our insert. Answers 409 with the picture as it is now, read afresh since the failed
 * transaction is gone.
 */
export async function unavailableNow(deps: Deps, stay: StayQuery): Promise<AppError> {
  const { propertyId, checkIn, checkOut, ...options } = stay;
  const now = await deps.db.transaction().execute((trx) => availabilityForStay(trx, propertyId, checkIn, checkOut, options));
  return unavailable(now);
}

/**
 * Runs a booking write again when it lost a (unit, night) race and some of its units were picked
 * by the service: the next attempt sees the winner's holds and picks around them. Named units
 * are not re-chosen, so their conflict is final (409).
 */
export async function retryPicks<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof HoldConflict && error.picked) || attempt >= MAX_WRITE_ATTEMPTS) throw error;
    }
  }
}

/** Attempts of a booking write whose picked units lost a race (retryPicks, createBooking). */
export const MAX_WRITE_ATTEMPTS = 3;
