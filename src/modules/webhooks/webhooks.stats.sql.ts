import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { eventLog } from '../events/events.sql.js';
import { deliveredByCursor, eventDeliveryColumns, pendingCondition, skippedCondition, type DeliveryStatus } from './webhooks.sql.js';

type Q = Kysely<DB> | Transaction<DB>;

export interface Backlog {
  /** Events recorded, subscribed and not yet delivered. */
  undelivered: number;
  /** When the oldest of them was recorded; null with none. */
  oldestAt: Date | null;
  /** When the oldest undelivered `booking.changed` among them was recorded; null with none. */
  oldestBookingAt: Date | null;
}

/** The first pending event above the delivery cursor (of one kind when `type` is given), as a subquery of the delivery state `s`. */
function firstPendingAbove(db: Q, type: string | null) {
  let query = db
    .selectFrom(eventLog(db).as('e'))
    .where('e.integration_id', '=', sql.ref<number>('s.integration_id'))
    .where('e.delivery_status', '=', 'pending')
    .where('e.sequence', '>', sql.ref<number>('s.cursor'));
  // (integration_id, type, sequence) is indexed: the first booking event is one index read
  if (type !== null) query = query.where('e.type', '=', type);
  return query.orderBy('e.sequence').limit(1);
}

/**
 * The delivery backlog of some integrations (all of them when `ids` is null): the one place that
 * reports undelivered events, for the staff listing, the console and /metrics alike. Integrations
 * without a backlog are absent from the map.
 *
 * The number is the delivery state's `undelivered` counter (kept in the transactions that record,
 * deliver and expire events); the oldest is the first pending event above the cursor, one read of
 * the primary key per integration with a backlog.
 */
export async function backlogByIntegration(db: Q, ids: readonly number[] | null): Promise<Map<number, Backlog>> {
  const out = new Map<number, Backlog>();
  if (ids !== null && ids.length === 0) return out;
  let query = db
    .selectFrom('webhook_delivery_state as s')
    .select([
      's.integration_id',
      's.undelivered as n',
      firstPendingAbove(db, null).select('e.created_at').as('oldest'),
      firstPendingAbove(db, BOOKING_EVENT).select('e.created_at').as('oldest_booking'),
    ])
    .where('s.undelivered', '>', 0);
  if (ids !== null) query = query.where('s.integration_id', 'in', ids);
  for (const row of await query.execute()) {
    out.set(row.integration_id, {
      undelivered: Number(row.n),
      oldestAt: row.oldest ? new Date(row.oldest) : null,
      oldestBookingAt: row.oldest_booking ? new Date(row.oldest_booking) : null,
    });
  }
  return out;
}

const BOOKING_EVENT = 'booking.changed';

/** An integration's oldest undelivered `booking.changed`, with the booking it carries. */
export interface UndeliveredBooking {
  integrationId: number;
  eventId: string;
  sequence: number;
  recordedAt: Date;
  bookingId: number | null;
  externalBookingId: string | null;
}

/**
 * Each integration's oldest undelivered `booking.changed` recorded at or before `recordedBy`
 * (integrations with none are absent): what the booking escalation reads. One index read per
 * integration with a backlog; the booking's ids come from the event's body.
 */
export async function undeliveredBookingHeads(db: Q, recordedBy: Date): Promise<UndeliveredBooking[]> {
  const rows = await db
    .selectFrom('webhook_delivery_state as s')
    .innerJoinLateral(firstPendingAbove(db, BOOKING_EVENT).select(['e.id', 'e.sequence', 'e.created_at', 'e.body']).as('b'), (join) => join.onTrue())
    .select(['s.integration_id', 'b.id', 'b.sequence', 'b.created_at', 'b.body'])
    .where('s.undelivered', '>', 0)
    .where('b.created_at', '<=', recordedBy)
    .orderBy('s.integration_id')
    .execute();
  return rows.map((r) => {
    let booking: { id?: unknown; external_booking_id?: unknown } | undefined;
    try {
      booking = (JSON.parse(r.body) as { data?: { booking?: typeof booking } }).data?.booking;
    } catch {
      booking = undefined;
    }
    return {
      integrationId: r.integration_id,
      eventId: r.id,
      sequence: Number(r.sequence),
      recordedAt: new Date(r.created_at),
      bookingId: typeof booking?.id === 'number' ? booking.id : null,
      externalBookingId: typeof booking?.external_booking_id === 'string' ? booking.external_booking_id : null,
    };
  });
}

export type { DeliveryStatus };

/** A page of one integration's events with their delivery state, in sequence order (no bodies). */
export async function eventDeliveryPage(db: Q, integrationId: number, options: { afterSequence: number; limit: number; status: DeliveryStatus | null }) {
  const delivery = eventDeliveryColumns('e', integrationId);
  let query = db
    .selectFrom(eventLog(db).as('e'))
    .select([
      'e.sequence',
      'e.id',
      'e.type',
      'e.origin',
      'e.property_id',
      'e.window_from',
      'e.window_to',
      'e.created_at',
      delivery.status,
      delivery.attempts,
      delivery.deliveredAt,
    ])
    .where('e.integration_id', '=', integrationId)
    .where('e.sequence', '>', options.afterSequence)
    .orderBy('e.sequence')
    .limit(options.limit + 1);
  if (options.status === 'pending') query = query.where(pendingCondition('e', integrationId));
  else if (options.status === 'skipped') query = query.where(skippedCondition('e', integrationId));
  else if (options.status === 'delivered') query = query.where(deliveredByCursor('e', integrationId));
  const rows = await query.execute();
  return { rows: rows.slice(0, options.limit), hasMore: rows.length > options.limit };
}

