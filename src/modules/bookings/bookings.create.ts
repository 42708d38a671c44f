/** Booking creates: the partner's POST /bookings and the host's staff create. */
import type { Deps } from '../../deps.js';
import { successBody } from '../../http/envelope.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { dataClock } from '../../lib/clock.js';
import { kolkataDate } from '../../lib/time.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';
import { decideStay, holdStay, HoldConflict, refuseUnbookable } from '../calendar/calendar.holds.js';
import { lockProperty, type PropertyLock } from '../properties/properties.lock.js';
import { checkPropertyRef, notBeforeToday, propertyNotMapped } from './bookings.input.js';
import type { CreateBookingInput, HostCreateBookingInput } from './bookings.schemas.js';
import type { BookingUnit } from './bookings.tables.js';
import { appendBookingEvents, bookingView, NO_IDS, type BookingView, type ViewIds } from './bookings.payloads.js';
import { unitOfWork, type AppendTarget, type UnitOfWork } from '../events/events.log.js';
import { coveredPropertyId } from '../properties/properties.resolve.js';
import { propertyBrandId, selectPropertyUnits, selectUnitAliasesOf } from '../properties/properties.sql.js';
import {
  bookingInsert,
  hostBookingIdOf,
  nextHostBookingName,
  selectCreateContext,
  selectOwnByExternalId,
  selectVisibleBooking,
  type BookingRow,
} from './bookings.sql.js';
import { MAX_WRITE_ATTEMPTS, type RequestedUnit, resolveUnits, storedUnits, viewOf, unavailableNow, retryPicks } from './bookings.common.js';

// ---------------------------------------------------------------------------------------------
// Create

/**
 * The answer of POST /bookings, serialised once: 201 with the new booking, or 200 with the
 * integration's booking of the same external_booking_id as it is now (`data.duplicate`).
 */
export interface CreateAnswer {
  status: 200 | 201;
  body: string;
  /** The booking's revision (the answer's ETag). */
  revision: number;
}

/** Stores a create's answer in the booking's own transaction, as its last statement (the request's idempotency record). */
export type CompleteInTransaction = (uow: UnitOfWork, answer: CreateAnswer) => Promise<void>;

function createdAnswer(booking: BookingView): CreateAnswer {
  return { status: 201, body: JSON.stringify(successBody('Booking created.', { ...booking, duplicate: false })), revision: booking.revision };
}

function duplicateAnswer(booking: BookingView): CreateAnswer {
  return {
    status: 200,
    body: JSON.stringify(successBody('A booking with this external_booking_id already exists.', { ...booking, duplicate: true })),
    revision: booking.revision,
  };
}

/** What one create transaction came to. */
type CreateOutcome =
  /** Written and committed, its answer stored with it. */
  | { kind: 'created'; answer: CreateAnswer }
  /** The integration already has a booking of this external_booking_id; nothing written. */
  | { kind: 'duplicate'; row: BookingRow }
  /**
   * The database refused the write, rolled back: a concurrent create of the same
   * external_booking_id won (`external_id`), or another booking took a (unit, night) between the
   * decision and the write (`holds`, with the stay and whether the service picked units).
   */
  | { kind: 'conflict'; on: 'external_id' }
  | { kind: 'conflict'; on: 'holds'; lost: HoldConflict };

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

/** The stay a create body asks for (partner or host), with its id and channel as resolved by the caller. */
function stayOf(input: CreateBookingInput | HostCreateBookingInput, externalBookingId: string, channel: string): StayInput {
  return {
    externalBookingId,
    checkIn: input.check_in,
    checkOut: input.check_out,
    status: input.status ?? 'confirmed',
    guest: input.guest,
    total: input.pricing.total,
    notes: input.notes,
    channel,
    reference: input.source?.reference,
    reason: input.reason,
    refundNote: input.refund_note,
  };
}

/**
 * The write of a new booking under the property's lock: the calendar's decision (decideStay), the
 * booking and its holds (holdStay, the row as PostgreSQL returns it), and its events.
 */
