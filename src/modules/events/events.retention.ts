import { sql } from 'kysely';
import type { DailyJob } from '../jobs/jobs.types.js';
import type { Deps } from '../../deps.js';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotency.js';
import { pendingCondition } from '../webhooks/webhooks.sql.js';

export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Rows per delete statement, so a large backlog never holds long locks (and, on the embedded engine,
 * other queries run between the chunks).
 */
const CHUNK = 10_000;

/**
 * Deletes what the contract keeps for a limited time: events and delivery attempts after 30 days,
 * idempotency records after their 24 hours, finished sync jobs after 30 days.
 *
 * Events go as a prefix per integration: everything up to the newest sequence recorded before the
 * cutoff. Sequences are allocated in commit order but `created_at` is read just before, so two
 * events a millisecond apart may straddle the cutoff in the other order; deleting by sequence keeps
 * the retained log gap-free, which is what GET /events' CURSOR_EXPIRED rule relies on. Undelivered
 * events age out too: a partner away for 30 days rebuilds from snapshots.
 */
export async function runRetention(deps: Deps, chunk = CHUNK) {
  const now = deps.clock.nowMs();
  const cutoff = new Date(now - RETENTION_DAYS * DAY_MS);
  const events = await deleteExpiredEvents(deps, cutoff, chunk);
  if (events > 0) deps.state.changes.wrote(['events', 'webhook_delivery_state']);
  const attempts = await deleteExpiredAttempts(deps, cutoff, chunk);

  const idempotencyKeys = await purgeExpiredIdempotencyKeys(deps.db, now);

  const syncJobs = await deps.db
    .deleteFrom('sync_jobs')
    .where('finished_at', 'is not', null)
    .where('created_at', '<', cutoff)
    .executeTakeFirst();

  return { events, delivery_attempts: attempts, idempotency_keys: idempotencyKeys, sync_jobs: Number(syncJobs.numDeletedRows ?? 0) };
}

export const retentionJob: DailyJob = { name: 'retention', run: (deps) => runRetention(deps) };

/**
 * Each integration's expired prefix, in chunks bounded on both sides of the primary key: `sequence
 * between lo and hi`, lo being the oldest sequence still stored. The chunks used to delete
 * `sequence <= hi` with no lower bound, so each one walked the index entries its predecessors had
 * left dead: 1M expired events of one integration took 43–46 s, against 0.84 s for 100k. Bounded,
 * each chunk reads only its own range: 4.9 s for 1M, 0.32 s for 100k (bench BENCH_ONLY=growth).
 *
 * Within a chunk only the rows up to its last expired sequence go, so what remains is still a
 * suffix of the log, whatever order two events a millisecond apart got their `created_at` in; when
 * a chunk holds unexpired events the integration is done (an expired straggler beyond goes on a
 * later day).
 */
async function deleteExpiredEvents(deps: Deps, cutoff: Date, chunk: number): Promise<number> {
  // each integration's oldest stored event, one index read each, where that one has expired
  const { rows: expired } = await sql<{ id: number; oldest: number }>`
    select i.id, o.sequence as oldest from integrations i
    cross join lateral (
      select sequence, created_at from events where integration_id = i.id order by sequence limit 1
    ) o
    where o.created_at < ${cutoff}
    order by i.id
  `.execute(deps.db);
  let deleted = 0;
  for (const { id, oldest } of expired) {
    // still to deliver: pending above the delivery cursor (those below it were delivered)
    const undelivered = pendingCondition('gone', id);
    for (let lo = Number(oldest); ; lo += chunk) {
      const hi = lo + chunk - 1;
      const result = await sql<{ deleted: number; last: number | null; kept: boolean }>`
        with upto as (
          select max(sequence) as s from events
          where integration_id = ${id} and sequence between ${lo} and ${hi} and created_at < ${cutoff}
        ), gone as (
          delete from events
          where integration_id = ${id} and sequence between ${lo} and (select s from upto)
          returning sequence, delivery_status
        ), counted as (
          -- pending events leave the webhooks module's undelivered count in the same statement
          update webhook_delivery_state set undelivered = undelivered - (select count(*) from gone where ${undelivered})
          where integration_id = ${id} and exists (select 1 from gone where ${undelivered})
          returning 1
        )
        select count(*)::int as deleted, (select s from upto) as last,
          exists (
            select 1 from events
            where integration_id = ${id} and sequence between ${lo} and ${hi} and sequence > coalesce((select s from upto), ${lo} - 1)
          ) as kept
        from gone
      `.execute(deps.db);
      const row = result.rows[0];
      deleted += Number(row.deleted);
      // done at a chunk with nothing expired, one that keeps events, or the end of the log
      if (row.last === null || row.kept || Number(row.last) < hi) break;
    }
  }
  return deleted;
}

/**
 * Attempts older than the cutoff, in id ranges of CHUNK bounded on both sides (the same reason as
 * for events). Ids follow `attempted_at` closely but not exactly (several workers): the last range
 * ends at the id of the newest expired attempt, and each range deletes only what has expired.
 */
async function deleteExpiredAttempts(deps: Deps, cutoff: Date, chunk: number): Promise<number> {
  const first = await deps.db.selectFrom('delivery_attempts').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!first) return 0;
  const last = await deps.db
    .selectFrom('delivery_attempts')
    .select('id')
    .where('attempted_at', '<', cutoff)
    .orderBy('attempted_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return 0;
  let deleted = 0;
  for (let lo = Number(first.id); lo <= Number(last.id); lo += chunk) {
    const result = await deps.db
      .deleteFrom('delivery_attempts')
      .where('id', '>=', lo)
      .where('id', '<=', Math.min(lo + chunk - 1, Number(last.id)))
      .where('attempted_at', '<', cutoff)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows ?? 0);
  }
  return deleted;
}