/** The latest attempt of each of these events (its answer or error explains a pending event). */
export async function lastAttemptsOf(db: Q, integrationId: number, eventIds: readonly string[]) {
  if (eventIds.length === 0) return new Map<string, { status_code: number | null; error: string | null; attempted_at: Date }>();
  const rows = await db
    .selectFrom('delivery_attempts')
    .select(['event_id', 'status_code', 'error', 'attempted_at', 'id'])
    .where('integration_id', '=', integrationId)
    .where('event_id', 'in', eventIds)
    .orderBy('id')
    .execute();
  return new Map(rows.map((r) => [r.event_id, { status_code: r.status_code, error: r.error, attempted_at: r.attempted_at }]));
}

export interface MinuteCount {
  /** Unix minute (seconds / 60). */
  minute: number;
  success: number;
  failure: number;
}

const minuteOf = (column: string) => sql<number>`floor(extract(epoch from ${sql.ref(column)}) / 60)::bigint`;

/** Delivery attempts (events and pings) per minute in [from, to), split by outcome. */
export async function attemptsPerMinute(db: Q, integrationId: number, from: Date, to: Date): Promise<MinuteCount[]> {
  const rows = await db
    .selectFrom('delivery_attempts')
    .select((eb) => [
      minuteOf('attempted_at').as('minute'),
      eb.fn.countAll<number>().filterWhere('success', '=', true).as('success'),
      eb.fn.countAll<number>().filterWhere('success', '=', false).as('failure'),
    ])
    .where('integration_id', '=', integrationId)
    .where('attempted_at', '>=', from)
    .where('attempted_at', '<', to)
    .groupBy(sql`1`)
    .orderBy(sql`1`)
    .execute();
  return rows.map((r) => ({ minute: Number(r.minute), success: Number(r.success), failure: Number(r.failure) }));
}

/** When a successful attempt's answer came: the delivery time of its event. */
const answeredAt = sql<Date>`attempted_at + duration_ms * interval '1 millisecond'`;

/**
 * What the backlog curve is built from: the backlog at `from` (events recorded before it and not
 * delivered by then), and per minute of [from, to) the events recorded and the events delivered.
 * Skipped events never count (they were never to be sent).
 *
 * Events are delivered in sequence order, so those delivered before `from` are the ones up to the
 * highest sequence whose successful attempt was answered before it: the backlog at `from` is
 * counted above that sequence only (a backward read of the successful attempts, then a range of
 * the primary key), and the deliveries per minute come from the successful attempts.
 */
export async function backlogMovements(db: Q, integrationId: number, from: Date, to: Date) {
  const deliveredBefore = db
    .selectFrom('delivery_attempts')
    .select('sequence')
    .where('integration_id', '=', integrationId)
    .where('success', '=', true)
    .where('sequence', 'is not', null)
    .where(answeredAt, '<', from)
    .orderBy('sequence', 'desc')
    .limit(1);
  const notSkipped = sql<boolean>`not ${skippedCondition('e', integrationId)}`;
  const start = await db
    .selectFrom(eventLog(db).as('e'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('e.integration_id', '=', integrationId)
    .where('e.sequence', '>', (eb) => eb.fn.coalesce(eb.selectFrom(deliveredBefore.as('d')).select('d.sequence'), sql.lit(0)))
    .where('e.created_at', '<', from)
    .where(notSkipped)
    .executeTakeFirstOrThrow();
  const recorded = await db
    .selectFrom(eventLog(db).as('e'))
    .select((eb) => [minuteOf('e.created_at').as('minute'), eb.fn.countAll<number>().as('n')])
    .where('e.integration_id', '=', integrationId)
    .where(notSkipped)
    .where('e.created_at', '>=', from)
    .where('e.created_at', '<', to)
    .groupBy(sql`1`)
    .execute();
  const delivered = await db
    .selectFrom('delivery_attempts')
    .select((eb) => [sql<number>`floor(extract(epoch from ${answeredAt}) / 60)::bigint`.as('minute'), eb.fn.countAll<number>().as('n')])
    .where('integration_id', '=', integrationId)
    .where('success', '=', true)
    .where('sequence', 'is not', null)
    // an answer comes within the deadline (at most 30 s) of its attempt: bounds for the attempted_at index
    .where('attempted_at', '>=', new Date(from.getTime() - 60_000))
    .where('attempted_at', '<', to)
    .where(answeredAt, '>=', from)
    .where(answeredAt, '<', to)
    .groupBy(sql`1`)
    .execute();
  const toMap = (rows: { minute: number; n: number }[]) => new Map(rows.map((r) => [Number(r.minute), Number(r.n)]));
  return { atStart: Number(start.n), recorded: toMap(recorded), delivered: toMap(delivered) };
}

/** One integration's delivery attempts, newest first, below attempt id `beforeId` (all when null). */
export function recentAttempts(db: Q, integrationId: number, beforeId: number | null, limit: number) {
  let query = db.selectFrom('delivery_attempts').selectAll().where('integration_id', '=', integrationId).orderBy('id', 'desc').limit(limit);
  if (beforeId !== null) query = query.where('id', '<', beforeId);
  return query.execute();
}
