import os from 'node:os';
import type { Deps } from '../../deps.js';
import { FailureGate } from '../../lib/backoff.js';
import { ulid } from '../../lib/ids.js';
import { formatTimestamp } from '../../lib/time.js';
import { API_VERSION } from '../../lib/contract.js';
import { webhookSigningSecrets } from '../integrations/integrations.service.js';
import { createClaims, LeaseLostError, type Claims, type Lease } from './webhooks.claims.js';
import { OutcomeBuffer, pauseIntegration, recordAbandoned, recordEventFailure, recordPing, type Attempt } from './webhooks.outcomes.js';
import { pauseBeforeRetry } from './webhooks.policy.js';
import { createSender, type SendResult, type Sender } from './webhooks.send.js';
import { deliveryHeaders, signingKey, type SigningKey } from './webhooks.sign.js';
import { dueIntegrations, hasPendingEvents, loadDeliveryState, pendingEvents, type DeliveryState, type PendingEvent } from './webhooks.sql.js';
import { targetPolicy } from './webhooks.url.js';

/** Identifies this process in the attempt log. */
export const WORKER_NAME = `${os.hostname()}:${process.pid}`;

export interface DeliveryWorkerOptions {
  /** Shared with the sync runner in one process; created (and closed) here when not given. */
  claims?: Claims;
  sender?: Sender;
  /** The safety-net scan for due work (retries, pings, events recorded by other processes). */
  pollMs?: number;
  /** Integrations delivered at once by this process. */
  concurrency?: number;
  /** Events read per query; the next batch is read while this one is sent. */
  batchSize?: number;
}

export interface DeliveryWorker {
  /** Wakes delivery for these integrations, or scans for every due one. */
  kick(integrationIds?: number[]): void;
  /**
   * How often the safety-net scan runs from now on: slow while cross-process wake-ups arrive
   * (LISTEN up), fast while they may be lost.
   */
  setScanInterval(ms: number): void;
  stop(): Promise<void>;
}

type RunEnd = 'busy' | 'idle' | 'waiting' | 'drained' | 'stopped';

interface Run {
  /** Woken while running: look again before ending. */
  dirty: boolean;
  /** Stopped from outside (shutdown, claim lost): the attempt in flight is cut off. */
  aborted: boolean;
  /** Cuts off the request in flight, when there is one. */
  cancel: (() => void) | null;
  /** The claim the run holds while it delivers. */
  lease: Lease | null;
  done: Promise<void>;
}

function abortRun(run: Run): void {
  run.aborted = true;
  run.cancel?.();
}

/** Delivery headers signed for one event at one second. */
interface Signed {
  id: string;
  timestamp: number;
  headers: Record<string, string>;
}

interface Target {
  url: URL | null;
  urlProblem: string | null;
  keys: SigningKey[];
  types: Set<string>;
  timeoutMs: number;
  slug: string;
}

/**
 * The webhook delivery worker of one process (decisions §7).
 *
 * Per integration one run at a time, under a claim (see webhooks.claims.ts), so at most one
 * delivery is in flight per integration however many processes share the database. A run sends
 * the pending events strictly in sequence order, the next only after a 2xx, and ends when the
 * queue is empty, the integration is waiting on its retry ladder or paused (then it pings when due).
 *
 * It wakes on `events` (integration ids, after a commit that recorded events, see unitOfWork), on
 * `clock` (the test clock moved), on other processes' notifications (see listenForEvents), and on a
 * safety-net scan, so every timer it honours is read from the service clock.
 */
