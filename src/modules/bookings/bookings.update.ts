/** Booking changes: PATCH (partner and host) and cancel. */
import type { Updateable } from 'kysely';
import type { Deps } from '../../deps.js';
import { fail } from '../../http/errors.js';
import { kolkataDate } from '../../lib/time.js';
import { dataClock } from '../../lib/clock.js';
import { decideStay, holdStay, HoldConflict, refuseUnbookable, releaseStay } from '../calendar/calendar.holds.js';
import { lockProperty, type PropertyLock } from '../properties/properties.lock.js';
import { checkNewStay, notBeforeToday, propertyNotMapped } from './bookings.input.js';
import { appendBookingEvents, bookingUnits, heldNights, HOLDING, type BookingView } from './bookings.payloads.js';
import { unitOfWork, type UnitOfWork } from '../events/events.log.js';
import type { CancelBookingInput, UpdateBookingInput } from './bookings.schemas.js';
import { isCovered, selectPropertyUnits, type PropertyUnit } from '../properties/properties.sql.js';
import { bookingUpdate, isHost, selectVisibleBooking, updateBookingRow, type BookingRow, type Viewer } from './bookings.sql.js';
import type { BookingStatus, BookingUnit, BookingsTable } from './bookings.tables.js';
import { rulesOf, bookingNotFound, type RequestedUnit, resolveUnits, storedUnits, viewOf, unavailableNow } from './bookings.common.js';

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
    throw fail('INVALID_STATUS_TRANSITION', `A ${from} booking cannot become ${to}${hostOnly ? ' through this API' : ''}.`, {
      status: [`cannot change from ${from} to ${to}`],
    });
  }
  if (to === 'completed' && today < checkOut) {
    throw fail('INVALID_STATUS_TRANSITION', `A booking cannot be completed before its check_out (${checkOut}).`, {
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
  const tags = header.split(',').map((t) =>
    t
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1'),
  );
  if (tags.includes('*') || tags.includes(String(revision))) return;
  throw fail('PRECONDITION_FAILED', `The booking has changed: its current revision is ${revision}. Read it again and retry.`, {
    revision,
  });
}

interface Outcome {
  row: BookingRow;
  changed: boolean;
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
 * The booking the viewer names, locked in the lock order: the property first (its id is read
 * without a lock; a booking never changes property), then the booking's row, read afresh.
 */
async function lockBooking(trx: UnitOfWork, viewer: Viewer, by: Locate): Promise<{ lock: PropertyLock; row: BookingRow }> {
  const found = await selectVisibleBooking(trx, viewer, by);
  if (!found) throw bookingNotFound();
  const lock = await lockProperty(trx, found.property_id);
  const row = lock && (await selectVisibleBooking(trx, viewer, { id: found.id }, true));
  if (!lock || !row) throw bookingNotFound();
  return { lock, row };
}

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
  input: UpdateBookingInput,
  ifMatch: string | undefined,
): Promise<{ booking: BookingView; changed: boolean }> {
  const outcome = await unitOfWork(deps, async (trx): Promise<Outcome> => {
    const { lock, row } = await lockBooking(trx, viewer, by);
    checkIfMatch(ifMatch, row.revision);
    return applyChange(deps, trx, lock, viewer, row, input);
  }).catch(async (error: unknown) => {
    throw error instanceof HoldConflict ? await unavailableNow(deps, error.stay) : error;
  });
  return { booking: await viewOf(deps, viewer, outcome.row), changed: outcome.changed };
}

/** The columns a change may set, each only when it differs from the row. */
type BookingChanges = Pick<
  Updateable<BookingsTable>,
  | 'status'
  | 'check_in'
  | 'check_out'
  | 'units'
  | 'guest_name'
  | 'guest_phone_code'
  | 'guest_mobile'
  | 'total'
  | 'notes'
  | 'source_reference'
  | 'reason'
  | 'refund_note'
  | 'cancelled_at'
>;

/**
 * A new units list, resolved against the property: each entry a named unit or null. `kept` is the
 * list with the unnamed entries on the booking's current units not named elsewhere (by position),
 * or null when those run out, so that the calendar must pick.
 */
interface AskedUnits {
  requested: RequestedUnit[];
  kept: BookingUnit[] | null;
}

async function askedUnits(trx: UnitOfWork, row: BookingRow, input: UpdateBookingInput, viewerId: number | null): Promise<AskedUnits | null> {
  if (!input.units) return null;
  const propertyUnits = await selectPropertyUnits(trx, row.property_id, viewerId);
  const requested = resolveUnits(input.units, propertyUnits);
  const named = requested.flatMap((r) => (r.unitId === null ? [] : [r.unitId]));
  const spare = bookingUnits(row)
    .map((u) => u.unit_id)
    .filter((id) => !named.includes(id));
  const ids = requested.map((r) => r.unitId ?? spare.shift() ?? null);
  const kept = ids.every((id): id is number => id !== null) ? storedUnits(requested, ids) : null;
  return { requested, kept };
}

/** What a change sets, given the units the booking ends with (the status and dates as decided). */
function fieldChanges(
  row: BookingRow,
  input: UpdateBookingInput,
  next: { status: BookingStatus; checkIn: string; checkOut: string; units: BookingUnit[] },
  now: Date,
): BookingChanges {
  const set: BookingChanges = {};
  if (next.status !== row.status) set.status = next.status;
  if (next.checkIn !== row.check_in) set.check_in = next.checkIn;
  if (next.checkOut !== row.check_out) set.check_out = next.checkOut;
  if (!sameUnits(next.units, bookingUnits(row))) set.units = JSON.stringify(next.units);
  const guest = input.guest;
  if (guest?.name !== undefined && guest.name !== row.guest_name) set.guest_name = guest.name;
  if (guest?.phone_code !== undefined && guest.phone_code !== row.guest_phone_code) set.guest_phone_code = guest.phone_code;
  if (guest?.mobile !== undefined && guest.mobile !== row.guest_mobile) set.guest_mobile = guest.mobile;
  const total = input.pricing?.total;
  if (total !== undefined && Math.round(total * 100) !== Math.round(Number(row.total) * 100)) set.total = total;
  if (input.notes !== undefined && input.notes !== row.notes) set.notes = input.notes;
  const reference = input.source?.reference;
  if (reference !== undefined && reference !== row.source_reference) set.source_reference = reference;
  if (input.reason !== undefined && input.reason !== row.reason) set.reason = input.reason;
  if (input.refund_note !== undefined && input.refund_note !== row.refund_note) set.refund_note = input.refund_note;
  if (set.status === 'cancelled') set.cancelled_at = now;
  return set;
}

async function applyChange(deps: Deps, trx: UnitOfWork, lock: PropertyLock, viewer: Viewer, row: BookingRow, input: UpdateBookingInput): Promise<Outcome> {
  const now = deps.clock.now();
  const today = kolkataDate(dataClock(deps.clock, 'today', { brandId: lock.brandId }).now());
  const actorIntegrationId = isHost(viewer) ? null : viewer.integrationId;
  // Coverage removed (docs/decisions.md, "Coverage"): the integration keeps reading and may cancel
  // its own bookings of the property, but changes nothing else there, and so holds nothing.
  if (actorIntegrationId !== null && !isCancel(input) && !(await isCovered(trx, actorIntegrationId, row.property_id))) {
    throw propertyNotMapped('This integration no longer covers the booking’s property: the booking can be read and cancelled, not changed.');
  }
  const status = input.status ?? row.status;
  const checkIn = input.check_in ?? row.check_in;
  const checkOut = input.check_out ?? row.check_out;
  checkTransition(row.status, status, viewer, checkOut, today);

  const datesChanged = checkIn !== row.check_in || checkOut !== row.check_out;
  const currentUnits = bookingUnits(row);
  const wasHolding = HOLDING.has(row.status);
  const holding = HOLDING.has(status);

  // Units: a new list is resolved against the property (the viewer's aliases); entries naming
  // no unit keep the booking's current units where they are free.
  const asked = await askedUnits(trx, row, input, actorIntegrationId);
  const unitsChanged = asked !== null && (asked.kept === null || !sameUnitSet(asked.kept, currentUnits));
  const unitsTouched = asked !== null && (asked.kept === null || !sameUnits(asked.kept, currentUnits));
  if ((datesChanged || unitsTouched) && (!wasHolding || (!holding && unitsChanged))) {
    throw fail('BOOKING_NOT_MODIFIABLE', `The dates and units of a ${holding ? row.status : status} booking cannot be changed.`);
  }
  if (datesChanged) {
    if (input.check_in !== undefined && checkIn !== row.check_in) notBeforeToday(checkIn, today);
    checkNewStay(checkIn, checkOut, rulesOf(deps));
  }

  // Holds change when the booking starts or stops holding, or holds other nights or units.
  const holdsChange = wasHolding !== holding || (holding && (datesChanged || unitsChanged));
  const changedNights = holdsChange ? [...heldNights(row), ...(holding ? heldNights({ status, check_in: checkIn, check_out: checkOut }) : [])] : [];
  let updated: BookingRow;
  if (holdsChange && holding) {
    // The property's refusals come before the units' (decisions §4).
    refuseUnbookable(lock.status);
    const request = asked?.requested ?? currentUnits.map((u) => ({ ...u, unitId: u.unit_id }));
    if (!asked) refuseInactiveKept(currentUnits, await selectPropertyUnits(trx, row.property_id, actorIntegrationId));
    // The calendar decides the units (the booking's own nights count as free); then the row and
    // its new holds are written in one statement, under the property's lock.
    const stay = {
      checkIn,
      checkOut,
      channel: row.source_channel,
      integrationId: actorIntegrationId,
      units: request.map((r) => r.unitId),
      prefer: currentUnits.map((u) => u.unit_id),
      bookingId: row.id,
    };
    const decision = await decideStay(trx, lock, stay);
    const set = fieldChanges(row, input, { status, checkIn, checkOut, units: storedUnits(request, decision.unitIds) }, now);
    updated = await holdStay(trx, lock, stay, decision, bookingUpdate(trx, row.id, { ...set, updated_at: now }));
  } else {
    // Units the calendar would have to pick only come with a stay that holds (refused above otherwise).
    const set = fieldChanges(row, input, { status, checkIn, checkOut, units: asked?.kept ?? currentUnits }, now);
    if (Object.keys(set).length === 0) return { row, changed: false };
    if (holdsChange) releaseStay(trx, lock, row.id);
    updated = await updateBookingRow(trx, row.id, { ...set, updated_at: now });
  }
  await appendBookingEvents(trx, { clock: deps.clock, booking: updated, actorIntegrationId, changedNights });
  return { row: updated, changed: true };
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
    throw fail('UNIT_INACTIVE', 'A unit of this booking is off sale: the booking cannot move to other dates on it.', inactive);
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
  input: CancelBookingInput,
  ifMatch: string | undefined,
): Promise<{ booking: BookingView; changed: boolean }> {
  const outcome = await unitOfWork(deps, async (trx): Promise<Outcome> => {
    const { lock, row } = await lockBooking(trx, viewer, by);
    if (row.status === 'cancelled' || row.status === 'refunded') return { row, changed: false };
    checkIfMatch(ifMatch, row.revision);
    return applyChange(deps, trx, lock, viewer, row, { status: 'cancelled', reason: input.reason, refund_note: input.refund_note });
  });
  return { booking: await viewOf(deps, viewer, outcome.row), changed: outcome.changed };
}
