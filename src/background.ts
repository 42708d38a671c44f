import { startMaintenance } from './db/maintenance.js';
import { listen, listenUrl, subscriptions, type Listener, type Subscription } from './db/listener.js';
import type { Deps } from './deps.js';
import { authSubscription } from './modules/integrations/integrations.auth.js';
import { FailureGate } from './lib/backoff.js';
import { INPUTS_SIGNAL } from './modules/properties/properties.lock.js';
import { loadClockOffset } from './modules/clock/clock.sql.js';
import { reloadBrandClocks } from './modules/integrations/integrations.service.js';
import { listenForEvents, listenForSignals } from './modules/events/events.unit.js';
import { startSyncRunner } from './modules/sync/sync.runner.js';
import { VIEW_SHARED_MS } from './modules/accounts/accounts.service.js';
import { dailyJobs, runDailyJobOnce } from './modules/jobs/jobs.daily.js';
import { createClaims, type Claims } from './modules/leases/leases.claims.js';
import { startDeliveryWorker, type DeliveryWorker } from './modules/webhooks/webhooks.worker.js';
import { createAlertNotifier } from './modules/alerts/alerts.notify.js';

/** What a process runs beside its HTTP server; `stop` ends all of it. */
export interface ProcessWork {
  /** `listen`: other processes' changes arrive as notifications; `poll`: they are found by polling; `single`: the embedded engine, no other process. */
  readonly hearing: 'listen' | 'poll' | 'single';
  stop(): Promise<void>;
}

/** The delivery scan while wake-ups reach the worker (every process's writes), and while they may not. */
const SCAN_SAFETY_NET_MS = 5_000;
const SCAN_UNHEARD_MS = 1_000;
/** How often ALERT_WEBHOOK_URL's alerts are evaluated: a start or an end is told within this (plus the receiver's answer). */
const ALERT_CHECK_MS = 5_000;

/**
 * The one start of a process's own work: its one LISTEN connection, carrying every subscription
 * (revoked keys, other processes' calendar writes and, with background work, their events to
 * deliver), and with `background` the background loops. Without a LISTEN connection (a
 * transaction pooler and no DATABASE_DIRECT_URL) the loops poll and the caches rely on their
 * age bounds, which one log line states.
 */
export async function startProcess(deps: Deps, options: { background: boolean }): Promise<ProcessWork> {
  const url = listenUrl(deps.config);
  const hearing = deps.engine !== 'postgres' ? 'single' : url ? 'listen' : 'poll';
  if (hearing === 'poll') {
    deps.log.warn(
      { wakeUpDelayMs: SCAN_UNHEARD_MS, apiKeyCacheMs: 0, integrationViewMs: VIEW_SHARED_MS },
      `DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: no LISTEN; other processes' events wait up to ${SCAN_UNHEARD_MS} ms for delivery (polling), ` +
        `API keys are read from the database on every request, GET /me shows other processes' writes within ${VIEW_SHARED_MS} ms, ` +
        `and availability snapshots other processes changed are rebuilt by the next read (set DATABASE_DIRECT_URL to hear changes at once)`,
    );
  }

  const subs: Subscription[] = [];
  if (hearing === 'listen') {
    subs.push(authSubscription(deps));
    subs.push(
      await listenForSignals(deps, [INPUTS_SIGNAL]).catch((error) => {
        deps.log.warn({ err: error }, 'calendar notifications not heard: reads rebuild what other processes changed');
        return { channels: [], onMessage() {} };
      }),
    );
  }
  const loops = options.background ? startBackground(deps, hearing === 'single' ? SCAN_SAFETY_NET_MS : SCAN_UNHEARD_MS, hearing === 'single') : null;
  if (loops && hearing === 'listen') {
    const { delivery } = loops;
    subs.push(
      await listenForEvents(
        deps,
        (ids) => delivery.kick(ids),
        (state) => {
          delivery.setScanInterval(state === 'up' ? SCAN_SAFETY_NET_MS : SCAN_UNHEARD_MS);
          if (state === 'up') delivery.kick(); // whatever was notified while no one listened
        },
      ),
    );
  }
  // The LISTEN connection also holds the session lock that lets other processes take this one's
  // claims at once when it dies (see leases.claims.ts).
  const onSessionLock = loops ? (key: string | null) => loops.claims.sessionLock(key) : undefined;
  const listener: Listener | null =
    url && hearing === 'listen' ? listen({ url, applicationName: 'doorloom-listen', log: deps.log, onSessionLock, ...subscriptions(subs) }) : null;

  return {
    hearing,
    async stop() {
      // the listener last: requests still draining keep hearing of revoked keys meanwhile
      await loops?.stop();
      await listener?.stop();
      // nothing tells this process of a revoked key any more: nothing is cached from now on
      if (listener) deps.state.authCache.unheard = true;
    },
  };
}

