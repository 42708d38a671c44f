import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Deps } from '../../deps.js';
import { holderName, releaseAllLeases, releaseLease, renewLeases, takeLease, vacatedLeases, type Lease } from './leases.sql.js';

export { LeaseLostError, holdLease, leaseHeldQuery, type Lease } from './leases.sql.js';

/**
 * Exclusive claims on background work, so that however many processes share the database, one
 * integration never has two deliveries in flight and one sync job has one runner. A kind is any
 * string its owner chooses (`delivery`, `sync`).
 *
 * A claim is a lease row (`work_leases`) with an expiry on the database's clock, taken only when
 * free or expired, renewed while the work runs and released at its end. It works the same through
 * a transaction pooler and on the embedded database.
 *
 * A process that has a session connection (its LISTEN connection) holds a session advisory lock
 * there on a random key and writes that key into the holder name of its leases (`sessionLock`).
 * A process killed with -9 loses its session, and so the lock, at once: a taker that finds an
 * unexpired lease tries the lock, and getting it proves the holder gone, so the claim passes
 * without waiting out the lease. When this process's own session ends while it lives (the
 * database restarted, the network failed) the leases naming its key are dropped here at once and
 * their work stops, since a taker may now take them; they are taken again under the next key.
 *
 * A holder stops on its own when its lease may have run out: `holds` is false past the time the
 * lease was last renewed for (measured on this process's monotonic clock from before the renewal
 * was sent, so never later than the database's expiry), and `onLost` listeners cut off the work in
 * flight. A holder that was paused (GC, SIGSTOP) keeps its session, so nobody takes its leases
 * before they expire, and it may not notice before its next write, so every write that advances
 * the work checks the lease in its own transaction (holdLease): a paused holder's write after a
 * successor's take finds no row and writes nothing.
 */
export interface Claims {
  tryClaim(kind: string, id: number): Promise<Lease | null>;
  release(lease: Lease): Promise<void>;
  /** False once the lease was released, lost, or may have expired. */
  holds(lease: Lease): boolean;
  onLost(listener: (lease: Lease) => void): () => void;
  /** Of these claims, the ones another holder could take now (free, expired, or their holder gone). */
  vacated(kind: string, ids: number[]): Promise<number[]>;
  /** This process's session lock: held under `key` from now on, or gone (null). */
  sessionLock(key: string | null): void;
  close(): Promise<void>;
}

interface Held {
  lease: Lease;
  /** The holder name last sent for this lease (it names the session lock the row may carry). */
  holder: string;
  /** performance.now() past which the lease may have expired. */
  deadline: number;
  expiry: NodeJS.Timeout | null;
}

type ClaimDeps = Pick<Deps, 'db' | 'log' | 'config'>;

const keyOf = (kind: string, id: number) => `${kind}:${id}`;

/** `soleProcess`: no other process can share the database (the embedded engine), so leases left by a previous run are freed at once. */
export function createClaims(deps: ClaimDeps, options: { soleProcess?: boolean } = {}): Claims {
  return new LeaseClaims(deps, options.soleProcess ?? false);
}

class LeaseClaims implements Claims {
  private readonly process = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private holder = this.process;
  /** Leases held, and keys being taken (null) so this process never asks twice at once. */
  private readonly held = new Map<string, Held | null>();
  private readonly listeners = new Set<(lease: Lease) => void>();
  private readonly ready: Promise<void>;
  private readonly timer: NodeJS.Timeout;
  private readonly leaseMs: number;
  private renewing = false;
  private renewAgain = false;
  private closed = false;

  constructor(
    private readonly deps: ClaimDeps,
    soleProcess: boolean,
  ) {
    this.leaseMs = deps.config.workLeaseMs;
    this.ready = soleProcess
      ? releaseAllLeases(deps.db).catch((error) => deps.log.warn({ err: error }, 'could not free the claims of a previous run; they expire on their own'))
      : Promise.resolve();
    this.timer = setInterval(() => void this.renew(), deps.config.workLeaseRenewMs);
    this.timer.unref();
  }

