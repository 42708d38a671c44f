import { dataClock } from '../../lib/clock.js';
import type { Deps } from '../../deps.js';
import { purgeExpiredIdempotencyKeys } from '../../http/idempotency.js';
import { purgeStaleStaffVerifications } from '../../http/staff-lockout.js';
import { kolkataDate } from '../../lib/time.js';
import { rollHorizon } from '../calendar/calendar.horizon.js';
import { deleteExpiredEvents, RETENTION_CHUNK, RETENTION_DAYS } from '../events/events.retention.js';
import { allIntegrationIds } from '../integrations/integrations.sql.js';
import { runInactiveSweep } from '../properties/properties.jobs.js';
import { deleteExpiredSyncJobs } from '../sync/sync.service.js';
import { deleteExpiredAttempts, deleteExpiredMarks } from '../webhooks/webhooks.retention.js';
import { forgetDeletedEvents } from '../webhooks/webhooks.sql.js';
import { claimJobRun, finishJobRun } from './jobs.sql.js';
import type { DailyJob } from './jobs.types.js';

export type { DailyJob } from './jobs.types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the integrations' events older than 30 days on each one's brand clock (a sandbox
 * brand's own): one pass per distinct cutoff.
 */
export async function expireEvents(deps: Deps, integrationIds: number[], chunk = RETENTION_CHUNK): Promise<number> {
  const byOffset = new Map<number, number[]>();
  for (const id of integrationIds) {
    const ahead = dataClock(deps.clock, 'eventRetention', { integrationId: id }).offsetSeconds() - deps.clock.offsetSeconds();
    byOffset.set(ahead, [...(byOffset.get(ahead) ?? []), id]);
  }
  const now = deps.clock.nowMs();
  let events = 0;
  for (const [ahead, ids] of byOffset) {
    events += await deleteExpiredEvents(deps, new Date(now + ahead * 1000 - RETENTION_DAYS * DAY_MS), ids, forgetDeletedEvents, chunk);
  }
  if (events > 0) deps.state.changes.wrote(['events', 'webhook_delivery_state']);
  return events;
}

/**
 * Deletes what the contract keeps for a limited time, each module its own rows: events, delivery
 * attempts and finished sync jobs after 30 days, idempotency records after their 24 hours.
 */
export async function runRetention(deps: Deps, chunk = RETENTION_CHUNK) {
  const now = deps.clock.nowMs();
  const cutoff = new Date(now - RETENTION_DAYS * DAY_MS);
  const events = await expireEvents(deps, await allIntegrationIds(deps.db), chunk);
  const attempts = await deleteExpiredAttempts(deps, cutoff, chunk);
  const marks = await deleteExpiredMarks(deps, cutoff);
  const idempotencyKeys = await purgeExpiredIdempotencyKeys(deps.db, now);
  await purgeStaleStaffVerifications(deps.db, now);
  const syncJobs = await deleteExpiredSyncJobs(deps, cutoff);
  return { events, delivery_attempts: attempts, delivery_marks: marks, idempotency_keys: idempotencyKeys, sync_jobs: syncJobs };
}

/**
 * The daily jobs: each module exports the function and it is named here. The staff route
 * `POST /jobs/{name}/run` runs one now.
 */
export const dailyJobs: DailyJob[] = [
  { name: 'horizon-roll', run: rollHorizon },
  { name: 'inactive-sweep', run: runInactiveSweep },
  { name: 'retention', run: (deps) => runRetention(deps) },
];

/**
 * Claims today's run of a job (one process wins, however many share the database) and runs it.
 * Returns false when today's run was already claimed.
 */
export async function runDailyJobOnce(deps: Deps, job: DailyJob): Promise<boolean> {
  const day = kolkataDate(deps.clock.now());
  if (!(await claimJobRun(deps.db, job.name, day, deps.clock.now()))) return false;
  await job.run(deps);
  await finishJobRun(deps.db, job.name, day, deps.clock.now());
  return true;
}
