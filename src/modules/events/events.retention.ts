import { sql } from 'kysely';
import type { DailyJob } from '../../background.js';
import type { Deps } from '../../deps.js';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotency.js';
import { deleteEventsThrough } from './events.sql.js';
import { deleteAttemptsBefore } from '../webhooks/webhooks.sql.js';

export const RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows per delete statement, so a large backlog never holds long locks. */
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
export async function runRetention(deps: Deps) {
  const now = deps.clock.nowMs();
  const cutoff = new Date(now - RETENTION_DAYS * DAY_MS);

  const ranges = await deps.db
    .selectFrom('events')
    .select((eb) => ['integration_id', eb.fn.min<number>('sequence').as('lo'), eb.fn.max<number>('sequence').as('hi')])
    .where('created_at', '<', cutoff)
    .groupBy('integration_id')
    .execute();
  let events = 0;
  for (const range of ranges) {
    for (let lo = Number(range.lo); lo <= Number(range.hi); lo += CHUNK) {
      const hi = Math.min(Number(range.hi), lo + CHUNK - 1);
      // everything at or below hi, so events below lo left by an earlier, interrupted run go too
      events += await deleteEventsThrough(deps.db, range.integration_id, hi);
    }
  }

  let attempts = 0;
  for (;;) {
    const n = await deleteAttemptsBefore(deps.db, cutoff, CHUNK);
    attempts += n;
    if (n < CHUNK) break;
  }

  const idempotencyKeys = await purgeExpiredIdempotencyKeys(deps.db, now);

  const syncJobs = await deps.db
    .deleteFrom('sync_jobs')
    .where('finished_at', 'is not', null)
    .where('created_at', '<', cutoff)
    .executeTakeFirst();

  return { events, delivery_attempts: attempts, idempotency_keys: idempotencyKeys, sync_jobs: Number(syncJobs.numDeletedRows ?? 0) };
}

export const retentionJob: DailyJob = { name: 'retention', run: runRetention };
