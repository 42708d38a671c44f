import type { Deps } from '../../deps.js';
import { FailureGate } from '../../lib/backoff.js';
import { createClaims, LeaseLostError, type Claims, type Lease } from '../leases/leases.claims.js';
import { createSender, type Sender } from './webhooks.send.js';
import { dueIntegrations, hasPendingEvents, loadDeliveryState } from './webhooks.sql.js';
import { RunControl, StreamDelivery, type RunEnd, type StreamContext } from './webhooks.stream.js';
import { targetPolicy } from './webhooks.url.js';

export { WORKER_NAME } from './webhooks.stream.js';

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

/**
 * How often the streams another process held when this one tried are checked for a holder gone
 * (its session lock free, see leases.claims.ts): a dead holder's streams resume within this, not
 * after its lease.
 */
const TAKEOVER_PROBE_MS = 1_000;

/** One integration's turn in this process: its stream runs again while it is woken meanwhile. */
interface Run {
  /** Woken while running: look again before ending. */
  dirty: boolean;
  control: RunControl;
  /** The claim the run holds while it delivers. */
  lease: Lease | null;
  done: Promise<void>;
}

/** Runs `task`, or once more after the run in progress when asked meanwhile. */
class Coalesced {
  private running = false;
  private again = false;
  constructor(private readonly task: () => Promise<void>) {}

  async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        await this.task();
      } while (this.again);
    } finally {
      this.running = false;
    }
  }
}

/**
 * The webhook delivery worker of one process (decisions §7): the scheduler that decides which
 * integration's stream to deliver next, and when. Each stream is delivered by a StreamDelivery
 * under a claim (see leases.claims.ts), so at most one delivery is in flight per integration
 * however many processes share the database.
 *
 * It wakes on `events` (integration ids, after a commit that recorded events, see withEvents), on
 * `clock` (the test clock moved), on other processes' notifications (see listenForEvents), and on a
 * safety-net scan, so every timer it honours is read from the service clock. A stream another
 * process held is probed every TAKEOVER_PROBE_MS until that claim is free.
 */
export function startDeliveryWorker(deps: Deps, options: DeliveryWorkerOptions = {}): DeliveryWorker {
  return new DeliveryScheduler(deps, options);
}

