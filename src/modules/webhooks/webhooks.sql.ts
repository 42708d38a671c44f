import { sql, type Insertable, type Kysely, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DeliveryAttemptsTable, WebhookDeliveryStateTable } from './webhooks.tables.js';

type Q = Kysely<DB> | Transaction<DB>;

/** A new integration's delivery state: nothing sent, nothing pending. */
export async function insertDeliveryState(db: Q, integrationId: number): Promise<void> {
  await db.insertInto('webhook_delivery_state').values({ integration_id: integrationId }).execute();
}

/**
 * The integration's delivery configuration (read from its integrations row: status, URL,
 * subscribed kinds, timeout) and its delivery state, read at the start of every batch.
 */
export function loadDeliveryState(db: Q, integrationId: number) {
  return db
    .selectFrom('webhook_delivery_state as s')
    .innerJoin('integrations as i', 'i.id', 's.integration_id')
    .select([
      'i.id',
      'i.slug',
      'i.status',
      'i.webhook_url',
      'i.webhook_event_types',
      'i.webhook_timeout_seconds',
      's.consecutive_failures',
      's.first_failure_at',
      's.last_success_at',
      's.last_failure_at',
      's.next_attempt_at',
    ])
    .where('s.integration_id', '=', integrationId)
    .executeTakeFirst();
}
export type DeliveryState = NonNullable<Awaited<ReturnType<typeof loadDeliveryState>>>;

/** The state GET /me and the staff view report. */
export function selectDeliveryFigures(db: Q, integrationId: number) {
  return db
    .selectFrom('webhook_delivery_state')
    .select(['undelivered', 'consecutive_failures', 'last_success_at', 'last_failure_at', 'paused_at', 'paused_reason', 'next_attempt_at'])
    .where('integration_id', '=', integrationId)
    .executeTakeFirst();
}

/** The failure counters, for recording a failed attempt (locked to the transaction's end). */
export function lockFailureCounters(trx: Transaction<DB>, integrationId: number) {
  return trx
    .selectFrom('webhook_delivery_state')
    .select(['consecutive_failures', 'first_failure_at', 'last_success_at'])
    .where('integration_id', '=', integrationId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

export function updateDeliveryState(db: Q, integrationId: number, set: Updateable<WebhookDeliveryStateTable>) {
  return db.updateTable('webhook_delivery_state').set(set).where('integration_id', '=', integrationId).execute();
}

/** A failed ping: one more failure, the next ping later. */
export function countFailedPing(db: Q, integrationId: number, at: Date, nextAttemptAt: Date) {
  return db
    .updateTable('webhook_delivery_state')
    .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1), last_failure_at: at, next_attempt_at: nextAttemptAt }))
    .where('integration_id', '=', integrationId)
    .execute();
}

/** The next pending events after `afterSequence`, in order (the partial index events_pending). */
export function pendingEvents(db: Q, integrationId: number, afterSequence: number, limit: number) {
  return db
    .selectFrom('events')
    .select(['sequence', 'id', 'type', 'body', 'attempts'])
    .where('integration_id', '=', integrationId)
    .where('delivery_status', '=', 'pending')
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .limit(limit)
    .execute();
}
export type PendingEvent = Awaited<ReturnType<typeof pendingEvents>>[number];

