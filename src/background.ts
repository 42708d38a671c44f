import { startMaintenance } from './db/maintenance.js';
import type { Deps } from './deps.js';
import { FailureGate } from './lib/backoff.js';
import { kolkataDate } from './lib/time.js';
import { loadClockOffset } from './modules/clock/clock.sql.js';
import { inactiveSweep } from './modules/properties/properties.jobs.js';
import { horizonRollJob } from './modules/calendar/calendar.horizon.js';
import { retentionJob } from './modules/events/events.retention.js';
import { startSyncRunner } from './modules/events/events.sync.js';
import { claimJobRun, finishJobRun } from './modules/jobs/jobs.sql.js';
import { listenForEvents } from './modules/events/events.unit.js';
import { createClaims } from './modules/webhooks/webhooks.claims.js';
import { startDeliveryWorker } from './modules/webhooks/webhooks.worker.js';

export interface Background {
  stop(): Promise<void>;
}

/** The delivery scan while wake-ups reach the worker (every process's writes), and while they may not. */
const SCAN_SAFETY_NET_MS = 5_000;
const SCAN_UNHEARD_MS = 1_000;

/** A job that runs once per Asia/Kolkata day (service clock), and on demand through the staff API. */
export interface DailyJob {
  name: string;
  run(deps: Deps): Promise<unknown>;
}

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

/**
 * Starts the background loops of this process. Each loop reads the service clock and claims its
 * work in the database, so several processes can run them side by side.
 */
export function startBackground(deps: Deps): Background {
  const timers: NodeJS.Timeout[] = [];
  // A failing task (the database is down) is retried with capped exponential backoff, not every tick.
  const every = (ms: number, task: () => Promise<unknown>, what: string) => {
    let running = false;
    const gate = new FailureGate(what, deps.log);
    const tick = () => {
      if (running || !gate.open) return;
      running = true;
      task()
        .then(() => gate.succeeded(), (error) => gate.failed(error))
        .finally(() => (running = false));
    };
    timers.push(setInterval(tick, ms).unref());
    return tick;
  };

  if (deps.config.testClock) {
    // Another process may have moved the shared test clock.
    every(500, async () => {
      const offset = await loadClockOffset(deps.db);
      if (offset !== deps.clock.offsetSeconds()) {
        deps.clock.setOffsetSeconds(offset);
        deps.signals.emit('clock');
      }
    }, 'test clock refresh');
  }

  const runJobs = every(30_000, async () => {
    for (const job of dailyJobs) await runDailyJobOnce(deps, job);
  }, 'daily jobs');
  deps.signals.on('clock', runJobs);
  setImmediate(runJobs);

  // Webhook delivery and sync jobs share one set of claims (leases renewed together, see webhooks.claims.ts).
  // Writes of this process wake its worker directly (withEvents); on PostgreSQL, writes of other
  // processes arrive as notifications. The scan is then a slow safety net (retries and pings fall
  // due on it too), and runs every second while notifications may be lost (the LISTEN connection
  // down or not yet up).
  const claims = createClaims(deps);
  const postgres = deps.engine === 'postgres' && deps.config.databaseUrl !== null;
  const delivery = startDeliveryWorker(deps, { claims, pollMs: postgres ? SCAN_UNHEARD_MS : SCAN_SAFETY_NET_MS });
  const sync = startSyncRunner(deps, { claims });
  const listener = postgres
    ? listenForEvents(deps, deps.config.databaseUrl!, (ids) => delivery.kick(ids), (state) => {
        delivery.setScanInterval(state === 'up' ? SCAN_SAFETY_NET_MS : SCAN_UNHEARD_MS);
        if (state === 'up') delivery.kick(); // whatever was notified while no one listened
      })
    : null;
  // the embedded engine's vacuum and checkpoints (src/db/maintenance.ts); nothing on PostgreSQL
  const maintenance = startMaintenance(deps);

  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      deps.signals.off('clock', runJobs);
      await listener?.stop();
      await Promise.all([delivery.stop(), sync.stop(), maintenance.stop()]);
      await claims.close();
    },
  };
}