  async tryClaim(kind: string, id: number): Promise<Lease | null> {
    const key = keyOf(kind, id);
    if (this.closed || this.held.has(key)) return null;
    this.held.set(key, null);
    const lease: Lease = { kind, id, token: randomBytes(12).toString('hex') };
    await this.ready;
    const holder = this.holder;
    const sentAt = performance.now();
    try {
      if (await takeLease(this.deps.db, lease, holder, this.leaseMs)) {
        // a session lock lost meanwhile leaves a row any taker may take: not this holder's to use
        const stillNamed = holder === this.holder || holder === this.process;
        if (this.held.get(key) === null && !this.closed && stillNamed) {
          const entry: Held = { lease, holder, deadline: 0, expiry: null };
          this.held.set(key, entry);
          this.extend(entry, sentAt);
          return lease;
        }
        await releaseLease(this.deps.db, lease);
      }
    } catch (error) {
      this.deps.log.warn({ err: error, kind, id }, 'could not take a claim');
    }
    if (this.held.get(key) === null) this.held.delete(key);
    return null;
  }

  async release(lease: Lease): Promise<void> {
    const key = keyOf(lease.kind, lease.id);
    const entry = this.held.get(key);
    if (!entry || entry.lease.token !== lease.token) return;
    this.held.delete(key);
    if (entry.expiry) clearTimeout(entry.expiry);
    try {
      await releaseLease(this.deps.db, lease);
    } catch (error) {
      // it expires on its own
      this.deps.log.warn({ err: error, kind: lease.kind, id: lease.id }, 'could not release a claim');
    }
  }

  holds(lease: Lease): boolean {
    const entry = this.held.get(keyOf(lease.kind, lease.id));
    return !!entry && entry.lease.token === lease.token && performance.now() < entry.deadline;
  }

  onLost(listener: (lease: Lease) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  vacated(kind: string, ids: number[]): Promise<number[]> {
    return vacatedLeases(this.deps.db, kind, ids);
  }

  sessionLock(key: string | null): void {
    const before = this.holder;
    this.holder = holderName(this.process, key);
    if (before === this.holder) return;
    // rows naming the old key may be taken by anyone now that its session is gone
    if (before !== this.process) for (const entry of this.entries()) if (entry.holder === before) this.lose(entry, 'its session ended');
    // the leases held name the new key at once, not at the next renewal
    if (key !== null) void this.renew();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const entries = this.entries();
    this.held.clear();
    for (const entry of entries) if (entry.expiry) clearTimeout(entry.expiry);
    await Promise.all(entries.map((e) => releaseLease(this.deps.db, e.lease).catch(() => {})));
  }

  private entries(): Held[] {
    return [...this.held.values()].filter((e): e is Held => e !== null);
  }

  private lose(entry: Held, why: string): void {
    const key = keyOf(entry.lease.kind, entry.lease.id);
    if (this.held.get(key) !== entry) return;
    this.held.delete(key);
    if (entry.expiry) clearTimeout(entry.expiry);
    this.deps.log.warn({ kind: entry.lease.kind, id: entry.lease.id }, `claim lost (${why}); its work stops`);
    for (const listener of this.listeners) listener(entry.lease);
  }

  private extend(entry: Held, from: number): void {
    entry.deadline = from + this.leaseMs;
    if (entry.expiry) clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => this.lose(entry, 'not renewed in time'), Math.max(0, entry.deadline - performance.now()));
    entry.expiry.unref();
  }

  private async renew(): Promise<void> {
    if (this.closed) return;
    if (this.renewing) {
      this.renewAgain = true;
      return;
    }
    const entries = this.entries();
    if (entries.length === 0) return;
    this.renewing = true;
    const holder = this.holder;
    // named before it is sent: a session lost while the renewal is on its way drops these too
    for (const entry of entries) entry.holder = holder;
    const sentAt = performance.now();
    try {
      const kept = await renewLeases(
        this.deps.db,
        entries.map((e) => e.lease),
        holder,
        this.leaseMs,
      );
      for (const entry of entries) {
        if (!kept.has(entry.lease.token)) this.lose(entry, 'taken over');
        else if (this.held.get(keyOf(entry.lease.kind, entry.lease.id)) === entry) this.extend(entry, sentAt);
      }
    } catch (error) {
      // the expiry timers stop the work if no renewal gets through in time
      this.deps.log.warn({ err: error }, 'could not renew claims');
    } finally {
      this.renewing = false;
    }
    if (this.renewAgain) {
      this.renewAgain = false;
      void this.renew();
    }
  }
}