interface Loops {
  delivery: DeliveryWorker;
  claims: Claims;
  stop(): Promise<void>;
}

/**
 * The background loops of this process. Each loop reads the service clock and claims its work in
 * the database, so several processes can run them side by side.
 */
function startBackground(deps: Deps, scanMs: number, soleProcess: boolean): Loops {
  const timers: NodeJS.Timeout[] = [];
  // A failing task (the database is down) is retried with capped exponential backoff, not every tick.
  const every = (ms: number, task: () => Promise<unknown>, what: string) => {
    let running = false;
    const gate = new FailureGate(what, deps.log);
    const tick = () => {
      if (running || !gate.open) return;
      running = true;
      task()
        .then(
          () => gate.succeeded(),
          (error) => gate.failed(error),
        )
        .finally(() => (running = false));
    };
    timers.push(setInterval(tick, ms).unref());
    return tick;
  };

  if (deps.config.testClock) {
    // Another process may have moved the shared test clock.
    every(
      500,
      async () => {
        const offset = await loadClockOffset(deps.db);
        if (offset !== deps.clock.offsetSeconds()) {
          deps.clock.setOffsetSeconds(offset);
          deps.signals.emit('clock');
        }
      },
      'test clock refresh',
    );
  }

  // Another process may have moved a sandbox brand's clock.
  every(
    1_000,
    async () => {
      if (await reloadBrandClocks(deps)) deps.signals.emit('clock');
    },
    'brand clock refresh',
  );

  const runJobs = every(
    30_000,
    async () => {
      for (const job of dailyJobs) await runDailyJobOnce(deps, job);
    },
    'daily jobs',
  );
  deps.signals.on('clock', runJobs);
  setImmediate(runJobs);

  // Webhook delivery, sync jobs and alert notices share one set of claims (leases renewed together, see
  // leases.claims.ts). Writes of this process wake its worker directly (unitOfWork); other
  // processes' writes arrive as notifications when the process listens, else by the scan.
  const claims = createClaims(deps, { soleProcess });
  const delivery = startDeliveryWorker(deps, { claims, pollMs: scanMs });
  const sync = startSyncRunner(deps, { claims });
  // the embedded engine's vacuum and checkpoints (src/db/maintenance.ts); nothing on PostgreSQL
  const maintenance = startMaintenance(deps);
  // ALERT_WEBHOOK_URL: alerts are evaluated every few seconds and after a move of the test clock
  const alerts = deps.config.alertWebhookUrl ? createAlertNotifier(deps, claims) : null;
  const notifyAlerts = alerts ? every(ALERT_CHECK_MS, () => alerts.tick(), 'alert notices') : null;
  if (notifyAlerts) deps.signals.on('clock', notifyAlerts);

  return {
    delivery,
    claims,
    async stop() {
      for (const t of timers) clearInterval(t);
      deps.signals.off('clock', runJobs);
      if (notifyAlerts) deps.signals.off('clock', notifyAlerts);
      await Promise.all([delivery.stop(), sync.stop(), maintenance.stop()]);
      await alerts?.close();
      await claims.close();
    },
  };
}
