import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

const VIEW_COLUMNS = ['id', 'name', 'kind', 'created_at', 'last_used_at', 'revoked_at'] as const;

/** The live (not revoked) token with this hash. */
export function findLiveStaffToken(db: Q, tokenHash: string) {
  return db
    .selectFrom('staff_tokens')
    .select(['id', 'token_hash', 'last_used_at'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function listLiveStaffTokens(db: Q) {
  return db.selectFrom('staff_tokens').select(VIEW_COLUMNS).where('revoked_at', 'is', null).orderBy('id').execute();
}

export function insertStaffToken(db: Q, values: { tokenHash: string; name: string; kind: 'bootstrap' | 'named'; now: Date }) {
  return db
    .insertInto('staff_tokens')
    .values({ token_hash: values.tokenHash, name: values.name, kind: values.kind, created_at: values.now })
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
 * Serialises bootstrap and revocation across processes: the live tokens, locked, in id order
 * (the same order everywhere, so two of these never deadlock).
 */
export function lockLiveStaffTokens(trx: Transaction<DB>) {
  return trx.selectFrom('staff_tokens').select(['id', 'token_hash', 'kind']).where('revoked_at', 'is', null).orderBy('id').forUpdate().execute();
}

export function revokeStaffTokenRow(trx: Transaction<DB>, id: number, now: Date) {
  return trx.updateTable('staff_tokens').set({ revoked_at: now }).where('id', '=', id).returning(VIEW_COLUMNS).executeTakeFirstOrThrow();
}

/** STAFF_TOKEN's row: stored once, live again if it had been revoked (the setting is authoritative). */
export async function upsertConfiguredStaffToken(trx: Transaction<DB>, tokenHash: string, now: Date): Promise<void> {
  await trx
    .insertInto('staff_tokens')
    .values({ token_hash: tokenHash, name: 'STAFF_TOKEN', kind: 'bootstrap', created_at: now })
    .onConflict((oc) => oc.column('token_hash').doUpdateSet({ revoked_at: null, kind: 'bootstrap' }))
    .execute();
}

/** Revokes every live bootstrap token but the given one; how many. */
export async function revokeOtherBootstrapTokens(trx: Transaction<DB>, keepHash: string, now: Date): Promise<number> {
  const result = await trx
    .updateTable('staff_tokens')
    .set({ revoked_at: now })
    .where('kind', '=', 'bootstrap')
    .where('revoked_at', 'is', null)
    .where('token_hash', '<>', keepHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Serialises concurrent first starts (several workers) on the clock row, which always exists. */
export async function lockBootstrap(trx: Transaction<DB>): Promise<void> {
  await sql`select id from service_clock where id = 1 for update`.execute(trx);
}
