import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound, validationFailed, type FieldErrors } from '../../http/errors.js';
import { isValidDate, kolkataDate } from '../../lib/time.js';
import { availabilityForStay, insertHolds, isHoldConflict, lockPropertyStatus, releaseHolds, type StayAvailability } from '../calendar/calendar.holds.js';
import {
  checkCancelBody,
  checkCreateBody,
  checkHostCreateBody,
  checkNewStay,
  checkUpdateBody,
  notBeforeToday,
  parseUpdatedSince,
  propertyNotMapped,
  type StayRules,
} from './bookings.input.js';
import {
  appendBookingEvents,
  bookingUnits,
  bookingView,
  heldNights,
  HOLDING,
  NO_IDS,
  type BookingView,
  type ViewIds,
} from './bookings.payloads.js';
import { withEvents, type AppendResult, type AppendTarget, type EventTransaction } from '../events/events.log.js';
import type { ListBookingsQueryInput, UnitEntryInput, UpdateBookingInput } from './bookings.schemas.js';
import {
  insertBookingWithHolds,
  isHost,
  isCovered,
  nextBookingId,
  selectAliases,
  selectBookingPage,
  selectCreateContext,
  selectOwnByExternalId,
  selectPropertyExternalId,
  selectPropertyExternalIds,
  selectPropertyUnits,
  selectVisibleBooking,
  updateBookingRow,
  type BookingRow,
  type PropertyRef,
  type PropertyUnit,
  type Viewer,
} from './bookings.sql.js';
import type { BookingStatus, BookingUnit, MealPlan } from './bookings.tables.js';

const rulesOf = (deps: Deps): StayRules => ({ maxStayNights: deps.config.maxStayNights });

const isUniqueViolation = (error: unknown, constraint: string) => {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  return e?.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint));
};

// ---------------------------------------------------------------------------------------------
// Refusals

const propertyArchived = () =>
  new AppError(422, 'PROPERTY_ARCHIVED', 'This property has been archived by the host and cannot take bookings.');
const propertyInactive = () =>
  new AppError(422, 'PROPERTY_INACTIVE', 'This property is inactive (its brand has no active plan) and cannot take bookings.');

function refuseUnbookable(status: PropertyRef['status']): void {
  if (status === 'archived') throw propertyArchived();
  if (status === 'inactive') throw propertyInactive();
}

function unavailable(stay: StayAvailability): AppError {
  return new AppError(409, 'UNAVAILABLE', 'Nothing is free for the whole stay.', { availability: stay.picture() });
}

const bookingNotFound = () => notFound('No such booking.');

// ---------------------------------------------------------------------------------------------
// Units

/** A requested unit entry after resolution: a unit id, or null for "the service picks one". */
interface RequestedUnit {
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
function resolveUnits(entries: UnitEntryInput[], units: PropertyUnit[]): RequestedUnit[] {
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
    throw new AppError(422, 'UNIT_INACTIVE', 'A unit of this booking is off sale and cannot be booked.', inactive);
  }
  return entries.map((entry, i) => ({
    unitId: resolved[i]?.id ?? null,
    adults: entry.adults ?? 1,
    children: entry.children ?? 0,
    meal_plan: entry.meal_plan ?? 'EP',
  }));
}

/** The units of the stay for `requested` (see StayAvailability.assign), or null when they cannot be held. */
function assignUnits(stay: StayAvailability, requested: RequestedUnit[], prefer: number[] = []): number[] | null {
  return stay.assign(
    requested.map((r) => r.unitId),
    prefer,
  );
}

function storedUnits(requested: RequestedUnit[], unitIds: number[]): BookingUnit[] {
  return requested.map((r, i) => ({ unit_id: unitIds[i], adults: r.adults, children: r.children, meal_plan: r.meal_plan }));
}

// ---------------------------------------------------------------------------------------------
// Views

