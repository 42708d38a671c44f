import { statementTemplate } from '../../db/statement-template.js';
import { sql, type Kysely, type QueryResult, type RawBuilder, type Transaction } from 'kysely';
import { allocateSequencesQuery } from '../integrations/integrations.sql.js';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The schema the connection's unqualified names resolve to (the search path's first). */
export async function currentSchema(db: Q): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0].schema;
}

/**
 * pg_notify on the events channel of the current schema (see eventsChannel), one notification per
 * integration: inside a transaction PostgreSQL sends them at commit, and drops them on rollback.
 */
export async function notifyEvents(db: Q, integrationIds: number[], tag: string): Promise<void> {
  await notifyEventsQuery(integrationIds, tag).execute(db);
}

/** notifyEvents' statement, for a caller that sends it with others: the `events` channel is a signal channel of its own. */
export function notifyEventsQuery(integrationIds: number[], tag: string): RawBuilder<unknown> {
  return notifySignalQuery('events', integrationIds, tag);
}

/**
 * pg_notify on the channel `name` of the current schema (see signalChannel; also the events
 * channel, eventsChannel), one notification per id: inside a transaction PostgreSQL sends them at
 * commit, and drops them on rollback.
 */
export function notifySignalQuery(name: string, ids: number[], tag: string): RawBuilder<unknown> {
  return sql`
    select pg_notify(left('doorloom_' || ${name}::text || '_' || current_schema(), 63), id::text || ':' || ${tag}::text)
    from unnest(${ids}::int8[]) as id
  `;
}

/** A receiving integration as appendEvents reads it. */
export interface AppendTarget {
  id: number;
  slug: string;
  webhook_event_types: string[];
  horizon_days: number;
  /** A webhook URL is set: recorded events may be sent. */
  has_webhook: boolean;
  external_id?: string | null;
}

/** One event about to be recorded: its body is head || sequence || tail. */
export interface EventRow {
  id: string;
  type: string;
  from: string | null;
  to: string | null;
  head: string;
  tail: string;
  status: 'pending' | 'skipped';
}

/**
 * One statement: the sequence bump (its row lock is held to commit, so no other writer allocates
 * in between) and the events numbered from it. Rows go as VALUES (plain parameters; text arrays
 * would need every body escaped and parsed); callers pass at most 500 to stay under the
 * bind-parameter limit. Returns the rows written (0 when the integration was disabled meanwhile).
 * The pending ones are added to the integration's `undelivered` count in the same statement.
 */
/**
 * The statement that appends one integration's events (its result goes to writtenEvents). Up to TEMPLATED_ROWS rows it is built once per number of rows
 * (db/statement-template.ts): a create writes two or three events per integration.
 */
export function insertEventsQuery(target: EventsTarget, rows: EventRow[]): RawBuilder<{ n: number }> {
  if (rows.length > TEMPLATED_ROWS) return eventsInsert(target, rows);
  // The values as a list: an object with a key per row and field took longer to make than the
  // statement it saved (20 µs against 7 for three rows).
  const values: unknown[] = [target.integrationId, target.origin, target.propertyId, target.createdAt];
  for (const r of rows) values.push(r.id, r.type, r.from, r.to, r.head, r.tail, r.status);
  return eventsStatement(String(rows.length), values);
}

type EventsTarget = { integrationId: number; origin: 'partner' | 'doorloom'; propertyId: number | null; createdAt: Date };
const TEMPLATED_ROWS = 16;
const eventsStatement = statementTemplate((v: unknown[], rowCount: string) =>
  eventsInsert(
    { integrationId: v[0], origin: v[1], propertyId: v[2], createdAt: v[3] } as EventsTarget,
    Array.from({ length: Number(rowCount) }, (_, i) => {
      const at = 4 + 7 * i;
      return { id: v[at], type: v[at + 1], from: v[at + 2], to: v[at + 3], head: v[at + 4], tail: v[at + 5], status: v[at + 6] } as EventRow;
    }),
  ),
);

/** insertEventsQuery built afresh (also what it keeps built per number of rows; exported for its test). */
export function eventsInsert(target: EventsTarget, rows: EventRow[]): RawBuilder<{ n: number }> {
  const values = sql.join(
    rows.map(
      (r, n) =>
        sql`(${sql.lit(n + 1)}::int, ${r.id}::text, ${r.type}::text, ${r.from}::date, ${r.to}::date, ${r.head}::text, ${r.tail}::text, ${r.status}::text)`,
    ),
  );
  return sql<{ n: number }>`
    with allocated as (
      ${allocateSequencesQuery(target.integrationId, rows.length)}
    ), added as (
      insert into events (integration_id, sequence, id, type, origin, property_id, window_from, window_to, body, created_at, delivery_status)
      select ${target.integrationId}::int, a.base + r.n, r.id, r.type, ${target.origin}::text, ${target.propertyId}::int, r.window_from, r.window_to,
             r.head || (a.base + r.n)::text || r.tail, ${target.createdAt}::timestamptz, r.status
      from allocated a, (values ${values}) as r(n, id, type, window_from, window_to, head, tail, status)
      returning delivery_status
    ), counted as (
      -- the webhooks module's count of pending events, kept in this transaction (GET /me reads it)
      update webhook_delivery_state set undelivered = undelivered + (select count(*) from added where delivery_status = 'pending')
      where integration_id = ${target.integrationId} and exists (select 1 from added where delivery_status = 'pending')
      returning 1
    )
    select count(*)::int as n from added
  `;
}

/** The rows insertEventsQuery wrote (0 when the integration was disabled meanwhile). */
export const writtenEvents = (result: QueryResult<unknown>): number => (result.rows[0] as { n: number } | undefined)?.n ?? 0;

/** Below this estimate the log is counted exactly (a count of that many rows takes a few ms). */
const EXACT_COUNT_BELOW = 100_000;

/**
 * Events retained in the log (every integration): the planner's estimate (`reltuples`, kept by
 * vacuum and analyze) where the log is large, so a scrape never counts millions of rows; an exact
 * count where it is small or was never analysed.
 */
export async function retainedEventCount(db: Q): Promise<number> {
  const { rows } = await sql<{ n: number }>`select reltuples::float8 as n from pg_class where oid = 'events'::regclass`.execute(db);
  const estimate = Number(rows[0]?.n ?? -1);
  if (estimate >= EXACT_COUNT_BELOW) return Math.round(estimate);
  const exact = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(exact.n);
}

/**
 * The event log as other modules read it, a derived table to select from (PostgreSQL flattens it
 * into the reader's statement). Rows are written once, by the append, and deleted by retention.
 */
export function eventLog(db: Q) {
  return db
    .selectFrom('events')
    .select(['integration_id', 'sequence', 'id', 'type', 'origin', 'property_id', 'window_from', 'window_to', 'body', 'created_at', 'delivery_status']);
}
