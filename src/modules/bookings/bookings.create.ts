/** Booking creates: the partner's POST /bookings and the host's staff create. */
import type { Deps } from '../../deps.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { kolkataDate } from '../../lib/time.js';
import { isHoldConflict, refuseUnbookable, reserveStay, reserveStayAtCommit, stayFromRow, stayWindow, type PropertyStatus, type StayAvailability } from '../calendar/calendar.holds.js';
import { pipeline } from '../../db/pipeline.js';
import { checkPropertyRef, notBeforeToday, propertyNotMapped } from './bookings.input.js';
import type { CreateBookingInput, HostCreateBookingInput } from './bookings.schemas.js';
import type { BookingUnit } from './bookings.tables.js';
import { appendBookingEvents, bookingView, NO_IDS, type BookingView, type ViewIds } from './bookings.payloads.js';
import { withEvents, type AppendResult, type AppendTarget, type EventTransaction } from '../events/events.log.js';
import { atCommit } from '../events/events.unit.js';
import type { RawBuilder } from 'kysely';
import { bookingInsert, newBookingRow, selectUnitAliasesOf, createContextOf, createContextStatement, createStayStatement, nextBookingId, selectOwnByExternalId, selectPropertyUnits, selectVisibleBooking, type BookingRow } from './bookings.sql.js';
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
 * The write of a new booking inside the caller's transaction: the calendar's decision and holds
 * (reserveStay, under the property's calendar lock), the booking and its events.
 */
async function writeNewBooking(
  deps: Deps,
  trx: EventTransaction,
  write: {
    actorIntegrationId: number | null;
    propertyId: number;
    /** The property's status read under the calendar lock, when the caller took it. */
    lockedStatus?: PropertyStatus;
    /** The stay's availability read after the caller took the calendar lock. */
    lockedStay?: StayAvailability;
    requested: RequestedUnit[];
    input: StayInput;
    ids: ViewIds;
    hostId: boolean;
    targets?: AppendTarget[];
    /**
     * The id taken and the total converted by the caller's first statement, so that the row is known
     * before it is written, and the other covering integrations' unit aliases (selectUnitAliasesOf),
     * so that the events read nothing: the booking's write then waits for the commit.
     */
    newRow?: { id: number; total: number; otherAliases: ReadonlyMap<number, ReadonlyMap<number, string>> };
  },
): Promise<{ row: BookingRow; appended: AppendResult }> {
  const { actorIntegrationId, propertyId, input, newRow } = write;
  const now = deps.clock.now();
  const id = newRow ? newRow.id : write.hostId ? await nextBookingId(trx) : undefined;
  const request = {
    propertyId,
    checkIn: input.checkIn,
    checkOut: input.checkOut,
    channel: input.channel,
    integrationId: actorIntegrationId,
    units: write.requested.map((r) => r.unitId),
    lockedStatus: write.lockedStatus,
    lockedStay: write.lockedStay,
  };
  const values = (units: BookingUnit[]) => ({
    ...(id !== undefined ? { id, external_booking_id: input.externalBookingId || `DL-${id}` } : { external_booking_id: input.externalBookingId }),
    integration_id: actorIntegrationId,
    property_id: propertyId,
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
  // With the row known, its write goes with the events and the commit: one round trip less per
  // create, and the calendar lock held for one round trip less (docs/performance.md, fourteenth round).
  const { row, stay } = newRow
    ? await reserveStayAtCommit(trx, request, (unitIds) => {
        const units = storedUnits(write.requested, unitIds);
        const written = { ...values(units), id: newRow.id };
        return { statement: bookingInsert(trx, written), row: newBookingRow(written, newRow.total, units) };
      })
    : await reserveStay(trx, request, (unitIds) => bookingInsert(trx, values(storedUnits(write.requested, unitIds))));
  // The decision's calendar with these holds is the state the events carry, without a second read.
  const appended = await appendBookingEvents(trx, {
    clock: deps.clock,
    booking: row,
    actorIntegrationId,
    actorIds: write.ids,
    changedNights: stay.nights,
    actorCalendar: { data: stay.data, span: stay.window },
    otherAliases: newRow?.otherAliases,
    readsNothing: newRow !== undefined,
    targets: write.targets,
    // nothing follows in the transaction: the events go with the commit, in one round trip
    last: true,
  });
  return { row, appended };
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
    /**
     * A statement to commit with a new booking, made from the answer (the request's idempotency
     * record): it is sent with the booking's events and its commit, in the same round trip.
     */
    withCommit?: (created: CreateResult) => RawBuilder<unknown> | null;
  } = {},
): Promise<CreateResult> {
  const input = checkPropertyRef(body);
  const stay = stayOf(input, input.external_booking_id, input.source.channel);
  const today = kolkataDate(deps.clock.now());
  // No id is taken for a create refused whatever the context says.
  const newRowAsk = { wanted: input.check_in >= today, total: stay.total };
  let picks = false;
  let propertyId: number | null = null;
  // One transaction from the first read: the context read takes the property's calendar lock.
  const attempt = () =>
    withEvents(deps, async (trx) => {
      // The context (which takes the calendar lock) and the stay's calendar in one round trip: the
      // calendar statement starts once the lock is held, so it sees the holds of whoever held it.
      const stayOptions = { channel: stay.channel, integrationId };
      const [contextRow, calendarRow] = await pipeline(trx, [
        createContextStatement(integrationId, input.external_booking_id, input.property, newRowAsk),
        createStayStatement(integrationId, input.property, stayWindow(stay.checkIn, stay.checkOut)),
      ]).then((results) => results.map((r) => r.rows[0]));
      const context = createContextOf(contextRow);
      if (context.existingId !== null) {
        const existing: BookingRow | undefined = await selectVisibleBooking(trx, { integrationId }, { id: context.existingId });
        if (existing !== undefined) return { duplicate: existing };
      }
      notBeforeToday(input.check_in, today);
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
      const written = await writeNewBooking(deps, trx, {
        actorIntegrationId: integrationId,
        propertyId: property.id,
        lockedStatus: property.status,
        lockedStay: stayFromRow(property.id, calendarRow, stay.checkIn, stay.checkOut, stayOptions),
        requested,
        input: stay,
        ids,
        hostId: false,
        targets: context.targets,
        // with the other covering integrations' aliases (one read, only when there are any), their
        // availability events come from the decision's calendar too
        newRow: context.newRow
          ? {
              ...context.newRow,
              otherAliases: await selectUnitAliasesOf(
                trx,
                property.id,
                context.targets.filter((target) => target.id !== integrationId).map((target) => target.id),
              ),
            }
          : undefined,
      });
      const created: CreateResult = { status: 201, booking: bookingView(written.row, ids) };
      const also = options.withCommit?.(created);
      if (also) atCommit(trx, also, () => {}, null);
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
  // the id defaults to DL-<id> once the id is known; the channel to direct
  const stay = stayOf(input, input.external_booking_id ?? '', input.source?.channel ?? 'direct');
  try {
    const picks = requested.some((r) => r.unitId === null);
    const { row } = await retryPicks(
      () => picks,
      () =>
        withEvents(deps, (trx) => writeNewBooking(deps, trx, { actorIntegrationId: null, propertyId, requested, input: stay, ids: NO_IDS, hostId: true })),
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
