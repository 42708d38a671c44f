import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DeliveryAttemptsTable } from './webhooks.tables.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The integration's delivery configuration and counters, read at the start of every batch. */
export function loadDeliveryState(db: Q, integrationId: number) {
  return db
    .selectFrom('integrations')
    .select([
      'id',
      'slug',
      'status',
      'webhook_url',
      'webhook_event_types',
      'webhook_timeout_seconds',
      'webhook_secret_enc',
      'webhook_secret_prev_enc',
      'webhook_secret_prev_expires_at',
      'consecutive_failures',
      'first_failure_at',
      'last_success_at',
      'last_failure_at',
      'next_attempt_at',
    ])
    .where('id', '=', integrationId)
    .executeTakeFirst();
}
export type DeliveryState = NonNullable<Awaited<ReturnType<typeof loadDeliveryState>>>;

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
    .select('i.id')
    .where('i.webhook_url', 'is not', null)
    .where((eb) =>
      eb.and([
        eb.or([eb('i.next_attempt_at', 'is', null), eb('i.next_attempt_at', '<=', now)]),
        eb.or([
          eb.and([
            eb('i.status', '=', 'active'),
            eb.exists(
              eb
                .selectFrom('events as e')
                .select('e.sequence')
                .whereRef('e.integration_id', '=', 'i.id')
                .where('e.delivery_status', '=', 'pending'),
            ),
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
 * logged, and, when asked, the integration's last success recorded. Data-modifying CTEs always run
 * to completion, read or not.
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
      returning 1
    ), skipped as (
      update events set delivery_status = 'skipped'
      where integration_id = ${w.integrationId} and sequence = any(${w.skipped}::bigint[]) and delivery_status = 'pending'
      returning 1
    ), logged as (
      insert into delivery_attempts (integration_id, event_id, event_type, sequence, attempt, attempted_at, duration_ms, status_code, error, success, response_body, worker)
      select * from unnest(${c.integration}::int[], ${c.eventId}::text[], ${c.eventType}::text[], ${c.sequence}::bigint[], ${c.attempt}::int[],
        ${c.at}::timestamptz[], ${c.duration}::int[], ${c.status}::int[], ${c.error}::text[], ${c.success}::bool[], ${c.body}::text[], ${c.worker}::text[])
      returning 1
    ), touched as (
      update integrations set last_success_at = ${w.touchSuccessAt ?? new Date(0)}, consecutive_failures = 0, first_failure_at = null, next_attempt_at = null
      where id = ${w.integrationId} and ${touch}::bool
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
