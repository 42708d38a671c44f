import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/** A claim taken: the row `work_leases (kind, id)` carries `token` until it expires or is released. */
export interface Lease {
  /** What the claim is for, named by its owner (`delivery`: an integration's stream; `sync`: a job). */
  readonly kind: string;
  readonly id: number;
  readonly token: string;
}

/** A write of claimed work found that its lease is no longer this holder's: nothing was written. */
export class LeaseLostError extends Error {
  constructor(readonly lease: Lease) {
    super(`the ${lease.kind} claim on ${lease.id} is held by another process now`);
  }
}

/**
 * The holder name written on a lease: the process, and the key of the session advisory lock it
 * holds while alive, when it has one. Anyone who can take that lock knows the holder is gone.
 */
export function holderName(process: string, sessionKey: string | null): string {
  return sessionKey === null ? process : `${process}@lock:${sessionKey}`;
}

/** The process part of a holder name (a holder that reconnected has a new key, and is still itself). */
const holderProcess = (column: RawBuilder<unknown>) => sql`split_part(${column}, '@', 1)`;

/**
 * True when the holder written in `column` had a session lock and that lock is free now: its
 * session ended, so its process is gone. The lock is taken for the statement's transaction only,
 * so the check works through a transaction pooler; a holder without a lock yields false.
 */
const holderGone = (column: RawBuilder<unknown>) => sql`coalesce(pg_try_advisory_xact_lock(substring(${column} from '@lock:(-?[0-9]+)$')::bigint), false)`;

/**
 * Takes the lease when nobody holds it, its holder's time is up (on the database's clock), its
 * holder's session lock is free (the holder died), or the holder is this process: a lease this
 * process could not release (the database was away) is its own to take again, its old token
 * fenced out. Returns whether it was taken.
 */
export async function takeLease(db: Q, lease: Lease, holder: string, leaseMs: number): Promise<boolean> {
  const result = await sql<{ token: string }>`
    insert into work_leases as w (kind, id, holder, token, expires_at)
    values (${lease.kind}, ${lease.id}, ${holder}, ${lease.token}, clock_timestamp() + ${leaseMs} * interval '1 millisecond')
    on conflict (kind, id) do update set holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at
    where w.expires_at <= clock_timestamp()
      or ${holderProcess(sql.ref('w.holder'))} = ${holderProcess(sql.ref('excluded.holder'))}
      or ${holderGone(sql.ref('w.holder'))}
    returning w.token
  `.execute(db);
  return result.rows.length === 1;
}

/**
 * Of these claims, the ones another holder could take now: free, released, expired, or held by a
 * process whose session lock is free. One statement for all of them.
 */
export async function vacatedLeases(db: Q, kind: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const result = await sql<{ id: string | number }>`
    select h.id from unnest(${ids}::bigint[]) as h(id)
    left join work_leases w on w.kind = ${kind} and w.id = h.id
    where w.id is null or w.expires_at <= clock_timestamp() or ${holderGone(sql.ref('w.holder'))}
  `.execute(db);
  return result.rows.map((r) => Number(r.id));
}

/**
 * Extends the leases still held with these tokens and writes the holder's current name on them
 * (its session lock may have changed); returns the tokens extended.
 */
export async function renewLeases(db: Q, leases: Lease[], holder: string, leaseMs: number): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const result = await sql<{ token: string }>`
    update work_leases w set expires_at = clock_timestamp() + ${leaseMs} * interval '1 millisecond', holder = ${holder}
    from unnest(${leases.map((l) => l.kind)}::text[], ${leases.map((l) => l.id)}::bigint[], ${leases.map((l) => l.token)}::text[]) as h(kind, id, token)
    where w.kind = h.kind and w.id = h.id and w.token = h.token
    returning w.token
  `.execute(db);
  return new Set(result.rows.map((r) => r.token));
}

/**
 * Frees the lease at once (kept as an expired row: the next take is an update in place). Its
 * commit does not wait for the disk: a release lost in a crash is a lease that expires, or that
 * its holder takes again, while waiting for the flush about doubled the cost of a claim (a take
 * and a release: 3.3–5.3 ms with both flushed, 1.5–2.2 ms with the release not, on the test
 * machine's PostgreSQL).
 */
export async function releaseLease(db: Q, lease: Lease): Promise<void> {
  await sql`
    update work_leases set expires_at = '-infinity'
    from (select set_config('synchronous_commit', 'off', true)) as unflushed
    where kind = ${lease.kind} and id = ${lease.id} and token = ${lease.token}
  `.execute(db);
}

/** Frees every lease: for a start that knows no other process can hold one (the embedded engine). */
export async function releaseAllLeases(db: Q): Promise<void> {
  await sql`update work_leases set expires_at = '-infinity' where expires_at > '-infinity'`.execute(db);
}

/**
 * A query of one row while `lease` is this holder's, locking that row until the transaction ends:
 * a successor's take waits for the transaction, and a take that committed first leaves no row.
 */
export function leaseHeldQuery(lease: Lease): RawBuilder<unknown> {
  return sql`select 1 as held from work_leases where kind = ${lease.kind} and id = ${lease.id} and token = ${lease.token} for share`;
}

/** The fence of a transaction that advances claimed work: throws LeaseLostError unless the lease is still held. */
export async function holdLease(trx: Transaction<DB>, lease: Lease): Promise<void> {
  const result = await leaseHeldQuery(lease).execute(trx);
  if (result.rows.length === 0) throw new LeaseLostError(lease);
}