class DeliveryScheduler implements DeliveryWorker {
  private readonly claims: Claims;
  private readonly concurrency: number;
  private readonly context: StreamContext;
  private readonly runs = new Map<number, Run>();
  private readonly waiting = new Set<number>();
  /** Streams whose claim another process held when this one tried. */
  private readonly contended = new Set<number>();
  private stopping = false;
  // While the database is down the scan backs off (capped exponential) instead of failing every second.
  private readonly scanGate: FailureGate;
  private readonly scanner = new Coalesced(() => this.scanOnce());
  private readonly prober = new Coalesced(() => this.probeOnce());
  private scanTimer: NodeJS.Timeout;
  private readonly probeTimer: NodeJS.Timeout;
  private readonly stopLost: () => void;
  private readonly onEvents = (ids: unknown) => {
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'number') this.kickOne(id);
  };
  private readonly onClock = () => void this.scan();

  constructor(private readonly deps: Deps, private readonly options: DeliveryWorkerOptions) {
    this.claims = options.claims ?? createClaims(deps);
    this.concurrency = options.concurrency ?? 64;
    this.scanGate = new FailureGate('webhook scan', deps.log);
    this.context = {
      deps,
      claims: this.claims,
      sender: options.sender ?? createSender(targetPolicy(deps.config)),
      batchSize: options.batchSize ?? 500,
      stopping: () => this.stopping,
    };
    deps.signals.on('events', this.onEvents);
    deps.signals.on('clock', this.onClock);
    this.stopLost = this.claims.onLost((lease) => {
      const run = lease.kind === 'delivery' ? this.runs.get(lease.id) : undefined;
      if (run && run.lease === lease) run.control.abort();
    });
    this.scanTimer = setInterval(() => void this.scan(), options.pollMs ?? 1_000).unref();
    this.probeTimer = setInterval(() => void this.prober.run().catch(() => {}), TAKEOVER_PROBE_MS).unref();
    setImmediate(() => void this.scan());
  }

  kick(ids?: number[]): void {
    if (ids) for (const id of ids) this.kickOne(id);
    else void this.scan();
  }

  setScanInterval(ms: number): void {
    if (this.stopping) return;
    clearInterval(this.scanTimer);
    this.scanTimer = setInterval(() => void this.scan(), ms).unref();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearInterval(this.scanTimer);
    clearInterval(this.probeTimer);
    this.deps.signals.off('events', this.onEvents);
    this.deps.signals.off('clock', this.onClock);
    this.stopLost();
    this.waiting.clear();
    // Let attempts in flight finish (their outcome gets recorded); cut them off after a while.
    const all = Promise.all([...this.runs.values()].map((r) => r.done));
    const cutoff = setTimeout(() => {
      for (const run of this.runs.values()) run.control.abort();
    }, 3_000);
    await all;
    clearTimeout(cutoff);
    this.context.sender.close();
    if (!this.options.claims) await this.claims.close();
  }

  private kickOne(id: number): void {
    if (this.stopping) return;
    const running = this.runs.get(id);
    if (running) {
      running.dirty = true;
      return;
    }
    if (this.runs.size >= this.concurrency) {
      this.waiting.add(id);
      return;
    }
    const run: Run = { dirty: false, control: new RunControl(), lease: null, done: Promise.resolve() };
    this.runs.set(id, run);
    run.done = this.drive(id, run);
  }

  /** Runs the stream until it is not woken again, then hands its place to a waiting one. */
  private async drive(id: number, run: Run): Promise<void> {
    try {
      do {
        run.dirty = false;
        const end = await this.runOnce(id, run);
        if (end === 'busy') this.contended.add(id);
        // Released after an empty read: events recorded meanwhile by a process that could not
        // take the claim (held here then) would otherwise wait for the next scan.
        if (end === 'drained' && !this.stopping && (await hasPendingEvents(this.deps.db, id))) run.dirty = true;
      } while (run.dirty && !this.stopping && !run.control.aborted);
    } catch (error) {
      if (error instanceof LeaseLostError) this.deps.log.warn({ integrationId: id }, 'webhook delivery stopped: another process holds its claim now');
      else this.deps.log.warn({ err: error, integrationId: id }, 'webhook delivery run failed');
    } finally {
      this.runs.delete(id);
      for (const next of this.waiting) {
        if (this.runs.size >= this.concurrency) break;
        this.waiting.delete(next);
        this.kickOne(next);
      }
    }
  }

  private async runOnce(id: number, run: Run): Promise<RunEnd> {
    // Many integrations have no URL (events accumulate for replay): one read says so, without
    // taking and releasing the claim. With a URL the state is read again under the claim.
    const peek = await loadDeliveryState(this.deps.db, id);
    if (!peek || peek.status === 'disabled' || !peek.webhook_url) return 'idle';
    const lease = await this.claims.tryClaim('delivery', id);
    if (!lease) return 'busy';
    this.contended.delete(id);
    run.lease = lease;
    try {
      const state = await loadDeliveryState(this.deps.db, id);
      return await new StreamDelivery(this.context, run.control, lease, id, state).run();
    } finally {
      run.lease = null;
      await this.claims.release(lease);
    }
  }

  private async scan(): Promise<void> {
    if (this.stopping || !this.scanGate.open) return;
    await this.scanner.run();
  }

  private async scanOnce(): Promise<void> {
    if (this.stopping) return;
    try {
      for (const id of await dueIntegrations(this.deps.db, this.deps.clock.now())) this.kickOne(id);
      this.scanGate.succeeded();
    } catch (error) {
      this.scanGate.failed(error);
    }
  }

  /**
   * The contended streams whose claim another process could take now: a holder gone (or done)
   * leaves them, and those with events still pending are delivered here. Failures are the scan's
   * to report.
   */
  private async probeOnce(): Promise<void> {
    if (this.stopping || this.contended.size === 0) return;
    for (const id of await this.claims.vacated('delivery', [...this.contended])) {
      this.contended.delete(id);
      if (!this.stopping && !this.runs.has(id) && (await hasPendingEvents(this.deps.db, id))) this.kickOne(id);
    }
  }
}