async function writeNewBooking(
  deps: Deps,
  trx: UnitOfWork,
  lock: PropertyLock,
  write: {
    actorIntegrationId: number | null;
    requested: RequestedUnit[];
    input: StayInput;
    ids: ViewIds;
    /** The brand of a host booking: one without an id of its own gets the brand's next `DL-<n>`. */
    hostBrandId: number | null;
    targets?: AppendTarget[];
  },
): Promise<BookingRow> {
  const { actorIntegrationId, input } = write;
  const now = deps.clock.now();
  const hostBrandId = write.hostBrandId;
  const externalBookingId = hostBrandId !== null && !input.externalBookingId ? await nextHostBookingName(trx, hostBrandId) : input.externalBookingId;
  const values = (units: BookingUnit[]) => ({
    external_booking_id: externalBookingId,
    brand_id: hostBrandId,
    integration_id: actorIntegrationId,
    property_id: lock.propertyId,
    status: input.status,
    check_in: input.checkIn,
    check_out: input.checkOut,
    units: JSON.stringify(units),
    guest_name: input.guest.name,
    guest_phone_code: input.guest.phone_code ?? null,
    guest_mobile: input.guest.mobile ?? null,
    total: input.total,
    notes: input.notes ?? null,
    source_channel: input.channel,
    source_reference: input.reference ?? null,
    reason: input.reason ?? null,
    refund_note: input.refundNote ?? null,
    cancelled_at: null,
    created_at: now,
    updated_at: now,
  });
  const request = {
    checkIn: input.checkIn,
    checkOut: input.checkOut,
    channel: input.channel,
    integrationId: actorIntegrationId,
    units: write.requested.map((r) => r.unitId),
  };
  const { unitIds, stay } = await decideStay(trx, lock, request);
  const row = await holdStay(trx, lock, request, { unitIds, stay }, bookingInsert(trx, values(storedUnits(write.requested, unitIds))));
  const targets = write.targets;
  // The other covering integrations' aliases in one read, so that their availability events come
  // from the decision's calendar too.
  const otherAliases = targets
    ? await selectUnitAliasesOf(
        trx,
        lock.propertyId,
        targets.filter((t) => t.id !== actorIntegrationId).map((t) => t.id),
      )
    : undefined;
  await appendBookingEvents(trx, {
    clock: deps.clock,
    booking: row,
    actorIntegrationId,
    actorIds: write.ids,
    changedNights: stay.nights,
    actorCalendar: { data: stay.data, span: stay.window },
    otherAliases,
    targets,
  });
  return row;
}

/**
 * POST /bookings (decisions §4). Order of answers: the body (422), a duplicate external_booking_id
 * (200 with the booking as it is now), check_in before today (422), the property (422
 * PROPERTY_NOT_MAPPED / PROPERTY_ARCHIVED / PROPERTY_INACTIVE), the units (422, UNIT_INACTIVE),
 * then availability (409 UNAVAILABLE) and 201.
 */
export async function createBooking(deps: Deps, integrationId: number, body: CreateBookingInput, complete?: CompleteInTransaction): Promise<CreateAnswer> {
  const input = checkPropertyRef(body);
  const today = kolkataDate(dataClock(deps.clock, 'today', { integrationId }).now());
  // A lost race is final unless the service picked units: then the next attempt picks around the winner.
  for (let attempt = 1; ; attempt++) {
    const outcome = await createTransaction(deps, integrationId, input, today, complete);
    if (outcome.kind === 'created') return outcome.answer;
    if (outcome.kind === 'duplicate') return duplicateAnswer(await viewOf(deps, { integrationId }, outcome.row));
    if (outcome.on === 'external_id') {
      // the concurrent create's booking, as a duplicate (the next attempt would find it too)
      const winner = await selectOwnByExternalId(deps.db, integrationId, input.external_booking_id);
      if (winner) return duplicateAnswer(await viewOf(deps, { integrationId }, winner));
      if (attempt >= MAX_WRITE_ATTEMPTS) throw new Error('booking create: the external_booking_id conflicts, but no booking holds it');
    } else if (!outcome.lost.picked || attempt >= MAX_WRITE_ATTEMPTS) {
      throw await unavailableNow(deps, outcome.lost.stay);
    }
  }
}

