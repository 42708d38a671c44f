import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { lockClockRow } from '../clock/clock.sql.js';

type Q = Kysely<DB> | Transaction<DB>;

export type StaffScope = DB['staff_tokens']['scope'];

const VIEW_COLUMNS = ['id', 'name', 'kind', 'scope', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'] as const;

/** The name of STAFF_TOKEN's row: how a start without the setting finds the token it had set. */
export const CONFIGURED_NAME = 'STAFF_TOKEN';

/** The live token with this hash: not revoked, not expired at `now`. */
export function findLiveStaffToken(db: Q, tokenHash: string, now: Date) {
  return db
    .selectFrom('staff_tokens')
    .select(['id', 'token_hash', 'scope', 'last_used_at'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

/** A page of the live tokens in id order, and how many there are. */
export async function listLiveStaffTokens(db: Q, now: Date, page: { limit: number; offset: number }) {
  const live = db
    .selectFrom('staff_tokens')
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  const [rows, count] = await Promise.all([
    live.select(VIEW_COLUMNS).orderBy('id').limit(page.limit).offset(page.offset).execute(),
    live.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function insertStaffToken(
  db: Q,
  values: { tokenHash: string; name: string; kind: 'bootstrap' | 'named'; scope: StaffScope; expiresAt: Date | null; now: Date },
) {
  return db
    .insertInto('staff_tokens')
    .values({ token_hash: values.tokenHash, name: values.name, kind: values.kind, scope: values.scope, expires_at: values.expiresAt, created_at: values.now })
    .returning(VIEW_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Records a use, unless one at or after `notBefore` is recorded already (another process's). */
export async function touchStaffToken(db: Q, id: number, now: Date, notBefore: Date): Promise<void> {
  await db
    .updateTable('staff_tokens')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}

/**
 * Serialises bootstrap and revocation across processes: the live (not revoked, not expired)
 * tokens, locked, in id order (the same order everywhere, so two of these never deadlock).
 */
export function lockLiveStaffTokens(trx: Transaction<DB>, now: Date) {
  return trx
    .selectFrom('staff_tokens')
    .select(['id', 'token_hash', 'kind', 'name', 'scope'])
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function revokeStaffTokenRow(trx: Transaction<DB>, id: number, now: Date) {
  return trx.updateTable('staff_tokens').set({ revoked_at: now }).where('id', '=', id).returning(VIEW_COLUMNS).executeTakeFirstOrThrow();
}

/** STAFF_TOKEN's row: stored once, live again (and admin, never expiring) if it had been revoked: the setting is authoritative. */
export async function upsertConfiguredStaffToken(trx: Transaction<DB>, tokenHash: string, now: Date): Promise<void> {
  await trx
    .insertInto('staff_tokens')
    .values({ token_hash: tokenHash, name: CONFIGURED_NAME, kind: 'bootstrap', scope: 'admin', created_at: now })
    .onConflict((oc) => oc.column('token_hash').doUpdateSet({ revoked_at: null, expires_at: null, kind: 'bootstrap', scope: 'admin', name: CONFIGURED_NAME }))
    .execute();
}

/** Revokes the live tokens the filter picks, all but the one with `keepHash` (if given); their ids. */
export async function revokeStaffTokensWhere(
  trx: Transaction<DB>,
  which: { kind?: 'bootstrap'; name?: string; keepHash: string | null },
  now: Date,
): Promise<number[]> {
  let query = trx.updateTable('staff_tokens').set({ revoked_at: now }).where('revoked_at', 'is', null);
  if (which.kind) query = query.where('kind', '=', which.kind);
  if (which.name !== undefined) query = query.where('name', '=', which.name);
  if (which.keepHash) query = query.where('token_hash', '<>', which.keepHash);
  const rows = await query.returning('id').execute();
  return rows.map((r) => r.id);
}

/** Serialises concurrent first starts (several workers) on the clock row, which always exists. */
export async function lockBootstrap(trx: Transaction<DB>): Promise<void> {
  await lockClockRow(trx);
}