/** The viewer's ids for one booking. */
async function idsFor(db: Deps['db'] | Transaction<DB>, viewer: Viewer, row: BookingRow): Promise<ViewIds> {
  if (isHost(viewer)) return NO_IDS;
  const [propertyExternalId, aliases] = await Promise.all([
    selectPropertyExternalId(db, viewer.integrationId, row.property_id),
    selectAliases(
      db,
      viewer.integrationId,
      bookingUnits(row).map((u) => u.unit_id),
    ),
  ]);
  return { propertyExternalId, aliases };
}

async function viewOf(deps: Deps, viewer: Viewer, row: BookingRow): Promise<BookingView> {
  return bookingView(row, await idsFor(deps.db, viewer, row));
}

// ---------------------------------------------------------------------------------------------
// Create

export interface CreateResult {
  status: 200 | 201;
  booking: BookingView;
}

async function duplicateOf(deps: Deps, integrationId: number, row: BookingRow): Promise<CreateResult> {
  return { status: 200, booking: await viewOf(deps, { integrationId }, row) };
}

interface StayInput {
  externalBookingId: string;
  checkIn: string;
  checkOut: string;
  status: 'pending' | 'confirmed';
  guest: { name: string; phone_code?: string | null; mobile?: string | null };
  total: number;
  notes?: string | null;
  channel: string;
  reference?: string | null;
  reason?: string | null;
  refundNote?: string | null;
}

/**
 * The write of a new booking inside the caller's transaction, which holds the property's calendar
 * lock and has refused an unbookable property: the availability decision, the booking, its holds
 * and its events.
 */
async function writeNewBooking(
  deps: Deps,
  trx: EventTransaction,
  write: {
    actorIntegrationId: number | null;
    propertyId: number;
    requested: RequestedUnit[];
    input: StayInput;
    ids: ViewIds;
    hostId: boolean;
    targets?: AppendTarget[];
  },
): Promise<{ row: BookingRow; appended: AppendResult }> {
  const { actorIntegrationId, propertyId, input } = write;
  const now = deps.clock.now();
  const stay = await availabilityForStay(trx, propertyId, input.checkIn, input.checkOut, {
    channel: input.channel,
    integrationId: actorIntegrationId,
  });
  const unitIds = assignUnits(stay, write.requested);
  if (!unitIds) throw unavailable(stay);
  const id = write.hostId ? await nextBookingId(trx) : undefined;
  const row = await insertBookingWithHolds(
    trx,
    {
      ...(id !== undefined ? { id, external_booking_id: input.externalBookingId || `DL-${id}` } : { external_booking_id: input.externalBookingId }),
      integration_id: actorIntegrationId,
      property_id: propertyId,
      status: input.status,
      check_in: input.checkIn,
      check_out: input.checkOut,
      units: JSON.stringify(storedUnits(write.requested, unitIds)),
      guest_name: input.guest.name,
      guest_phone_code: input.guest.phone_code ?? null,
      guest_mobile: input.guest.mobile ?? null,
      total: input.total,
      currency: 'INR',
      notes: input.notes ?? null,
      source_channel: input.channel,
      source_reference: input.reference ?? null,
      reason: input.reason ?? null,
      refund_note: input.refundNote ?? null,
      cancelled_at: null,
      created_at: now,
      updated_at: now,
    },
    unitIds,
  );
  // The decision's calendar plus these holds is the state the events must carry.
  stay.held(unitIds, row.id);
  const appended = await appendBookingEvents(trx, {
    clock: deps.clock,
    booking: row,
    actorIntegrationId,
    actorIds: write.ids,
    changedNights: stay.nights,
    actorCalendar: { data: stay.data, span: stay.window },
    targets: write.targets,
  });
  return { row, appended };
}

interface StayRequest {
  propertyId: number;
  checkIn: string;
  checkOut: string;
  channel: string;
  integrationId: number | null;
  excludeBookingId?: number;
}

/**
 * A lost race on a (unit, night) hold: another booking took it between our check and our insert
 * (only a writer that skipped the calendar lock could do that). Answers 409 with the picture as
 * it is now, read afresh since the failed transaction is gone.
 */
