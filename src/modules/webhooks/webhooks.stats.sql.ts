import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

export interface Backlog {
  /** Events recorded, subscribed and not yet delivered. */
  undelivered: number;
  /** When the oldest of them was recorded; null with none. */
  oldestAt: Date | null;
}

/**
 * The delivery backlog of some integrations (all of them when `ids` is null): the one place that
 * counts undelivered events, for the staff listing, the console and /metrics alike. Integrations
 * without a backlog are absent from the map.
 *
 * Sequences follow recording order, so the oldest pending event is the lowest pending sequence;
 * both figures come off the `events_pending` partial index.
 */
export async function backlogByIntegration(db: Q, ids: readonly number[] | null): Promise<Map<number, Backlog>> {
  const out = new Map<number, Backlog>();
  if (ids !== null && ids.length === 0) return out;
  let query = db
    .selectFrom('events')
    .select((eb) => ['integration_id', eb.fn.countAll<number>().as('n'), eb.fn.min<Date>('created_at').as('oldest')])
    .where('delivery_status', '=', 'pending')
    .groupBy('integration_id');
  if (ids !== null) query = query.where('integration_id', 'in', ids);
  for (const row of await query.execute()) {
    out.set(row.integration_id, { undelivered: Number(row.n), oldestAt: row.oldest ? new Date(row.oldest) : null });
  }
  return out;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'skipped';

/** A page of one integration's events with their delivery state, in sequence order (no bodies). */
export async function eventDeliveryPage(db: Q, integrationId: number, options: { afterSequence: number; limit: number; status: DeliveryStatus | null }) {
  let query = db
    .selectFrom('events')
    .select(['sequence', 'id', 'type', 'origin', 'property_id', 'window_from', 'window_to', 'created_at', 'delivery_status', 'attempts', 'delivered_at'])
    .where('integration_id', '=', integrationId)
    .where('sequence', '>', options.afterSequence)
    .orderBy('sequence')
    .limit(options.limit + 1);
  if (options.status) query = query.where('delivery_status', '=', options.status);
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

/**
 * What the backlog curve is built from, read off the event log itself: the backlog at `from`
 * (events recorded before it and not delivered by then), and per minute of [from, to) the events
 * recorded and the events delivered. Skipped events never count (they were never to be sent).
 */
export async function backlogMovements(db: Q, integrationId: number, from: Date, to: Date) {
  const start = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('integration_id', '=', integrationId)
    .where('created_at', '<', from)
    .where((eb) => eb.or([eb('delivery_status', '=', 'pending'), eb.and([eb('delivery_status', '=', 'delivered'), eb('delivered_at', '>=', from)])]))
    .executeTakeFirstOrThrow();
  const recorded = await db
    .selectFrom('events')
    .select((eb) => [minuteOf('created_at').as('minute'), eb.fn.countAll<number>().as('n')])
    .where('integration_id', '=', integrationId)
    .where('delivery_status', '!=', 'skipped')
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy(sql`1`)
    .execute();
  const delivered = await db
    .selectFrom('events')
    .select((eb) => [minuteOf('delivered_at').as('minute'), eb.fn.countAll<number>().as('n')])
    .where('integration_id', '=', integrationId)
    .where('delivery_status', '=', 'delivered')
    .where('delivered_at', '>=', from)
    .where('delivered_at', '<', to)
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
