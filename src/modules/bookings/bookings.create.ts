/** Booking creates: the partner's POST /bookings and the host's staff create. */
import type { RawBuilder } from 'kysely';
import type { Deps } from '../../deps.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { kolkataDate } from '../../lib/time.js';
import { decideStay, holdStay, isHoldConflict, refuseUnbookable } from '../calendar/calendar.holds.js';
import { lockProperty, type PropertyLock } from '../properties/properties.lock.js';
import { checkPropertyRef, notBeforeToday, propertyNotMapped } from './bookings.input.js';
import type { CreateBookingInput, HostCreateBookingInput } from './bookings.schemas.js';
import type { BookingUnit } from './bookings.tables.js';
import { appendBookingEvents, bookingView, NO_IDS, type BookingView, type ViewIds } from './bookings.payloads.js';
import { unitOfWork, type AppendTarget, type UnitOfWork } from '../events/events.log.js';
import { coveredPropertyId } from '../properties/properties.resolve.js';
import { propertyExists, selectPropertyUnits, selectUnitAliasesOf } from '../properties/properties.sql.js';
import { bookingInsert, nextBookingId, selectCreateContext, selectOwnByExternalId, selectVisibleBooking, type BookingRow } from './bookings.sql.js';
import { isUniqueViolation, type RequestedUnit, resolveUnits, storedUnits, viewOf, unavailableNow, retryPicks } from './bookings.common.js';

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
    /** A host booking without an id of its own is named after its service id (DL-<id>). */
    hostId: boolean;
    targets?: AppendTarget[];
  },
): Promise<BookingRow> {
  const { actorIntegrationId, input } = write;
  const now = deps.clock.now();
  const id = write.hostId ? await nextBookingId(trx) : undefined;
  const values = (units: BookingUnit[]) => ({
    ...(id !== undefined ? { id, external_booking_id: input.externalBookingId || `DL-${id}` } : { external_booking_id: input.externalBookingId }),
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
    currency: 'INR',
    notes: input.notes ?? null,
    source_channel: input.channel,
    source_reference: input.reference ?? null,
    reason: input.reason ?? null,
    refund_note: input.refundNote ?? null,
    cancelled_at: null,
    created_at: now,
    updated_at: now,
  });
  const request = { checkIn: input.checkIn, checkOut: input.checkOut, channel: input.channel, integrationId: actorIntegrationId, units: write.requested.map((r) => r.unitId) };
  const { unitIds, stay } = await decideStay(trx, lock, request);
  const row = await holdStay(trx, lock, request, { unitIds, stay }, bookingInsert(trx, values(storedUnits(write.requested, unitIds))));
  const targets = write.targets;
  // The other covering integrations' aliases in one read, so that their availability events come
  // from the decision's calendar too.
  const otherAliases = targets
    ? await selectUnitAliasesOf(trx, lock.propertyId, targets.filter((t) => t.id !== actorIntegrationId).map((t) => t.id))
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
export async function createBooking(
  deps: Deps,
  integrationId: number,
  body: CreateBookingInput,
  options: {
    /** A statement made from the answer (the request's idempotency record), run as the new booking's transaction's last write. */
    inTransaction?: (created: CreateResult) => RawBuilder<unknown> | null;
  } = {},
): Promise<CreateResult> {
  const input = checkPropertyRef(body);
  const stay = stayOf(input, input.external_booking_id, input.source.channel);
  const today = kolkataDate(deps.clock.now());
  let picks = false;
  let propertyId: number | null = null;
  const attempt = () =>
    unitOfWork(deps, async (trx) => {
      const lock = await lockProperty(trx, coveredPropertyId(integrationId, input.property));
      const context = await selectCreateContext(trx, integrationId, input.external_booking_id, lock?.propertyId ?? null);
      if (context.existingId !== null) {
        const existing: BookingRow | undefined = await selectVisibleBooking(trx, { integrationId }, { id: context.existingId });
        if (existing !== undefined) return { duplicate: existing };
      }
      notBeforeToday(input.check_in, today);
      if (!lock) throw propertyNotMapped('No property this integration covers matches the reference.');
      refuseUnbookable(lock.status);
      propertyId = lock.propertyId;
      const requested = resolveUnits(input.units, context.units);
      picks = requested.some((r) => r.unitId === null);
      const ids: ViewIds = {
        propertyExternalId: context.propertyExternalId,
        aliases: new Map(context.units.filter((u) => u.alias !== null).map((u) => [u.id, u.alias!])),
      };
      const row = await writeNewBooking(deps, trx, lock, { actorIntegrationId: integrationId, requested, input: stay, ids, hostId: false, targets: context.targets });
      const created: CreateResult = { status: 201, booking: bookingView(row, ids) };
      const also = options.inTransaction?.(created);
      if (also) trx.send(also);
      return { created };
    });
  try {
    const outcome = await retryPicks(() => picks, attempt);
    if (outcome.duplicate) return duplicateOf(deps, integrationId, outcome.duplicate);
    return outcome.created;
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
export async function hostCreateBooking(deps: Deps, propertyId: number, input: HostCreateBookingInput): Promise<BookingView> {
  notBeforeToday(input.check_in, kolkataDate(deps.clock.now()));
  const units = await selectPropertyUnits(deps.db, propertyId, null);
  if (units.length === 0) {
    if (!(await propertyExists(deps.db, propertyId))) throw notFound('No such property.');
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
  // the id defaults to DL-<id> once the id is known; the channel to direct
  const stay = stayOf(input, input.external_booking_id ?? '', input.source?.channel ?? 'direct');
  try {
    const picks = requested.some((r) => r.unitId === null);
    const row = await retryPicks(
      () => picks,
      () =>
        unitOfWork(deps, async (trx) => {
          const lock = await lockProperty(trx, propertyId);
          if (!lock) throw notFound('No such property.');
          return writeNewBooking(deps, trx, lock, { actorIntegrationId: null, requested, input: stay, ids: NO_IDS, hostId: true });
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