/** One create, lock → read → decide → write, in one transaction; a refusal is thrown, a lost race answered as a conflict. */
async function createTransaction(
  deps: Deps,
  integrationId: number,
  input: ReturnType<typeof checkPropertyRef>,
  today: string,
  complete: CompleteInTransaction | undefined,
): Promise<CreateOutcome> {
  try {
    return await unitOfWork(deps, async (trx): Promise<CreateOutcome> => {
      const lock = await lockProperty(trx, coveredPropertyId(integrationId, input.property));
      const context = await selectCreateContext(trx, integrationId, input.external_booking_id, lock?.propertyId ?? null);
      if (context.existingId !== null) {
        const existing: BookingRow | undefined = await selectVisibleBooking(trx, { integrationId }, { id: context.existingId });
        if (existing !== undefined) return { kind: 'duplicate', row: existing };
      }
      notBeforeToday(input.check_in, today);
      if (!lock) throw propertyNotMapped('No property this integration covers matches the reference.');
      refuseUnbookable(lock.status);
      const requested = resolveUnits(input.units, context.units);
      const ids: ViewIds = {
        propertyExternalId: context.propertyExternalId,
        aliases: new Map(context.units.filter((u) => u.alias !== null).map((u) => [u.id, u.alias!])),
      };
      const stay = stayOf(input, input.external_booking_id, input.source.channel);
      const row = await writeNewBooking(deps, trx, lock, {
        actorIntegrationId: integrationId,
        requested,
        input: stay,
        ids,
        hostBrandId: null,
        targets: context.targets,
      });
      const answer = createdAnswer(bookingView(row, ids));
      await complete?.(trx, answer);
      return { kind: 'created', answer };
    });
  } catch (error) {
    if (isUniqueViolation(error, 'bookings_external_id')) return { kind: 'conflict', on: 'external_id' };
    if (error instanceof HoldConflict) return { kind: 'conflict', on: 'holds', lost: error };
    throw error;
  }
}

/**
 * Staff POST /properties/{id}/bookings: a host booking (origin doorloom for every integration
 * that covers the property). Units by inventory_id or picked by the service; the id defaults to
 * the brand's next DL-<n>; the channel to `direct`.
 */
export async function hostCreateBooking(
  deps: Deps,
  propertyId: number,
  input: HostCreateBookingInput,
  options: { aliasesOf?: number } = {},
): Promise<BookingView> {
  // Host ids are unique per brand: another brand's booking with the same id is not looked at.
  const brandId = await propertyBrandId(deps.db, propertyId);
  if (brandId === null) throw notFound('No such property.');
  notBeforeToday(input.check_in, kolkataDate(dataClock(deps.clock, 'today', { brandId }).now()));
  // `external_unit_id` names a unit by an integration's alias: the sandbox acts for one.
  const units = await selectPropertyUnits(deps.db, propertyId, options.aliasesOf ?? null);
  if (input.external_booking_id !== undefined) {
    const taken = await hostBookingIdOf(deps.db, brandId, input.external_booking_id);
    if (taken !== null) throw validationFailed({ external_booking_id: [`is already used by host booking ${taken}`] });
  }
  const requested = resolveUnits(input.units, units);
  // the id defaults to the brand's next DL-<n> (in the transaction); the channel to direct
  const stay = stayOf(input, input.external_booking_id ?? '', input.source?.channel ?? 'direct');
  try {
    const row = await retryPicks(() =>
      unitOfWork(deps, async (trx) => {
        const lock = await lockProperty(trx, propertyId);
        if (!lock) throw notFound('No such property.');
        return writeNewBooking(deps, trx, lock, { actorIntegrationId: null, requested, input: stay, ids: NO_IDS, hostBrandId: brandId });
      }),
    );
    return bookingView(row, NO_IDS);
  } catch (error) {
    if (isUniqueViolation(error, 'bookings_host_brand_external_id')) {
      throw validationFailed({ external_booking_id: ['is already used by another host booking'] });
    }
    if (error instanceof HoldConflict) throw await unavailableNow(deps, error.stay);
    throw error;
  }
}