async function unavailableNow(deps: Deps, request: StayRequest): Promise<AppError> {
  const stay = await deps.db.transaction().execute((trx) =>
    availabilityForStay(trx, request.propertyId, request.checkIn, request.checkOut, {
      channel: request.channel,
      integrationId: request.integrationId,
      excludeBookingId: request.excludeBookingId,
    }),
  );
  return unavailable(stay);
}

/**
 * Runs a booking write again when it lost a (unit, night) race and some of its units were picked
 * by the service: the next attempt sees the winner's holds and picks around them. Named units
 * are not re-chosen, so their conflict is final (409).
 */
async function retryPicks<T>(picks: () => boolean, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!picks() || attempt >= 3 || !isHoldConflict(error)) throw error;
    }
  }
}

/**
 * POST /bookings (decisions §4). Order of answers: the body (422), a duplicate external_booking_id
 * (200 with the booking as it is now), check_in before today (422), the property (422
 * PROPERTY_NOT_MAPPED / PROPERTY_ARCHIVED / PROPERTY_INACTIVE), the units (422, UNIT_INACTIVE),
 * then availability (409 UNAVAILABLE) and 201.
 */
export async function createBooking(deps: Deps, integrationId: number, body: unknown): Promise<CreateResult> {
  const input = checkCreateBody(body, rulesOf(deps));
  const stay: StayInput = {
    externalBookingId: input.external_booking_id,
    checkIn: input.check_in,
    checkOut: input.check_out,
    status: input.status ?? 'confirmed',
    guest: input.guest,
    total: input.pricing.total,
    notes: input.notes,
    channel: input.source.channel,
    reference: input.source.reference,
    reason: input.reason,
    refundNote: input.refund_note,
  };
  let picks = false;
  let propertyId: number | null = null;
  // One transaction from the first read: the context read takes the property's calendar lock.
  const attempt = () =>
    withEvents(deps, async (trx) => {
      const context = await selectCreateContext(trx, integrationId, input.external_booking_id, input.property);
      if (context.existingId !== null) {
        const existing: BookingRow | undefined = await selectVisibleBooking(trx, { integrationId }, { id: context.existingId });
        if (existing !== undefined) return { duplicate: existing };
      }
      notBeforeToday(input.check_in, kolkataDate(deps.clock.now()));
      const { property, units } = context;
      if (!property) throw propertyNotMapped('No property this integration covers matches the reference.');
      refuseUnbookable(property.status);
      propertyId = property.id;
      const requested = resolveUnits(input.units, units);
      picks = requested.some((r) => r.unitId === null);
      const ids: ViewIds = {
        propertyExternalId: property.externalId,
        aliases: new Map(units.filter((u) => u.alias !== null).map((u) => [u.id, u.alias!])),
      };
      const written = await writeNewBooking(deps, trx, { actorIntegrationId: integrationId, propertyId: property.id, requested, input: stay, ids, hostId: false, targets: context.targets });
      return { ...written, ids };
    });
  try {
    const outcome = await retryPicks(() => picks, attempt);
    if (outcome.duplicate) return duplicateOf(deps, integrationId, outcome.duplicate);
    return { status: 201, booking: bookingView(outcome.row, outcome.ids) };
  } catch (error) {
    if (isUniqueViolation(error, 'bookings_external_id')) {
      // A concurrent create with the same external_booking_id won: answer as a duplicate.
      const winner = await selectOwnByExternalId(deps.db, integrationId, input.external_booking_id);
      if (winner) return duplicateOf(deps, integrationId, winner);
    }
    if (isHoldConflict(error) && propertyId !== null) {
      throw await unavailableNow(deps, { propertyId, checkIn: stay.checkIn, checkOut: stay.checkOut, channel: stay.channel, integrationId });
    }
    throw error;
  }
}

/**
 * Staff POST /properties/{id}/bookings: a host booking (origin doorloom for every integration
 * that covers the property). Units by inventory_id or picked by the service; the id defaults to
 * DL-<id>; the channel to `direct`.
 */
