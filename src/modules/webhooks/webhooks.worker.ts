import type { Deps } from '../../deps.js';
import { createClaims, LeaseLostError, type Claims, type Lease } from '../leases/leases.claims.js';
import { createSender, type Sender } from './webhooks.send.js';
import { hasPendingEvents, loadDeliveryState } from './webhooks.sql.js';
import { RunControl, StreamDelivery, type RunEnd, type StreamContext } from './webhooks.stream.js';
import { targetPolicy } from './webhooks.url.js';
import { ScanLoop, TakeoverProbe } from './webhooks.wakeups.js';

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

/** One integration's turn in this process: its stream runs again while it is woken meanwhile. */
interface Run {
  /** Woken while running: look again before ending. */
  dirty: boolean;
  control: RunControl;
  /** The claim the run holds while it delivers. */
  lease: Lease | null;
  done: Promise<void>;
}

/**
 * The webhook delivery worker of one process (decisions §7).
 *
 * The scheduler decides which integration's stream to deliver next, and when; a StreamDelivery
 * delivers one stream under its claim (see leases.claims.ts), so at most one delivery is in
 * flight per integration however many processes share the database.
 *
 * It wakes on `events` (integration ids, after a commit that recorded events, see unitOfWork), on
 * `clock` (the test clock moved), on other processes' notifications (see listenForEvents), on a
 * safety-net scan (ScanLoop), and for a stream another process held, once that claim is free
 * (TakeoverProbe). Every timer it honours is read from the service clock.
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
  private stopping = false;
  private readonly scan: ScanLoop;
  private readonly probe: TakeoverProbe;
  private readonly stopLost: () => void;
  private readonly onEvents = (ids: unknown) => {
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'number') this.kickOne(id);
  };
  private readonly onClock = () => void this.scan.run();

  constructor(
    private readonly deps: Deps,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.claims = options.claims ?? createClaims(deps);
    this.concurrency = options.concurrency ?? 64;
    const sender = options.sender ?? createSender(targetPolicy(deps.config));
    this.context = { deps, claims: this.claims, sender, batchSize: options.batchSize ?? 500, stopping: () => this.stopping };
    deps.signals.on('events', this.onEvents);
    deps.signals.on('clock', this.onClock);
    this.stopLost = this.claims.onLost((lease) => {
      const run = lease.kind === 'delivery' ? this.runs.get(lease.id) : undefined;
      if (run && run.lease === lease) run.control.abort();
    });
    this.scan = new ScanLoop(deps, options.pollMs ?? 1_000, (id) => this.kickOne(id));
    this.probe = new TakeoverProbe(deps, this.claims, (id) => this.kickOne(id));
  }

  kick(ids?: number[]): void {
    if (ids) for (const id of ids) this.kickOne(id);
    else void this.scan.run();
  }

  setScanInterval(ms: number): void {
    if (!this.stopping) this.scan.setInterval(ms);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.scan.stop();
    this.probe.stop();
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
        if (end === 'busy') this.probe.heldElsewhere(id);
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
    this.probe.claimed(id);
    run.lease = lease;
    try {
      const state = await loadDeliveryState(this.deps.db, id);
      return await new StreamDelivery(this.context, run.control, lease, id, state).run();
    } finally {
      run.lease = null;
      await this.claims.release(lease);
    }
  }
}
