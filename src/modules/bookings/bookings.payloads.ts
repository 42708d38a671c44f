import type { Static } from '@sinclair/typebox';
import { dataClock, type Clock } from '../../lib/clock.js';
import { roundMoney } from '../../lib/money.js';
import {
  addDays,
  clampToHorizon,
  daysBetween,
  eachDate,
  formatTimestamp,
  formatTimestampOrNull,
  kolkataDate,
  windowsForNights,
  type DateWindow,
} from '../../lib/time.js';
import { buildAvailability, calendarEventDrafts } from '../calendar/calendar.payloads.js';
import type { CalendarData } from '../calendar/calendar.sql.js';
import { appendEvents, type AppendTarget, type EventDraft, type EventTarget, type UnitOfWork } from '../events/events.log.js';
import type { BookingObject } from './bookings.schemas.js';
import { selectAliasesOfUnits, selectAppendTargets } from '../properties/properties.sql.js';
import type { BookingRow } from './bookings.sql.js';
import type { BookingUnit } from './bookings.tables.js';

/**
 * The Booking object (decisions §4) as one viewer sees it (external ids are per integration),
 * and the events of a booking change (decisions §6).
 */

export interface ViewIds {
  /** The viewer's external_id of the property (null: none, or the host). */
  propertyExternalId: string | null;
  /** The viewer's unit aliases: unit id → external_unit_id. */
  aliases: Map<number, string>;
}

export const NO_IDS: ViewIds = { propertyExternalId: null, aliases: new Map() };

export function bookingUnits(row: BookingRow): BookingUnit[] {
  const units = row.units as unknown;
  return (typeof units === 'string' ? JSON.parse(units) : units) as BookingUnit[];
}

export function bookingView(row: BookingRow, ids: ViewIds): BookingView {
  const cancelled = row.status === 'cancelled' || row.status === 'refunded';
  return {
    id: row.id,
    external_booking_id: row.external_booking_id,
    revision: row.revision,
    status: row.status,
    property: { doorloom_id: row.property_id, external_id: ids.propertyExternalId },
    units: bookingUnits(row).map((u) => ({
      inventory_id: u.unit_id,
      external_unit_id: ids.aliases.get(u.unit_id) ?? null,
      adults: u.adults,
      children: u.children,
      meal_plan: u.meal_plan,
    })),
    check_in: row.check_in,
    check_out: row.check_out,
    nights: daysBetween(row.check_in, row.check_out),
    guest: { name: row.guest_name, phone_code: row.guest_phone_code, mobile: row.guest_mobile },
    pricing: { total: roundMoney(row.total), currency: 'INR' as const },
    notes: row.notes,
    source: { channel: row.source_channel, reference: row.source_reference },
    cancellation: cancelled ? { reason: row.reason, refund_note: row.refund_note, cancelled_at: formatTimestampOrNull(row.cancelled_at) } : null,
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
  };
}

/** Typed from the response schema: the OpenAPI document says what is sent. */
export type BookingView = Static<typeof BookingObject>;

/** A calendar as another integration reads it: the same nights and holds, its own unit aliases. */
function withAliases(data: CalendarData, aliases: ReadonlyMap<number, string>): CalendarData {
  return { ...data, units: data.units.map((u) => ({ ...u, external_unit_id: aliases.get(u.id) ?? null })) };
}

/** The statuses whose bookings hold their units' nights. */
export const HOLDING = new Set(['pending', 'confirmed']);

/** The nights a booking row holds (none unless pending or confirmed). */
export function heldNights(row: Pick<BookingRow, 'status' | 'check_in' | 'check_out'>): string[] {
  return HOLDING.has(row.status) ? eachDate(row.check_in, addDays(row.check_out, -1)) : [];
}

/** Whether an integration sees a booking: its own, or the host's on a property it covers (targets cover it). */
export const targetSees = (row: BookingRow, integrationId: number) => row.integration_id === null || row.integration_id === integrationId;

export interface BookingEventOptions {
  clock: Clock;
  booking: BookingRow;
  /** The integration whose API call made the change; null for the host. */
  actorIntegrationId: number | null;
  /** The actor's ids, when already known (saves a read). */
  actorIds?: ViewIds;
  /** Nights whose availability changed (old and new nights of a move); empty when holds did not change. */
  changedNights: Iterable<string>;
  /**
   * The calendar the writer decided on, read under the property's calendar lock with the actor's
   * aliases and brought up to date with the write's own holds: the actor's availability payloads
   * over `span` come from it instead of a second read (the same builder, the same state).
   */
  actorCalendar?: { data: CalendarData; span: DateWindow };
  /**
   * The unit aliases of every other covering integration (integration id → unit id → alias), read
   * in the transaction with the targets: their availability payloads over the actor calendar's span
   * then come from that calendar too, with their own aliases, without a read per integration.
   */
  otherAliases?: ReadonlyMap<number, ReadonlyMap<number, string>>;
  /** The covering integrations, when read in this transaction already. */
  targets?: AppendTarget[];
}

/**
 * Records, in the writer's transaction, booking.changed for every covering integration that sees
 * the booking (origin `partner` for the writer, `doorloom` for everyone else) and
 * availability.changed for the changed nights, one event per calendar month touched (windowed to
 * those nights, clamped to each receiver's horizon), for every covering integration.
 */
export async function appendBookingEvents(trx: UnitOfWork, options: BookingEventOptions) {
  const { booking } = options;
  const todayOf = (integrationId: number) => kolkataDate(dataClock(options.clock, 'today', { integrationId }).now());
  const windows = windowsForNights(options.changedNights);
  const unitIds = bookingUnits(booking).map((u) => u.unit_id);
  return appendEvents(trx, {
    clock: options.clock,
    propertyId: booking.property_id,
    actorIntegrationId: options.actorIntegrationId,
    targets: options.targets ?? (await selectAppendTargets(trx, booking.property_id)),
    build: async (target: EventTarget): Promise<EventDraft[]> => {
      const drafts: EventDraft[] = [];
      const isActor = target.integrationId === options.actorIntegrationId;
      if (targetSees(booking, target.integrationId)) {
        let ids: ViewIds;
        if (options.actorIds && isActor) ids = { ...options.actorIds, propertyExternalId: target.propertyExternalId };
        else {
          ids = { propertyExternalId: target.propertyExternalId, aliases: await selectAliasesOfUnits(trx, target.integrationId, unitIds) };
        }
        drafts.push({ type: 'booking.changed', window: null, data: { booking: bookingView(booking, ids) } });
      }
      const clamped = windows.flatMap((w) => clampToHorizon(w, todayOf(target.integrationId), target.horizonDays) ?? []);
      const known = options.actorCalendar;
      const aliases = isActor ? null : options.otherAliases && (options.otherAliases.get(target.integrationId) ?? new Map<number, string>());
      if (known && (isActor || aliases) && clamped.every((w) => w.from >= known.span.from && w.to <= known.span.to)) {
        const data = aliases ? withAliases(known.data, aliases) : known.data;
        for (const w of clamped) drafts.push({ type: 'availability.changed', window: { from: w.from, to: w.to }, data: buildAvailability(data, w) });
      } else if (clamped.length > 0) {
        drafts.push(...(await calendarEventDrafts(trx, booking.property_id, ['availability'], clamped, target)));
      }
      return drafts;
    },
  });
}
