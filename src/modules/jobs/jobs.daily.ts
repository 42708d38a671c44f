import type { Deps } from '../../deps.js';
import { kolkataDate } from '../../lib/time.js';
import { horizonRollJob } from '../calendar/calendar.horizon.js';
import { retentionJob } from '../events/events.retention.js';
import { inactiveSweep } from '../properties/properties.jobs.js';
import { claimJobRun, finishJobRun } from './jobs.sql.js';
import type { DailyJob } from './jobs.types.js';

export type { DailyJob } from './jobs.types.js';

/**
 * The daily jobs: each module exports its DailyJob and it is listed here. The staff route
 * `POST /jobs/{name}/run` runs one now.
 */
export const dailyJobs: DailyJob[] = [horizonRollJob, inactiveSweep, retentionJob];

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
