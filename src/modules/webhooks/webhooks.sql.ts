import { sql, type Insertable, type Kysely, type RawBuilder, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { DeliveryAttemptsTable, WebhookDeliveryStateTable } from './webhooks.tables.js';
import { deliveryConfigSource } from '../integrations/integrations.sql.js';
import { leaseHeldQuery, LeaseLostError, type Lease } from '../leases/leases.sql.js';
import { eventLog } from '../events/events.sql.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

type Q = Kysely<DB> | Transaction<DB>;

export type DeliveryStatus = 'pending' | 'delivered' | 'skipped';

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
    .innerJoin(deliveryConfigSource(db).as('i'), 'i.id', 's.integration_id')
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

/** The failure counters, for recording a failed attempt (locked to the transaction's end). */
export function lockFailureCounters(trx: Transaction<DB>, integrationId: number) {
  return trx
    .selectFrom('webhook_delivery_state')
    .select(['consecutive_failures', 'first_failure_at', 'last_success_at'])
    .where('integration_id', '=', integrationId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** Sent ahead in the caller's unit of work (nothing reads its answer). */
export function updateDeliveryState(uow: UnitOfWork, integrationId: number, set: Updateable<WebhookDeliveryStateTable>): void {
  uow.send(uow.updateTable('webhook_delivery_state').set(set).where('integration_id', '=', integrationId));
  uow.touched('webhook_delivery_state');
}

/** A failed ping: one more failure, the next ping later. */
export function countFailedPing(uow: UnitOfWork, integrationId: number, at: Date, nextAttemptAt: Date): void {
  uow.send(
    uow
      .updateTable('webhook_delivery_state')
      .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', 1), last_failure_at: at, next_attempt_at: nextAttemptAt }))
      .where('integration_id', '=', integrationId),
  );
  uow.touched('webhook_delivery_state');
}

/**
 * The integration's in-order cursor, as a subquery: every event at or below it has left pending,
 * delivered unless it was skipped.
 */
export function deliveryCursorQuery(integrationId: number): RawBuilder<number> {
  return sql<number>`(select cursor from webhook_delivery_state where integration_id = ${integrationId})`;
}

/** Whether the event under the alias `table` (one integration's) has a mark meeting `condition` (on `m`). */
function marked(table: string, integrationId: number, condition: RawBuilder<boolean>): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from delivery_marks m where m.integration_id = ${integrationId} and m.sequence = ${sql.ref(`${table}.sequence`)} and ${condition})`;
}

/** Events skipped: when recorded (their kind unsubscribed), or when their turn came. */
export function skippedCondition(table: string, integrationId: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.delivery_status`)} = 'skipped' or ${marked(table, integrationId, sql`m.skipped`)})`;
}

/** Events delivered: left pending at or below the cursor, and not skipped on the way. */
export function deliveredByCursor(table: string, integrationId: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.delivery_status`)} = 'pending' and ${sql.ref(`${table}.sequence`)} <= ${deliveryCursorQuery(integrationId)}
    and not ${marked(table, integrationId, sql`m.skipped`)})`;
}

/**
 * An event's delivery as the contract shows it (`status`, `attempts`, `delivered_at`), as three
 * columns of a query over the event log under the alias `table`, for one integration's events.
 * The attempts are its failures (its mark's) plus the one that succeeded, whose time (start +
 * duration) is when it was delivered.
 */
export function eventDeliveryColumns(table: string, integrationId: number) {
  const sequence = sql.ref(`${table}.sequence`);
  const delivered = deliveredByCursor(table, integrationId);
  const failures = sql<number>`coalesce((select m.failures from delivery_marks m where m.integration_id = ${integrationId} and m.sequence = ${sequence}), 0)`;
  return {
    status: sql<DeliveryStatus>`case when ${delivered} then 'delivered' when ${skippedCondition(table, integrationId)} then 'skipped' else 'pending' end`.as(
      'delivery_status',
    ),
    attempts: sql<number>`${failures} + case when ${delivered} then 1 else 0 end`.as('attempts'),
    deliveredAt: sql<Date | null>`case when ${delivered} then (
        select a.attempted_at + a.duration_ms * interval '1 millisecond' from delivery_attempts a
        where a.integration_id = ${integrationId} and a.sequence = ${sequence} and a.success order by a.id desc limit 1
      ) end`.as('delivered_at'),
  };
}

/** Events still to deliver, as a condition on the event log under the alias `table` (one integration's). */
export function pendingCondition(table: string, integrationId: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${table}.delivery_status`)} = 'pending' and ${sql.ref(`${table}.sequence`)} > ${deliveryCursorQuery(integrationId)})`;
}

/**
 * The update, run as a CTE in the statement that deletes an integration's expired events (`gone`,
 * with sequence and delivery_status), that takes the pending ones out of its undelivered count.
 */
export function forgetDeletedEvents(gone: string, integrationId: number): RawBuilder<unknown> {
  // still to deliver: pending above the delivery cursor (those below it were delivered)
  const undelivered = pendingCondition(gone, integrationId);
  return sql`
    update webhook_delivery_state set undelivered = undelivered - (select count(*) from ${sql.table(gone)} where ${undelivered})
    where integration_id = ${integrationId} and exists (select 1 from ${sql.table(gone)} where ${undelivered})
    returning 1
  `;
}

/**
 * Each integration's delivery state as other modules may show it, as a derived table to join on
 * `integration_id` (PostgreSQL flattens it into a plain join: /me stays one round trip).
 */
export function deliveryStateSource(db: Q) {
  return db
    .selectFrom('webhook_delivery_state')
    .select([
      'integration_id',
      'undelivered',
      'cursor',
      'consecutive_failures',
      'last_success_at',
      'last_failure_at',
      'paused_at',
      'paused_reason',
      'next_attempt_at',
    ]);
}

/** The delivery state of each of the integrations, by integration id (the staff listing). */
export async function selectDeliveryStates(db: Q, integrationIds: number[]) {
  if (integrationIds.length === 0) return new Map<number, never>();
  const rows = await deliveryStateSource(db).where('integration_id', 'in', integrationIds).execute();
  return new Map(rows.map((r) => [r.integration_id, r]));
}

/** The delivery state of every integration whose delivery is paused (the alerts and /metrics). */
export function selectPausedStates(db: Q) {
  return deliveryStateSource(db).where('paused_at', 'is not', null).orderBy('integration_id').execute();
}

/** One integration's events still to deliver, each with its failed attempts so far (`attempts`), in sequence order. */
function pendingQueue(db: Q, integrationId: number) {
  return (
    db
      .selectFrom(eventLog(db).as('e'))
      .leftJoin('delivery_marks as m', (join) => join.onRef('m.integration_id', '=', 'e.integration_id').onRef('m.sequence', '=', 'e.sequence'))
      .where('e.integration_id', '=', integrationId)
      .where('e.delivery_status', '=', 'pending')
      // at or below the delivery cursor every event has left pending
      .where('e.sequence', '>', deliveryCursorQuery(integrationId))
      .orderBy('e.sequence')
  );
}

const failuresSoFar = sql<number>`coalesce(m.failures, 0)`.as('attempts');

/** The head of the delivery queue: the first pending event above the cursor, and its failed attempts. */
export function pendingHead(db: Q, integrationId: number, cursor: number) {
  return pendingQueue(db, integrationId).select(['e.sequence', failuresSoFar]).where('e.sequence', '>', cursor).limit(1).executeTakeFirst();
}

/** The next pending events after `afterSequence`, in order: a range of the primary key from the cursor. */
export function pendingEvents(db: Q, integrationId: number, afterSequence: number, limit: number) {
  return pendingQueue(db, integrationId)
    .select(['e.sequence', 'e.id', 'e.type', 'e.body', failuresSoFar])
    .where('e.sequence', '>', afterSequence)
    .limit(limit)
    .execute();
}
export type PendingEvent = Awaited<ReturnType<typeof pendingEvents>>[number];

export async function hasPendingEvents(db: Q, integrationId: number): Promise<boolean> {
  return (await pendingQueue(db, integrationId).select('e.sequence').limit(1).executeTakeFirst()) !== undefined;
}

/** Counts a failed attempt of the event `sequence` on its mark; returns its failures so far. */
export async function countEventFailure(trx: Q, integrationId: number, sequence: number): Promise<number> {
  const row = await trx
    .insertInto('delivery_marks')
    .values({ integration_id: integrationId, sequence, failures: 1 })
    .onConflict((oc) => oc.columns(['integration_id', 'sequence']).doUpdateSet((eb) => ({ failures: eb('delivery_marks.failures', '+', 1) })))
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/**
 * Integrations with delivery work due now: an active one with pending events and no back-off in
 * the way, or a paused one whose next ping is due. Disabled integrations and those without a URL
 * have none (their events wait as pending).
 */
export async function dueIntegrations(db: Q, now: Date, limit = 5000): Promise<number[]> {
  const rows = await db
    .selectFrom(deliveryConfigSource(db).as('i'))
    .innerJoin('webhook_delivery_state as s', 's.integration_id', 'i.id')
    .select('i.id')
    .where('i.webhook_url', 'is not', null)
    .where((eb) =>
      eb.and([
        eb.or([eb('s.next_attempt_at', 'is', null), eb('s.next_attempt_at', '<=', now)]),
        eb.or([eb.and([eb('i.status', '=', 'active'), eb('s.undelivered', '>', 0)]), eb('i.status', '=', 'paused')]),
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
    at: rows.map((r) => r.attempted_at.toISOString()),
    duration: rows.map((r) => r.duration_ms),
    status: rows.map((r) => r.status_code ?? null),
    error: rows.map((r) => r.error ?? null),
    success: rows.map((r) => r.success),
    body: rows.map((r) => r.response_body ?? null),
    private: rows.map((r) => r.private_answer ?? false),
    worker: rows.map((r) => r.worker),
  };
}

/** The statement that logs attempts, to run alone or to send in a unit of work. */
export function insertAttemptsQuery(rows: AttemptRow[]): RawBuilder<unknown> {
  const c = attemptColumns(rows);
  return sql`
    insert into delivery_attempts (integration_id, event_id, event_type, sequence, attempt, attempted_at, duration_ms, status_code, error, success, response_body, private_answer, worker)
    select * from unnest(${c.integration}::int[], ${c.eventId}::text[], ${c.eventType}::text[], ${c.sequence}::bigint[], ${c.attempt}::int[],
      ${c.at}::timestamptz[], ${c.duration}::int[], ${c.status}::int[], ${c.error}::text[], ${c.success}::bool[], ${c.body}::text[], ${c.private}::bool[], ${c.worker}::text[])
  `;
}

export interface OutcomeWrite {
  integrationId: number;
  /** Sequences answered 2xx, in order; each one's attempt is among `attempts`. */
  delivered: number[];
  skipped: number[];
  attempts: AttemptRow[];
  /** Also record the last success on the integration (and reset its failure counters). */
  touchSuccessAt: Date | null;
  /** The delivery claim the stream runs under: nothing is written unless it is still held. */
  lease?: Lease | null;
}

/**
 * One flush of a delivery stream in a single statement (atomic on its own, one round trip): the
 * attempts logged, events found unsubscribed marked skipped, the events that left pending taken
 * off `undelivered` and the cursor moved past them, and, when asked, the integration's last
 * success recorded. Only events still there and pending above the cursor count, so an event that
 * retention removed while it was on its way is not taken off `undelivered` twice. Data-modifying
 * CTEs always run to completion, read or not. With a lease, every part is conditioned on the lease
 * row still carrying its token (locked for the statement), and a lost lease writes nothing and
 * throws LeaseLostError.
 *
 * A delivered event gets no row written: the cursor says it was delivered. Writing one per event
 * cost 2,618–2,634 B of WAL per delivered event against 473–478 B without, in the delivery bench
 * (one stream of 4,100 events).
 */
export async function writeOutcomes(db: Q, w: OutcomeWrite): Promise<void> {
  const c = attemptColumns(w.attempts);
  const touch = w.touchSuccessAt !== null;
  const cursor = deliveryCursorQuery(w.integrationId);
  // `sequence = any(...)` keeps these index scans of exactly those rows (a join against unnest()
  // made the planner walk every pending event of the integration)
  const result = await sql<{ held: string | number }>`
    with lease as (
      ${w.lease ? leaseHeldQuery(w.lease) : sql`select 1 as held`}
    ), delivered as (
      select e.sequence from ${eventLog(db)} as e
      where e.integration_id = ${w.integrationId} and e.sequence = any(${w.delivered}::bigint[]) and e.delivery_status = 'pending' and e.sequence > ${cursor}
        and exists (select 1 from lease)
    ), skipped as (
      insert into delivery_marks (integration_id, sequence, skipped)
      select e.integration_id, e.sequence, true from ${eventLog(db)} as e
      where e.integration_id = ${w.integrationId} and e.sequence = any(${w.skipped}::bigint[]) and e.delivery_status = 'pending' and e.sequence > ${cursor}
        and exists (select 1 from lease)
      on conflict (integration_id, sequence) do update set skipped = true
      returning sequence
    ), settled as (
      select sequence from delivered union all select sequence from skipped
    ), logged as (
      insert into delivery_attempts (integration_id, event_id, event_type, sequence, attempt, attempted_at, duration_ms, status_code, error, success, response_body, private_answer, worker)
      select * from unnest(${c.integration}::int[], ${c.eventId}::text[], ${c.eventType}::text[], ${c.sequence}::bigint[], ${c.attempt}::int[],
        ${c.at}::timestamptz[], ${c.duration}::int[], ${c.status}::int[], ${c.error}::text[], ${c.success}::bool[], ${c.body}::text[], ${c.private}::bool[], ${c.worker}::text[])
      where exists (select 1 from lease)
      returning 1
    ), touched as (
      update webhook_delivery_state set
        undelivered = undelivered - (select count(*) from settled),
        cursor = greatest(cursor, coalesce((select max(sequence) from settled), 0)),
        last_success_at = case when ${touch}::bool then ${w.touchSuccessAt ?? new Date(0)}::timestamptz else last_success_at end,
        consecutive_failures = case when ${touch}::bool then 0 else consecutive_failures end,
        first_failure_at = case when ${touch}::bool then null else first_failure_at end,
        next_attempt_at = case when ${touch}::bool then null else next_attempt_at end
      where integration_id = ${w.integrationId} and exists (select 1 from lease)
      returning 1
    )
    select (select count(*) from lease) as held, (select count(*) from settled) as settled, (select count(*) from logged) as logged, (select count(*) from touched) as touched
  `.execute(db);
  if (w.lease && Number(result.rows[0]?.held ?? 0) === 0) throw new LeaseLostError(w.lease);
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

/** The partner's view of the attempt log: attempts of its events (pings left out), newest first, before the attempt id `before`. */
export function eventAttemptsNewestFirst(db: Q, integrationId: number, before: number | null, limit: number) {
  let query = db
    .selectFrom('delivery_attempts')
    .select([
      'id',
      'event_id',
      'event_type',
      'sequence',
      'attempt',
      'attempted_at',
      'duration_ms',
      'status_code',
      'error',
      'success',
      'response_body',
      'private_answer',
    ])
    .where('integration_id', '=', integrationId)
    .where('sequence', 'is not', null)
    .orderBy('id', 'desc')
    .limit(limit);
  if (before !== null) query = query.where('id', '<', before);
  return query.execute();
}

/**
 * The attempt whose retry the delivery state has scheduled, with that time: events go strictly in
 * order, so it is the newest event attempt, when it failed on an event still pending.
 */
export async function scheduledRetry(db: Q, integrationId: number): Promise<{ attemptId: number; at: Date | null } | null> {
  const [newest, state] = await Promise.all([
    db
      .selectFrom('delivery_attempts')
      .select(['id', 'sequence', 'success'])
      .where('integration_id', '=', integrationId)
      .where('sequence', 'is not', null)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    db.selectFrom('webhook_delivery_state').select(['cursor', 'next_attempt_at']).where('integration_id', '=', integrationId).executeTakeFirst(),
  ]);
  if (!newest || !state || newest.success || newest.sequence === null || newest.sequence <= state.cursor) return null;
  return { attemptId: newest.id, at: state.next_attempt_at };
}