export async function hasPendingEvents(db: Q, integrationId: number): Promise<boolean> {
  const row = await db
    .selectFrom('events')
    .select('sequence')
    .where('integration_id', '=', integrationId)
    .where('delivery_status', '=', 'pending')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Integrations with delivery work due now: an active one with pending events and no back-off in
 * the way, or a paused one whose next ping is due. Disabled integrations and those without a URL
 * have none (their events wait as pending).
 */
export async function dueIntegrations(db: Q, now: Date, limit = 5000): Promise<number[]> {
  const rows = await db
    .selectFrom('integrations as i')
    .innerJoin('webhook_delivery_state as s', 's.integration_id', 'i.id')
    .select('i.id')
    .where('i.webhook_url', 'is not', null)
    .where((eb) =>
      eb.and([
        eb.or([eb('s.next_attempt_at', 'is', null), eb('s.next_attempt_at', '<=', now)]),
        eb.or([
          eb.and([
            eb('i.status', '=', 'active'),
            eb('s.undelivered', '>', 0),
          ]),
          eb('i.status', '=', 'paused'),
        ]),
      ]),
    )
    .orderBy('i.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export type AttemptRow = Insertable<DeliveryAttemptsTable>;

/** The attempt log rows as one array per column (one bind parameter each, however many rows). */
function attemptColumns(rows: AttemptRow[]) {
  return {
    integration: rows.map((r) => r.integration_id),
    eventId: rows.map((r) => r.event_id),
    eventType: rows.map((r) => r.event_type),
    sequence: rows.map((r) => r.sequence ?? null),
    attempt: rows.map((r) => r.attempt ?? null),
    at: rows.map((r) => (r.attempted_at as Date).toISOString()),
    duration: rows.map((r) => r.duration_ms),
    status: rows.map((r) => r.status_code ?? null),
    error: rows.map((r) => r.error ?? null),
    success: rows.map((r) => r.success),
    body: rows.map((r) => r.response_body ?? null),
    worker: rows.map((r) => r.worker),
  };
}

export async function insertAttempts(db: Q, rows: AttemptRow[]): Promise<void> {
  if (rows.length === 0) return;
  const c = attemptColumns(rows);
  await sql`
    insert into delivery_attempts (integration_id, event_id, event_type, sequence, attempt, attempted_at, duration_ms, status_code, error, success, response_body, worker)
    select * from unnest(${c.integration}::int[], ${c.eventId}::text[], ${c.eventType}::text[], ${c.sequence}::bigint[], ${c.attempt}::int[],
      ${c.at}::timestamptz[], ${c.duration}::int[], ${c.status}::int[], ${c.error}::text[], ${c.success}::bool[], ${c.body}::text[], ${c.worker}::text[])
  `.execute(db);
}

export interface OutcomeWrite {
  integrationId: number;
  delivered: Array<{ sequence: number; at: Date }>;
  skipped: number[];
  attempts: AttemptRow[];
  /** Also record the last success on the integration (and reset its failure counters). */
  touchSuccessAt: Date | null;
}

/**
 * One flush of a delivery stream in a single statement (atomic on its own, one round trip):
 * delivered events marked with their delivery time, unsubscribed ones skipped, their attempts
 * logged, the events that left pending taken off `undelivered` and the cursor moved, and, when
 * asked, the integration's last success recorded. Data-modifying CTEs always run to completion,
 * read or not.
 */
export async function writeOutcomes(db: Q, w: OutcomeWrite): Promise<void> {
  const c = attemptColumns(w.attempts);
  const touch = w.touchSuccessAt !== null;
  // `sequence = any(...)` keeps this an index scan of exactly those rows (a join against unnest()
  // made the planner walk every pending event of the integration)
  const sequences = w.delivered.map((d) => d.sequence);
  const deliveredAt = w.delivered.map((d) => d.at.toISOString());
  await sql`
    with delivered as (
      update events set delivery_status = 'delivered', attempts = attempts + 1,
        delivered_at = (${deliveredAt}::timestamptz[])[array_position(${sequences}::bigint[], sequence)]
      where integration_id = ${w.integrationId} and sequence = any(${sequences}::bigint[]) and delivery_status = 'pending'
      returning sequence
    ), skipped as (
      update events set delivery_status = 'skipped'
      where integration_id = ${w.integrationId} and sequence = any(${w.skipped}::bigint[]) and delivery_status = 'pending'
      returning sequence
    ), settled as (
      select sequence from delivered union all select sequence from skipped
    ), logged as (
      insert into delivery_attempts (integration_id, event_id, event_type, sequence, attempt, attempted_at, duration_ms, status_code, error, success, response_body, worker)
      select * from unnest(${c.integration}::int[], ${c.eventId}::text[], ${c.eventType}::text[], ${c.sequence}::bigint[], ${c.attempt}::int[],
        ${c.at}::timestamptz[], ${c.duration}::int[], ${c.status}::int[], ${c.error}::text[], ${c.success}::bool[], ${c.body}::text[], ${c.worker}::text[])
      returning 1
    ), touched as (
      update webhook_delivery_state set
        undelivered = undelivered - (select count(*) from settled),
        cursor = greatest(cursor, coalesce((select max(sequence) from settled), 0)),
        last_success_at = case when ${touch}::bool then ${w.touchSuccessAt ?? new Date(0)}::timestamptz else last_success_at end,
        consecutive_failures = case when ${touch}::bool then 0 else consecutive_failures end,
        first_failure_at = case when ${touch}::bool then null else first_failure_at end,
        next_attempt_at = case when ${touch}::bool then null else next_attempt_at end
      where integration_id = ${w.integrationId}
      returning 1
    )
    select (select count(*) from delivered) as delivered, (select count(*) from logged) as logged, (select count(*) from touched) as touched, (select count(*) from skipped) as skipped
  `.execute(db);
}

/** Attempt log page for staff, oldest first after the `after` id. */
export function attemptLog(db: Q, integrationId: number, after: number, limit: number) {
  return db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

