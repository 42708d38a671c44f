import { sql, type Compilable, type OperationNodeSource, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { fail, type AppError } from '../../http/errors.js';
import { addDays, eachDate, type DateWindow } from '../../lib/time.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';
import { buildAvailability, nightOf } from './calendar.payloads.js';
import { touchInputsVersionQuery, type PropertyLock } from '../properties/properties.lock.js';
import type { PropertyStatus } from '../properties/properties.schemas.js';
import { loadCalendarData, touchUnitHoldsQuery, type CalendarData } from './calendar.sql.js';

/**
 * Booking holds and the availability rules a booking is checked against (decisions §4).
 *
 * Every booking writer goes through decideStay then holdStay (create, host create, a change of
 * dates or units) or releaseStay (cancel, a booking that stops holding), holding the property's
 * lock: read, decide, write, in that order, in the booking's transaction. availabilityForStay is
 * the read-only decision, for the 409 picture read again after a lost race.
 */
/** The 409 UNAVAILABLE picture: errors.availability (decisions §4). */
export interface AvailabilityPicture {
  window: DateWindow;
  dates: Array<{ date: string; available_units: number; is_blocked: boolean; block_scope: 'everywhere' | 'ota_only' | null }>;
  units: Array<{ inventory_id: number; external_unit_id: string | null; unavailable: string[] }>;
}

export interface StayAvailability {
  /** The stay's nights, check_in … check_out − 1. */
  window: DateWindow;
  nights: string[];
  /** Active units (position order) and the nights each cannot be booked on for this channel. */
  units: Array<{ inventoryId: number; externalUnitId: string | null; name: string; unavailable: string[] }>;
  /** Whether all these units can be booked together for every night (free, unblocked, within the cap). */
  canBook(unitIds: number[]): boolean;
  /**
   * The units of a stay: each entry a named unit (kept as named) or null (picked by the service:
   * free for the whole stay, the `prefer`red first, then in position order), such that all of them
   * can be booked together; null when they cannot.
   */
  assign(requested: Array<number | null>, prefer?: number[]): number[] | null;
  /** Marks the units held on every night of the stay in `data` (after the holds are written). */
  held(unitIds: number[]): void;
  /** The per-night picture for 409 UNAVAILABLE. */
  picture(): AvailabilityPicture;
  /**
   * The calendar read for the decision (the stay's nights; the `integrationId` aliases), for a
   * booking writer that builds its availability.changed payloads without reading it again.
   * (Additive, for the bookings module.)
   */
  data: CalendarData;
}

export interface StayOptions {
  /** The booking's source.channel: an `ota_only` block refuses every channel except `direct`. */
  channel: string;
  /** A booking being changed: its own holds count as free. */
  excludeBookingId?: number | null;
  /** Whose unit aliases appear in the picture (null: none, e.g. host bookings). */
  integrationId?: number | null;
}

/**
 * Which units are free on each night of a stay, for a channel (decisions §4): a unit is bookable
 * on a night when no other pending or confirmed booking holds it, neither it nor the property is
 * blocked `everywhere` (nor `ota_only`, unless the channel is `direct`), and the night's
 * units_cap leaves room. Reads with a few set-based queries (the same loader as the snapshots).
 */
export async function availabilityForStay(
  trx: Transaction<DB>,
  propertyId: number,
  checkIn: string,
  checkOut: string,
  options: StayOptions,
): Promise<StayAvailability> {
  const data = await loadCalendarData(trx, propertyId, stayWindow(checkIn, checkOut), new Set(['availability']), options.integrationId ?? null, {
    excludeBookingId: options.excludeBookingId,
  });
  return stayAvailability(data, checkIn, checkOut, options);
}

/** The nights of a stay: check_in to the night before check_out. */
export const stayWindow = (checkIn: string, checkOut: string): DateWindow => ({ from: checkIn, to: addDays(checkOut, -1) });

function stayAvailability(data: CalendarData, checkIn: string, checkOut: string, options: StayOptions): StayAvailability {
  const window = stayWindow(checkIn, checkOut);
  const nights = window.from <= window.to ? eachDate(window.from, window.to) : [];
  const direct = options.channel === 'direct';
  const stops = (scope: string | null | undefined) => scope === 'everywhere' || (scope === 'ota_only' && !direct);

  const unitUnavailable = (unitId: number, date: string): boolean =>
    stops(nightOf(data, date).block_scope) || data.holds.get(date)?.includes(unitId) === true || stops(data.unitBlocks.get(date)?.get(unitId));

  const units = data.units.map((u) => ({
    inventoryId: u.id,
    externalUnitId: u.external_unit_id,
    name: u.name,
    unavailable: nights.filter((d) => unitUnavailable(u.id, d)),
  }));
  const freeAll = new Set(units.filter((u) => u.unavailable.length === 0).map((u) => u.inventoryId));

  const withinCap = (count: number): boolean =>
    nights.every((date) => {
      const cap = nightOf(data, date).units_cap;
      return cap === null || (data.holds.get(date)?.length ?? 0) + count <= cap;
    });

  const canBook = (unitIds: number[]): boolean =>
    nights.length > 0 && new Set(unitIds).size === unitIds.length && unitIds.every((id) => freeAll.has(id)) && withinCap(unitIds.length);

  return {
    window,
    nights,
    units,
    canBook,
    assign(requested, prefer = []) {
      const named = requested.filter((id): id is number => id !== null);
      const wanted = requested.length - named.length;
      let picked: number[] = [];
      if (wanted > 0) {
        const free = units.filter((u) => u.unavailable.length === 0 && !named.includes(u.inventoryId)).map((u) => u.inventoryId);
        const ordered = [...prefer.filter((id) => free.includes(id)), ...free.filter((id) => !prefer.includes(id))];
        if (ordered.length < wanted) return null;
        picked = ordered.slice(0, wanted);
      }
      if (!canBook([...named, ...picked])) return null;
      let next = 0;
      return requested.map((id) => id ?? picked[next++]);
    },
    held(unitIds) {
      for (const night of nights) {
        let held = data.holds.get(night);
        if (!held) data.holds.set(night, (held = []));
        for (const unitId of unitIds) if (!held.includes(unitId)) held.push(unitId);
      }
    },
    picture: () => pictureOf(data, window, units),
    data,
  };
}

function pictureOf(data: CalendarData, window: DateWindow, units: StayAvailability['units']): AvailabilityPicture {
  const payload = buildAvailability(data, window);
  return {
    window,
    dates: payload.dates.map((d) => ({ date: d.date, available_units: d.available_units, is_blocked: d.is_blocked, block_scope: d.block_scope })),
    units: units.map((u) => ({ inventory_id: u.inventoryId, external_unit_id: u.externalUnitId, unavailable: u.unavailable })),
  };
}

export const propertyArchived = () => fail('PROPERTY_ARCHIVED', 'This property has been archived by the host and cannot take bookings.');
export const propertyInactive = () => fail('PROPERTY_INACTIVE', 'This property is inactive (its brand has no active plan) and cannot take bookings.');

/** Archived and inactive properties take no bookings (decisions §4). */
export function refuseUnbookable(status: PropertyStatus): void {
  if (status === 'archived') throw propertyArchived();
  if (status === 'inactive') throw propertyInactive();
}

/** 409 UNAVAILABLE with the per-night picture of the stay. */
export function unavailable(stay: StayAvailability): AppError {
  return fail('UNAVAILABLE', 'Nothing is free for the whole stay.', { availability: stay.picture() });
}

export interface ReserveRequest {
  checkIn: string;
  checkOut: string;
  /** The booking's source.channel: an `ota_only` block refuses every channel except `direct`. */
  channel: string;
  /** Whose unit aliases appear in the 409 picture and the returned calendar (null: none). */
  integrationId: number | null;
  /** The stay's units in order: a named unit id, or null for one picked here (see StayAvailability.assign). */
  units: Array<number | null>;
  /** Units to pick first (a changed booking keeps its own where they are free). */
  prefer?: number[];
  /** A booking being changed: its holds count as free, and are replaced by the new ones. */
  bookingId?: number;
}

/** What the calendar decided for a stay: the units, and the calendar it decided on. */
export interface StayDecision {
  /** The units to hold, in the order of the request. */
  unitIds: number[];
  /** The calendar the decision was made on; after holdStay, with the new holds (what the availability events carry). */
  stay: StayAvailability;
}

/** The booking's own row write, returning the row with its id (an insert or an update). */
export type BookingWriter<R> = Compilable<R> & OperationNodeSource;

/**
 * The one way a booking's nights are decided (decisions §4), under the property's lock: refuses an
 * unbookable property and picks the units against the calendar, or answers 409 UNAVAILABLE with
 * the picture when nothing fits. The caller then writes the booking with holdStay.
 */
export async function decideStay(trx: Transaction<DB>, lock: PropertyLock, request: ReserveRequest): Promise<StayDecision> {
  refuseUnbookable(lock.status);
  const stay = await availabilityForStay(trx, lock.propertyId, request.checkIn, request.checkOut, {
    channel: request.channel,
    integrationId: request.integrationId,
    excludeBookingId: request.bookingId,
  });
  const unitIds = stay.assign(request.units, request.prefer);
  if (!unitIds) throw unavailable(stay);
  return { unitIds, stay };
}

/**
 * Writes the booking (`booking`, its insert or update for the decided units) and its holds (one
 * unit_nights row per unit and night, check_out exclusive) in one statement, and returns the row
 * as PostgreSQL returned it. A changed booking's old holds are released first. The (unit, night)
 * primary key of unit_nights is the database's own guarantee of one hold per unit and night
 * (its refusal is thrown as a HoldConflict).
 */
export async function holdStay<R extends { id: number }>(
  trx: UnitOfWork,
  lock: PropertyLock,
  request: ReserveRequest,
  decision: StayDecision,
  booking: BookingWriter<R>,
): Promise<R> {
  if (request.bookingId !== undefined) releaseStay(trx, lock, request.bookingId);
  try {
    const { rows } = await holdStatement<R>(trx, lock, request, decision.unitIds, booking).execute(trx);
    decision.stay.held(decision.unitIds);
    return rows[0];
  } catch (error) {
    if (isHoldConflict(error)) throw new HoldConflict(lock, request, error);
    throw error;
  }
}

/** A stay as availabilityForStay reads it (the 409 picture, read again after a lost race). */
export interface StayQuery extends StayOptions {
  propertyId: number;
  checkIn: string;
  checkOut: string;
}

/**
 * holdStay's refusal when another booking took one of the stay's (unit, night) holds between the
 * decision and the write (only a writer that skipped the property's lock could). The transaction
 * is lost; a writer answers 409 with `stay`'s picture read afresh, or decides again when the
 * service `picked` some of the units (the next decision picks around the winner).
 */
export class HoldConflict extends Error {
  readonly stay: StayQuery;
  readonly picked: boolean;
  constructor(lock: PropertyLock, request: ReserveRequest, cause: unknown) {
    super('Another booking holds a unit of this stay.', { cause });
    this.name = 'HoldConflict';
    this.stay = {
      propertyId: lock.propertyId,
      checkIn: request.checkIn,
      checkOut: request.checkOut,
      channel: request.channel,
      integrationId: request.integrationId,
      excludeBookingId: request.bookingId,
    };
    this.picked = request.units.some((unit) => unit === null);
  }
}

/** The statement that writes the booking (`booking`), its holds and the calendar's new version, answering the booking's row (or only its id). */
function holdStatement<R>(trx: UnitOfWork, lock: PropertyLock, request: ReserveRequest, unitIds: number[], booking: BookingWriter<unknown>) {
  const units = sql.join(unitIds.map((id) => sql`(${id}::int)`));
  return sql<R>`
    with b as (${booking}),
    v as (${touchInputsVersionQuery(trx, lock)}),
    hv as (${touchUnitHoldsQuery(sql`select * from (values ${units}) as u(unit_id)`)}),
    h as (
      insert into unit_nights (unit_id, night, booking_id)
      select u.unit_id, d::date, b.id
      from b, (values ${units}) as u(unit_id),
        generate_series(${request.checkIn}::date, ${addDays(request.checkOut, -1)}::date, interval '1 day') as d
    )
    select * from b
  `;
}

/**
 * Releases every hold of a booking of the locked property (a cancel, a booking that stops holding,
 * or holdStay before it holds a changed stay), sent ahead.
 */
export function releaseStay(trx: UnitOfWork, lock: PropertyLock, bookingId: number): void {
  // Sent ahead: the statement that follows (a new hold, the booking's row) comes after it.
  trx.send(sql`
    with v as (${touchInputsVersionQuery(trx, lock)}),
    released as (delete from unit_nights where booking_id = ${bookingId} returning unit_id)
    ${touchUnitHoldsQuery(sql`select distinct unit_id from released`)}
  `);
}

/** True for the database's own refusal of a second hold on the same unit and night. */
export function isHoldConflict(error: unknown): boolean {
  return isUniqueViolation(error, 'unit_nights_pkey');
}
