import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Deps } from '../../deps.js';
import { releaseAllLeases, releaseLease, renewLeases, takeLease, type ClaimKind, type Lease } from './webhooks.leases.sql.js';

export { LeaseLostError, holdLease, type ClaimKind, type Lease } from './webhooks.leases.sql.js';

/**
 * Exclusive claims on background work, so that however many processes share the database, one
 * integration never has two deliveries in flight and one sync job has one runner.
 *
 * A claim is a lease row (`work_leases`) with an expiry on the database's clock, taken only when
 * free or expired, renewed while the work runs and released at its end. A holder killed with -9
 * stops renewing, so a successor takes over once the lease runs out; no session is involved, so
 * it works the same through a transaction pooler and on the embedded database.
 *
 * A holder stops on its own when its lease may have run out: `holds` is false past the time the
 * lease was last renewed for (measured on this process's monotonic clock from before the renewal
 * was sent, so never later than the database's expiry), and `onLost` listeners cut off the work in
 * flight. A holder that was paused (GC, SIGSTOP) may not notice before its next write, so every
 * write that advances the work checks the lease in its own transaction (holdLease): a paused
 * holder's write after a successor's take finds no row and writes nothing.
 */
export interface Claims {
  tryClaim(kind: ClaimKind, id: number): Promise<Lease | null>;
  release(lease: Lease): Promise<void>;
  /** False once the lease was released, lost, or may have expired. */
  holds(lease: Lease): boolean;
  onLost(listener: (lease: Lease) => void): () => void;
  close(): Promise<void>;
}

interface Held {
  lease: Lease;
  /** performance.now() past which the lease may have expired. */
  deadline: number;
  expiry: NodeJS.Timeout | null;
}

const keyOf = (kind: ClaimKind, id: number) => `${kind}:${id}`;

export function createClaims(
  deps: Pick<Deps, 'db' | 'log' | 'config'>,
  /** `soleProcess`: no other process can share the database (the embedded engine), so leases left by a previous run are freed at once. */
  options: { soleProcess?: boolean } = {},
): Claims {
  const { workLeaseMs: leaseMs, workLeaseRenewMs: renewMs } = deps.config;
  const ready = options.soleProcess
    ? releaseAllLeases(deps.db).catch((error) => deps.log.warn({ err: error }, 'could not free the claims of a previous run; they expire on their own'))
    : Promise.resolve();
  const holder = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  /** Leases held, and keys being taken (null) so this process never asks twice at once. */
  const held = new Map<string, Held | null>();
  const listeners = new Set<(lease: Lease) => void>();
  let closed = false;

  const lose = (entry: Held, why: string) => {
    const key = keyOf(entry.lease.kind, entry.lease.id);
    if (held.get(key) !== entry) return;
    held.delete(key);
    if (entry.expiry) clearTimeout(entry.expiry);
    deps.log.warn({ kind: entry.lease.kind, id: entry.lease.id }, `claim lost (${why}); its work stops`);
    for (const listener of listeners) listener(entry.lease);
  };

  const extend = (entry: Held, from: number) => {
    entry.deadline = from + leaseMs;
    if (entry.expiry) clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => lose(entry, 'not renewed in time'), Math.max(0, entry.deadline - performance.now()));
    entry.expiry.unref();
  };

  let renewing = false;
  const renew = async () => {
    if (renewing || closed) return;
    const entries = [...held.values()].filter((e): e is Held => e !== null);
    if (entries.length === 0) return;
    renewing = true;
    const sentAt = performance.now();
    try {
      const kept = await renewLeases(deps.db, entries.map((e) => e.lease), leaseMs);
      for (const entry of entries) {
        if (kept.has(entry.lease.token)) {
          if (held.get(keyOf(entry.lease.kind, entry.lease.id)) === entry) extend(entry, sentAt);
        } else lose(entry, 'taken over');
      }
    } catch (error) {
      // the expiry timers stop the work if no renewal gets through in time
      deps.log.warn({ err: error }, 'could not renew claims');
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref();

  return {
    async tryClaim(kind, id) {
      const key = keyOf(kind, id);
      if (closed || held.has(key)) return null;
      held.set(key, null);
      const lease: Lease = { kind, id, token: randomBytes(12).toString('hex') };
      await ready;
      const sentAt = performance.now();
      try {
        if (await takeLease(deps.db, lease, holder, leaseMs)) {
          if (held.get(key) === null && !closed) {
            const entry: Held = { lease, deadline: 0, expiry: null };
            held.set(key, entry);
            extend(entry, sentAt);
            return lease;
          }
          await releaseLease(deps.db, lease);
        }
      } catch (error) {
        deps.log.warn({ err: error, kind, id }, 'could not take a claim');
      }
      if (held.get(key) === null) held.delete(key);
      return null;
    },

    async release(lease) {
      const key = keyOf(lease.kind, lease.id);
      const entry = held.get(key);
      if (!entry || entry.lease.token !== lease.token) return;
      held.delete(key);
      if (entry.expiry) clearTimeout(entry.expiry);
      try {
        await releaseLease(deps.db, lease);
      } catch (error) {
        // it expires on its own
        deps.log.warn({ err: error, kind: lease.kind, id: lease.id }, 'could not release a claim');
      }
    },

    holds(lease) {
      const entry = held.get(keyOf(lease.kind, lease.id));
      return !!entry && entry.lease.token === lease.token && performance.now() < entry.deadline;
    },

    onLost(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      closed = true;
      clearInterval(timer);
      const entries = [...held.values()].filter((e): e is Held => e !== null);
      held.clear();
      for (const entry of entries) if (entry.expiry) clearTimeout(entry.expiry);
      await Promise.all(entries.map((e) => releaseLease(deps.db, e.lease).catch(() => {})));
    },
  };
}
