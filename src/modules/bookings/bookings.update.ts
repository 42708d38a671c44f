/** Booking changes: PATCH (partner and host) and cancel. */
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { kolkataDate } from '../../lib/time.js';
import { decideStay, holdStay, isHoldConflict, refuseUnbookable, releaseStay } from '../calendar/calendar.holds.js';
import { lockProperty, type PropertyLock } from '../properties/properties.lock.js';
import { checkNewStay, notBeforeToday, propertyNotMapped } from './bookings.input.js';
import { appendBookingEvents, bookingUnits, heldNights, HOLDING, type BookingView } from './bookings.payloads.js';
import { unitOfWork, type UnitOfWork } from '../events/events.log.js';
import type { CancelBookingInput, UpdateBookingInput } from './bookings.schemas.js';
import { isCovered, selectPropertyUnits, type PropertyUnit } from '../properties/properties.sql.js';
import { bookingUpdate, isHost, selectVisibleBooking, updateBookingRow, type BookingRow, type Viewer } from './bookings.sql.js';
import type { BookingStatus, BookingUnit } from './bookings.tables.js';
import { rulesOf, bookingNotFound, type RequestedUnit, resolveUnits, storedUnits, viewOf, type StayRequest, unavailableNow } from './bookings.common.js';

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
  const attempt: Attempted = {};
  const outcome = await unitOfWork(deps, async (trx): Promise<Outcome> => {
    const { lock, row } = await lockBooking(trx, viewer, by);
    checkIfMatch(ifMatch, row.revision);
    return applyChange(deps, trx, lock, viewer, row, input, attempt);
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
  trx: UnitOfWork,
  lock: PropertyLock,
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
  const reserves = holdsChange && holding;
  let request: RequestedUnit[] = [];
  if (reserves) {
    // The property's refusals come before the units' (decisions §4).
    refuseUnbookable(lock.status);
    if (!propertyUnits) propertyUnits = await selectPropertyUnits(trx, row.property_id, actorIntegrationId);
    request = requested ?? currentUnits.map((u) => ({ ...u, unitId: u.unit_id }));
    if (!requested) refuseInactiveKept(currentUnits, propertyUnits);
  }

  /** The row's changes for these units (the dates, status and fields are decided above). */
  const changes = (stayUnits: BookingUnit[]): Record<string, unknown> => {
    const set: Record<string, unknown> = {};
    if (nextStatus !== row.status) set.status = nextStatus;
    if (checkIn !== row.check_in) set.check_in = checkIn;
    if (checkOut !== row.check_out) set.check_out = checkOut;
    if (!sameUnits(stayUnits, currentUnits)) set.units = JSON.stringify(stayUnits);
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
    return set;
  };

  const changedNights = holdsChange
    ? [...heldNights(row), ...(holding ? heldNights({ status: nextStatus, check_in: checkIn, check_out: checkOut }) : [])]
    : [];
  let updated: BookingRow;
  if (reserves) {
    // The calendar decides the units (the booking's own nights count as free); then the row and
    // its new holds are written in one statement, under the property's lock.
    attempt.stay = { propertyId: row.property_id, checkIn, checkOut, channel: row.source_channel, integrationId: actorIntegrationId, excludeBookingId: row.id };
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
    updated = await holdStay(trx, lock, stay, decision, bookingUpdate(trx, row.id, { ...changes(storedUnits(request, decision.unitIds)), updated_at: now }));
  } else {
    const set = changes(units);
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