export function startDeliveryWorker(deps: Deps, options: DeliveryWorkerOptions = {}): DeliveryWorker {
  const claims = options.claims ?? createClaims(deps);
  const sender = options.sender ?? createSender(targetPolicy(deps.config));
  const pollMs = options.pollMs ?? 1_000;
  const concurrency = options.concurrency ?? 64;
  const batchSize = options.batchSize ?? 500;

  const runs = new Map<number, Run>();
  const waiting = new Set<number>();
  let stopping = false;

  function kickOne(id: number): void {
    if (stopping) return;
    const running = runs.get(id);
    if (running) {
      running.dirty = true;
      return;
    }
    if (runs.size >= concurrency) {
      waiting.add(id);
      return;
    }
    const run: Run = { dirty: false, aborted: false, cancel: null, lease: null, done: Promise.resolve() };
    runs.set(id, run);
    run.done = (async () => {
      try {
        do {
          run.dirty = false;
          const end = await runOnce(id, run);
          // Released after an empty read: events recorded meanwhile by a process that could not
          // take the claim (held here then) would otherwise wait for the next scan.
          if (end === 'drained' && !stopping && (await hasPendingEvents(deps.db, id))) run.dirty = true;
        } while (run.dirty && !stopping && !run.aborted);
      } catch (error) {
        if (error instanceof LeaseLostError) deps.log.warn({ integrationId: id }, 'webhook delivery stopped: another process holds its claim now');
        else deps.log.warn({ err: error, integrationId: id }, 'webhook delivery run failed');
      } finally {
        runs.delete(id);
        for (const next of waiting) {
          if (runs.size >= concurrency) break;
          waiting.delete(next);
          kickOne(next);
        }
      }
    })();
  }

  let scanning = false;
  let rescan = false;
  // While the database is down the scan backs off (capped exponential) instead of failing every second.
  const scanGate = new FailureGate('webhook scan', deps.log);
  async function scan(): Promise<void> {
    if (stopping || !scanGate.open) return;
    if (scanning) {
      rescan = true;
      return;
    }
    scanning = true;
    try {
      do {
        rescan = false;
        for (const id of await dueIntegrations(deps.db, deps.clock.now())) kickOne(id);
      } while (rescan && !stopping);
      scanGate.succeeded();
    } catch (error) {
      scanGate.failed(error);
    } finally {
      scanning = false;
    }
  }

  async function runOnce(id: number, run: Run): Promise<RunEnd> {
    // Many integrations have no URL (events accumulate for replay): one read says so, without
    // taking and releasing the claim. With a URL the state is read again under the claim.
    const peek = await loadDeliveryState(deps.db, id);
    if (!peek || peek.status === 'disabled' || !peek.webhook_url) return 'idle';
    const lease = await claims.tryClaim('delivery', id);
    if (!lease) return 'busy';
    run.lease = lease;
    try {
      return await deliver(id, run, lease);
    } finally {
      run.lease = null;
      await claims.release(lease);
    }
  }

  async function targetOf(state: DeliveryState): Promise<Target> {
    let url: URL | null = null;
    let urlProblem: string | null = null;
    try {
      url = new URL(state.webhook_url!);
    } catch {
      urlProblem = 'INVALID_URL: the webhook URL cannot be parsed';
    }
    return {
      url,
      urlProblem,
      keys: (await webhookSigningSecrets(deps, state.id)).map(signingKey),
      types: new Set(state.webhook_event_types),
      timeoutMs: state.webhook_timeout_seconds * 1000,
      slug: state.slug,
    };
  }

  /** An event's delivery headers, signed at the current second of the service clock. */
  function sign(target: Target, id: string, body: string): Signed {
    const timestamp = Math.floor(deps.clock.nowMs() / 1000);
    return { id, timestamp, headers: deliveryHeaders({ slug: target.slug, id, timestamp, body, keys: target.keys }) };
  }

  /**
   * Posts one event. `presigned` holds headers signed ahead (while the previous event was on the
   * wire); they are used when they are this event's and still of the current second.
   */
  async function send(target: Target, id: string, body: string, run: Run, presigned: Signed | null = null): Promise<SendResult> {
    let result: SendResult;
    if (!target.url) {
      result = { ok: false, status: null, error: target.urlProblem, durationMs: 0, body: null };
    } else {
      const fresh = presigned !== null && presigned.id === id && presigned.timestamp === Math.floor(deps.clock.nowMs() / 1000);
      const { headers } = fresh ? presigned : sign(target, id, body);
      result = await sender.send({ url: target.url, headers, body, timeoutMs: target.timeoutMs, cancellable: (cancel) => (run.cancel = cancel) });
    }
    deps.metrics?.deliveryAttempt(result);
    return result;
  }

  /** A paused integration's ping; a 2xx resumes it. */
  async function ping(state: DeliveryState, run: Run, lease: Lease): Promise<boolean> {
    const at = deps.clock.nowMs();
    const id = ulid(at);
    const body = JSON.stringify({
      id,
      type: 'ping',
      sequence: null,
      origin: 'doorloom',
      version: API_VERSION,
      created_at: formatTimestamp(at),
      integration: { id: state.id, slug: state.slug },
      property: null,
      window: null,
      data: {},
    });
    const result = await send(await targetOf(state), id, body, run);
    if (run.aborted) return false;
    return recordPing(deps, { integrationId: state.id, slug: state.slug }, WORKER_NAME, { eventId: id, eventType: 'ping', sequence: null, attempt: null, at, result }, lease);
  }

  async function deliver(id: number, run: Run, lease: Lease): Promise<RunEnd> {
    let state = await loadDeliveryState(deps.db, id);
    const out = new OutcomeBuffer(deps, id, WORKER_NAME, (state?.consecutive_failures ?? 0) > 0, lease);
    const live = () => !stopping && !run.aborted && claims.holds(lease);
    let cursor = 0;
    let next: Promise<[DeliveryState | undefined, PendingEvent[]]> | null = null;
    try {
      for (;;) {
        if (!live()) return 'stopped';
        if (!state || state.status === 'disabled' || !state.webhook_url) return 'idle';
        if (out.succeeded) {
          // a read taken while a flush was resetting the counters may still show them
          state = { ...state, consecutive_failures: 0, next_attempt_at: null };
        }
        const now = deps.clock.nowMs();
        if (state.next_attempt_at && state.next_attempt_at.getTime() > now) return 'waiting';
        if (state.status === 'paused') {
          if (!(await ping(state, run, lease))) return 'waiting';
          state = await loadDeliveryState(deps.db, id);
          cursor = 0;
          continue;
        }
        if (
          pauseBeforeRetry(
            {
              failures: state.consecutive_failures,
              firstFailureAt: state.first_failure_at?.getTime() ?? null,
              lastSuccessAt: state.last_success_at?.getTime() ?? null,
              lastFailureAt: state.last_failure_at?.getTime() ?? null,
            },
            now,
          )
        ) {
          await pauseIntegration(deps, { integrationId: id, slug: state.slug }, 'delivery_failures', lease);
          return 'waiting';
        }

        let batch: PendingEvent[];
        if (next) {
          const [, prefetched] = await next;
          batch = prefetched;
        } else {
          batch = await pendingEvents(deps.db, id, cursor, batchSize);
        }
        next = null;
        if (batch.length === 0) return 'drained';
        if (batch.length === batchSize) {
          // read ahead while this batch is on the wire
          const after = batch[batch.length - 1].sequence;
          next = Promise.all([loadDeliveryState(deps.db, id), pendingEvents(deps.db, id, after, batchSize)]);
          next.catch(() => {}); // awaited below, or dropped after a failure
        }

        const target = await targetOf(state);
        let failed = false;
        let presigned: Signed | null = null;
        for (let i = 0; i < batch.length; i++) {
          const event = batch[i];
          if (!live()) return 'stopped';
          if (!target.types.has(event.type)) {
            // the subscription changed after it was recorded: not delivered any more
            out.skipped(event.sequence);
            cursor = event.sequence;
            continue;
          }
          const at = deps.clock.nowMs();
          const sending = send(target, event.id, event.body, run, presigned);
          presigned = null;
          // The next event is signed while this one is on the wire (the two HMACs of a 3.7 KB body
          // were ~10 % of the stream's CPU): in the loop's check phase, once this request has been
          // written. It goes only once this one is answered 2xx; an answer that comes first leaves
          // it to be signed as it is sent.
          const following = batch[i + 1];
          const signing =
            following && target.url && target.types.has(following.type)
              ? setImmediate(() => (presigned = sign(target, following.id, following.body)))
              : null;
          const result = await sending;
          if (signing) clearImmediate(signing);
          const attempt: Attempt = { eventId: event.id, eventType: event.type, sequence: event.sequence, attempt: event.attempts + 1, at, result };
          if (run.aborted) {
            // outcome unknown: it stays pending and goes again; the attempt log says so
            await recordAbandoned(deps, { integrationId: id, slug: state.slug }, WORKER_NAME, attempt).catch(() => {});
            return 'stopped';
          }
          if (result.ok) {
            out.delivered(event.sequence, attempt);
            cursor = event.sequence;
            await out.maybeFlush();
            continue;
          }
          await out.drain();
          await recordEventFailure(deps, { integrationId: id, slug: state.slug }, WORKER_NAME, event.sequence, attempt, lease);
          out.failed();
          failed = true;
          break;
        }
        if (failed) {
          next = null;
          state = await loadDeliveryState(deps.db, id);
          cursor = 0;
          continue;
        }
        if (next) {
          const [fresh] = await next;
          state = fresh;
        } else {
          await out.maybeFlush();
          state = await loadDeliveryState(deps.db, id);
        }
      }
    } finally {
      await out.drain();
    }
  }

  const onEvents = (ids: unknown) => {
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'number') kickOne(id);
  };
  const onClock = () => void scan();
  deps.signals.on('events', onEvents);
  deps.signals.on('clock', onClock);
  const stopLost = claims.onLost((lease) => {
    const run = lease.kind === 'delivery' ? runs.get(lease.id) : undefined;
    if (run && run.lease === lease) abortRun(run);
  });
  let timer = setInterval(() => void scan(), pollMs);
  timer.unref();
  setImmediate(() => void scan());

  return {
    kick(ids) {
      if (ids) for (const id of ids) kickOne(id);
      else void scan();
    },
    setScanInterval(ms) {
      if (stopping) return;
      clearInterval(timer);
      timer = setInterval(() => void scan(), ms);
      timer.unref();
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearInterval(timer);
      deps.signals.off('events', onEvents);
      deps.signals.off('clock', onClock);
      stopLost();
      waiting.clear();
      // Let attempts in flight finish (their outcome gets recorded); cut them off after a while.
      const all = Promise.all([...runs.values()].map((r) => r.done));
      const cutoff = setTimeout(() => {
        for (const run of runs.values()) abortRun(run);
      }, 3_000);
      await all;
      clearTimeout(cutoff);
      sender.close();
      if (!options.claims) await claims.close();
    },
  };
}