export async function hostCreateBooking(deps: Deps, propertyId: number, body: unknown): Promise<BookingView> {
  const input = checkHostCreateBody(body, rulesOf(deps));
  notBeforeToday(input.check_in, kolkataDate(deps.clock.now()));
  const units = await selectPropertyUnits(deps.db, propertyId, null);
  if (units.length === 0) {
    const exists = await deps.db.selectFrom('properties').select('id').where('id', '=', propertyId).executeTakeFirst();
    if (!exists) throw notFound('No such property.');
  }
  if (input.external_booking_id !== undefined) {
    const taken = await deps.db
      .selectFrom('bookings')
      .select('id')
      .where('integration_id', 'is', null)
      .where('external_booking_id', '=', input.external_booking_id)
      .executeTakeFirst();
    if (taken) throw validationFailed({ external_booking_id: [`is already used by host booking ${taken.id}`] });
  }
  const requested = resolveUnits(input.units, units);
  const stay: StayInput = {
    externalBookingId: input.external_booking_id ?? '',
    checkIn: input.check_in,
    checkOut: input.check_out,
    status: input.status ?? 'confirmed',
    guest: input.guest,
    total: input.pricing.total,
    notes: input.notes,
    channel: input.source?.channel ?? 'direct',
    reference: input.source?.reference,
    reason: input.reason,
    refundNote: input.refund_note,
  };
  try {
    const picks = requested.some((r) => r.unitId === null);
    const { row } = await retryPicks(
      () => picks,
      () =>
        withEvents(deps, async (trx) => {
          const status = await lockPropertyStatus(trx, propertyId);
          if (status === null) throw notFound('No such property.');
          refuseUnbookable(status);
          return writeNewBooking(deps, trx, { actorIntegrationId: null, propertyId, requested, input: stay, ids: NO_IDS, hostId: true });
        }),
    );
    return bookingView(row, NO_IDS);
  } catch (error) {
    if (isUniqueViolation(error, 'bookings_host_external_id')) {
      throw validationFailed({ external_booking_id: ['is already used by another host booking'] });
    }
    if (isHoldConflict(error)) {
      throw await unavailableNow(deps, { propertyId, checkIn: stay.checkIn, checkOut: stay.checkOut, channel: stay.channel, integrationId: null });
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Reads

export async function getBooking(deps: Deps, viewer: Viewer, by: { id: number } | { externalId: string }): Promise<BookingView> {
  const row = await selectVisibleBooking(deps.db, viewer, by);
  if (!row) throw bookingNotFound();
  return viewOf(deps, viewer, row);
}

/** GET /bookings: the viewer's bookings by (updated_at, id) ascending, every filter of the contract. */
export async function listBookings(deps: Deps, integrationId: number, query: ListBookingsQueryInput) {
  const errors: FieldErrors = {};
  let updatedSince: Date | undefined;
  if (query.updated_since !== undefined) {
    updatedSince = parseUpdatedSince(query.updated_since) ?? undefined;
    if (!updatedSince) errors.updated_since = ['must be a date (YYYY-MM-DD) or a timestamp (ISO-8601)'];
  }
  for (const key of ['check_in_from', 'check_in_to'] as const) {
    const value = query[key];
    if (value !== undefined && !isValidDate(value)) errors[key] = ['must be a date written YYYY-MM-DD'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  const { rows, total } = await selectBookingPage(deps.db, integrationId, {
    updatedSince,
    status: query.status,
    propertyId: query.property_id,
    checkInFrom: query.check_in_from,
    checkInTo: query.check_in_to,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const [aliases, externalIds] = await Promise.all([
    selectAliases(
      deps.db,
      integrationId,
      rows.flatMap((r) => bookingUnits(r).map((u) => u.unit_id)),
    ),
    selectPropertyExternalIds(
      deps.db,
      integrationId,
      rows.map((r) => r.property_id),
    ),
  ]);
  return {
    data: rows.map((row) => bookingView(row, { propertyExternalId: externalIds.get(row.property_id) ?? null, aliases })),
    pagination: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

// ---------------------------------------------------------------------------------------------
// Update and cancel

/** Status transitions (decisions §4); `true` marks the host-only ones. */
const TRANSITIONS: Record<BookingStatus, Partial<Record<BookingStatus, boolean>>> = {
  pending: { confirmed: false, cancelled: false },
  confirmed: { cancelled: false, completed: true },
  cancelled: { refunded: false },
  completed: { refunded: true },
  refunded: {},
};

function checkTransition(from: BookingStatus, to: BookingStatus, viewer: Viewer, checkOut: string, today: string): void {
  if (from === to) return;
  const hostOnly = TRANSITIONS[from][to];
  if (hostOnly === undefined || (hostOnly && !isHost(viewer))) {
    throw new AppError(422, 'INVALID_STATUS_TRANSITION', `A ${from} booking cannot become ${to}${hostOnly ? ' through this API' : ''}.`, {
      status: [`cannot change from ${from} to ${to}`],
    });
  }
  if (to === 'completed' && today < checkOut) {
    throw new AppError(422, 'INVALID_STATUS_TRANSITION', `A booking cannot be completed before its check_out (${checkOut}).`, {
      status: [`cannot become completed before ${checkOut}`],
    });
  }
}

/**
 * `If-Match`: `"3"`, `W/"3"`, `3`, a list of those, or `*`. Anything that is not the current
 * revision → 412 PRECONDITION_FAILED with errors.revision = the current revision.
 */
function checkIfMatch(header: string | undefined, revision: number): void {
  if (header === undefined) return;
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
  if (tags.includes('*') || tags.includes(String(revision))) return;
  throw new AppError(412, 'PRECONDITION_FAILED', `The booking has changed: its current revision is ${revision}. Read it again and retry.`, {
    revision,
  });
}

interface Outcome {
  row: BookingRow;
  changed: boolean;
  appended?: AppendResult;
}

/** The same units in the same order with the same guests and meal plans. */
const sameUnits = (a: BookingUnit[], b: BookingUnit[]) =>
  a.length === b.length &&
  a.every((u, i) => u.unit_id === b[i].unit_id && u.adults === b[i].adults && u.children === b[i].children && u.meal_plan === b[i].meal_plan);
/** The same units, whatever the order and guests (the holds would not change). */
const sameUnitSet = (a: BookingUnit[], b: BookingUnit[]) => {
  const x = a.map((u) => u.unit_id).sort((p, q) => p - q);
  const y = b.map((u) => u.unit_id).sort((p, q) => p - q);
  return x.length === y.length && x.every((id, i) => id === y[i]);
};

type Locate = { id: number } | { externalId: string };

/**
 * PATCH /bookings/{id} (and by external id, and the host's): any subset of the fields of
 * decisions §4, applied in one transaction under the booking's row lock. New dates or units are
 * re-checked against availability with the booking's own nights counting as free; a change that
 * changes nothing answers the booking as it is (same revision, no event).
 */
export async function updateBooking(
  deps: Deps,
  viewer: Viewer,
  by: Locate,
  body: unknown,
  ifMatch: string | undefined,
): Promise<{ booking: BookingView; changed: boolean }> {
  const input = checkUpdateBody(body);
  const attempt: Attempted = {};
  const outcome = await withEvents(deps, async (trx): Promise<Outcome> => {
      const row = await selectVisibleBooking(trx, viewer, by, true);
      if (!row) throw bookingNotFound();
      checkIfMatch(ifMatch, row.revision);
      return applyChange(deps, trx, viewer, row, input, attempt);
  }).catch(async (error: unknown) => {
    throw isHoldConflict(error) && attempt.stay ? await unavailableNow(deps, attempt.stay) : error;
  });
  return { booking: await viewOf(deps, viewer, outcome.row), changed: outcome.changed };
}

/** The stay a change tried to hold, for the 409 picture should the database refuse the holds. */
interface Attempted {
  stay?: StayRequest;
}

async function applyChange(
  deps: Deps,
  trx: EventTransaction,
  viewer: Viewer,
  row: BookingRow,
  input: UpdateBookingInput,
  attempt: Attempted = {},
): Promise<Outcome> {
  const now = deps.clock.now();
  const today = kolkataDate(now);
  const actorIntegrationId = isHost(viewer) ? null : viewer.integrationId;
  // Coverage removed (docs/decisions.md, "Coverage"): the integration keeps reading and may cancel
  // its own bookings of the property, but changes nothing else there, and so holds nothing.
  if (actorIntegrationId !== null && !isCancel(input) && !(await isCovered(trx, actorIntegrationId, row.property_id))) {
    throw propertyNotMapped('This integration no longer covers the booking’s property: the booking can be read and cancelled, not changed.');
  }
  const nextStatus = input.status ?? row.status;
  const checkIn = input.check_in ?? row.check_in;
  const checkOut = input.check_out ?? row.check_out;
  checkTransition(row.status, nextStatus, viewer, checkOut, today);

  const datesChanged = checkIn !== row.check_in || checkOut !== row.check_out;
  const currentUnits = bookingUnits(row);
  const wasHolding = HOLDING.has(row.status);
  const holding = HOLDING.has(nextStatus);

  // Units: a new list is resolved against the property (the viewer's aliases); entries naming
  // no unit keep the booking's current units where they are free.
  let units = currentUnits;
  let requested: RequestedUnit[] | null = null;
  let propertyUnits: PropertyUnit[] | null = null;
  if (input.units) {
    propertyUnits = await selectPropertyUnits(trx, row.property_id, actorIntegrationId);
    requested = resolveUnits(input.units, propertyUnits);
    // Provisional: named units as given, the rest as before (by position) until assigned below.
    const namedIds = requested.flatMap((r) => (r.unitId === null ? [] : [r.unitId]));
    const spare = currentUnits.map((u) => u.unit_id).filter((id) => !namedIds.includes(id));
    units = storedUnits(
      requested,
      requested.map((r) => r.unitId ?? spare.shift() ?? -1),
    );
  }
  const unitsChanged = !sameUnitSet(units, currentUnits) || units.some((u) => u.unit_id === -1);

  const unitsTouched = input.units !== undefined && !sameUnits(units, currentUnits);
  if ((datesChanged || unitsTouched) && (!wasHolding || (!holding && unitsChanged))) {
    throw new AppError(422, 'BOOKING_NOT_MODIFIABLE', `The dates and units of a ${holding ? row.status : nextStatus} booking cannot be changed.`);
  }
  if (datesChanged) {
    if (input.check_in !== undefined && checkIn !== row.check_in) notBeforeToday(checkIn, today);
    checkNewStay(checkIn, checkOut, rulesOf(deps));
  }

  // Holds change when the booking starts or stops holding, or holds other nights or units.
  const holdsChange = wasHolding !== holding || (holding && (datesChanged || unitsChanged));
  let changedNights: string[] = [];
  if (holdsChange) {
    const propertyStatus = await lockPropertyStatus(trx, row.property_id);
    if (holding && (datesChanged || unitsChanged)) {
      refuseUnbookable(propertyStatus ?? 'archived');
      if (!propertyUnits) propertyUnits = await selectPropertyUnits(trx, row.property_id, actorIntegrationId);
      const request = requested ?? currentUnits.map((u) => ({ ...u, unitId: u.unit_id }));
      if (!requested) refuseInactiveKept(currentUnits, propertyUnits);
      attempt.stay = { propertyId: row.property_id, checkIn, checkOut, channel: row.source_channel, integrationId: actorIntegrationId, excludeBookingId: row.id };
      const stay = await availabilityForStay(trx, row.property_id, checkIn, checkOut, {
        channel: row.source_channel,
        excludeBookingId: row.id,
        integrationId: actorIntegrationId,
      });
      const unitIds = assignUnits(
        stay,
        request,
        currentUnits.map((u) => u.unit_id),
      );
      if (!unitIds) throw unavailable(stay);
      units = storedUnits(request, unitIds);
    }
    const before = heldNights(row);
    const after = holding ? heldNights({ status: nextStatus, check_in: checkIn, check_out: checkOut }) : [];
    changedNights = [...before, ...after];
  }

  const set: Record<string, unknown> = {};
  if (nextStatus !== row.status) set.status = nextStatus;
  if (checkIn !== row.check_in) set.check_in = checkIn;
  if (checkOut !== row.check_out) set.check_out = checkOut;
  if (!sameUnits(units, currentUnits)) set.units = JSON.stringify(units);
  const field = (key: string, value: unknown, current: unknown) => {
    if (value !== undefined && value !== current) set[key] = value;
  };
  field('guest_name', input.guest?.name, row.guest_name);
  field('guest_phone_code', input.guest?.phone_code, row.guest_phone_code);
  field('guest_mobile', input.guest?.mobile, row.guest_mobile);
  if (input.pricing?.total !== undefined && Math.round(input.pricing.total * 100) !== Math.round(Number(row.total) * 100)) set.total = input.pricing.total;
  field('notes', input.notes, row.notes);
  field('source_reference', input.source?.reference, row.source_reference);
  field('reason', input.reason, row.reason);
  field('refund_note', input.refund_note, row.refund_note);
  if (set.status === 'cancelled') set.cancelled_at = now;

  if (Object.keys(set).length === 0) return { row, changed: false };

  if (holdsChange) {
    await releaseHolds(trx, row.id);
    if (holding) {
      await insertHolds(
        trx,
        row.id,
        units.map((u) => u.unit_id),
        checkIn,
        checkOut,
      );
    }
  }
  const updated = await updateBookingRow(trx, row.id, { ...set, updated_at: now });
  const appended = await appendBookingEvents(trx, { clock: deps.clock, booking: updated, actorIntegrationId, changedNights });
  return { row: updated, changed: true, appended };
}

/** The fields of a cancel; any other field sent makes a PATCH a change. */
const CANCEL_FIELDS = new Set(['status', 'reason', 'refund_note']);
const CHANGE_FIELDS = ['check_in', 'check_out', 'units', 'guest', 'pricing', 'notes', 'source', 'status', 'reason', 'refund_note'] as const;

/** A cancel (POST …/cancel, or a PATCH to status cancelled with at most its reason and refund note). */
function isCancel(input: UpdateBookingInput): boolean {
  return input.status === 'cancelled' && CHANGE_FIELDS.every((k) => CANCEL_FIELDS.has(k) || input[k] === undefined);
}

/** Dates moved without a new units list: a kept unit that went off sale refuses the move. */
function refuseInactiveKept(current: BookingUnit[], propertyUnits: PropertyUnit[]): void {
  const active = new Map(propertyUnits.map((u) => [u.id, u.isActive]));
  const inactive: Record<string, unknown> = {};
  current.forEach((u, i) => {
    if (active.get(u.unit_id) === false) inactive[`units.${i}`] = { inventory_id: u.unit_id, is_active: false };
  });
  if (Object.keys(inactive).length > 0) {
    throw new AppError(422, 'UNIT_INACTIVE', 'A unit of this booking is off sale: the booking cannot move to other dates on it.', inactive);
  }
}

/**
 * Cancel (POST …/cancel): pending or confirmed → cancelled, releasing the holds, with the
 * optional reason and refund_note. Already cancelled or refunded → the booking unchanged (200).
 */
export async function cancelBooking(
  deps: Deps,
  viewer: Viewer,
  by: Locate,
  body: unknown,
  ifMatch: string | undefined,
): Promise<{ booking: BookingView; changed: boolean }> {
  const input = checkCancelBody(body);
  const outcome = await withEvents(deps, async (trx): Promise<Outcome> => {
    const row = await selectVisibleBooking(trx, viewer, by, true);
    if (!row) throw bookingNotFound();
    if (row.status === 'cancelled' || row.status === 'refunded') return { row, changed: false };
    checkIfMatch(ifMatch, row.revision);
    return applyChange(deps, trx, viewer, row, { status: 'cancelled', reason: input.reason, refund_note: input.refund_note });
  });
  return { booking: await viewOf(deps, viewer, outcome.row), changed: outcome.changed };
}

