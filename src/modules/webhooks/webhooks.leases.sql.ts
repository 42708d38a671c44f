import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/** What a claim is for: an integration's delivery stream, one sync job, or the alert notices (id 0). */
export type ClaimKind = 'delivery' | 'sync' | 'alerts';

/** A claim taken: the row `work_leases (kind, id)` carries `token` until it expires or is released. */
export interface Lease {
  readonly kind: ClaimKind;
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
 * Takes the lease when nobody holds it, its holder's time is up (on the database's clock), or the
 * holder is this one: a lease this holder could not release (the database was away) is its own
 * to take again, its old token fenced out. Returns whether it was taken.
 */
export async function takeLease(db: Q, lease: Lease, holder: string, leaseMs: number): Promise<boolean> {
  const result = await sql<{ token: string }>`
    insert into work_leases as w (kind, id, holder, token, expires_at)
    values (${lease.kind}, ${lease.id}, ${holder}, ${lease.token}, clock_timestamp() + ${leaseMs} * interval '1 millisecond')
    on conflict (kind, id) do update set holder = excluded.holder, token = excluded.token, expires_at = excluded.expires_at
    where w.expires_at <= clock_timestamp() or w.holder = excluded.holder
    returning w.token
  `.execute(db);
  return result.rows.length === 1;
}

/** Extends the leases still held with these tokens; returns the tokens extended. */
export async function renewLeases(db: Q, leases: Lease[], leaseMs: number): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const result = await sql<{ token: string }>`
    update work_leases w set expires_at = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
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
