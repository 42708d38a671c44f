import type { Deps } from '../../deps.js';
import { FailureGate } from '../../lib/backoff.js';
import type { Claims } from '../leases/leases.claims.js';
import { dueIntegrations, hasPendingEvents } from './webhooks.sql.js';

/**
 * How often the streams another process held when this one tried are checked for a holder gone
 * (its session lock free, see leases.claims.ts): a dead holder's streams resume within this, not
 * after its lease.
 */
const TAKEOVER_PROBE_MS = 1_000;

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
 * The safety-net scan for due streams (retries, pings, events recorded by other processes): at
 * start, on a timer, and when asked; one at a time. While the database is down it backs off
 * (capped exponential) instead of failing every tick.
 */
export class ScanLoop {
  private readonly gate: FailureGate;
  private readonly scans = new Coalesced(() => this.once());
  private timer: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    intervalMs: number,
    private readonly due: (integrationId: number) => void,
  ) {
    this.gate = new FailureGate('webhook scan', deps.log);
    this.timer = setInterval(() => void this.run(), intervalMs).unref();
    setImmediate(() => void this.run());
  }

  async run(): Promise<void> {
    if (this.stopped || !this.gate.open) return;
    await this.scans.run();
  }

  setInterval(ms: number): void {
    if (this.stopped) return;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.run(), ms).unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async once(): Promise<void> {
    if (this.stopped) return;
    try {
      // Due on the latest clock there is: one due only on its brand's clock finds itself 'waiting'.
      const latest = new Date(this.deps.clock.nowMs() + this.deps.clock.maxBrandOffsetSeconds() * 1000);
      for (const id of await dueIntegrations(this.deps.db, latest)) this.due(id);
      this.gate.succeeded();
    } catch (error) {
      this.gate.failed(error);
    }
  }
}

/**
 * The streams whose claim another process held when this one tried, checked every
 * TAKEOVER_PROBE_MS in one statement: a claim its holder left (done, or gone with its session)
 * hands the stream back to `resume` when it still has events pending.
 */
export class TakeoverProbe {
  private readonly contended = new Set<number>();
  private readonly probes = new Coalesced(() => this.once());
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly deps: Deps,
    private readonly claims: Claims,
    private readonly resume: (integrationId: number) => void,
  ) {
    // a failing probe is the database being away: the scan reports that
    this.timer = setInterval(() => void this.probes.run().catch(() => {}), TAKEOVER_PROBE_MS).unref();
  }

  /** Another process held the stream's claim. */
  heldElsewhere(integrationId: number): void {
    this.contended.add(integrationId);
  }

  /** This process holds the stream's claim now. */
  claimed(integrationId: number): void {
    this.contended.delete(integrationId);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async once(): Promise<void> {
    if (this.stopped || this.contended.size === 0) return;
    for (const id of await this.claims.vacated('delivery', [...this.contended])) {
      this.contended.delete(id);
      if (!this.stopped && (await hasPendingEvents(this.deps.db, id))) this.resume(id);
    }
  }
}
