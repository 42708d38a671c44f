import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { Deps } from '../deps.js';

/**
 * Which staff credentials verified from which address lately (staff_auth_known). The lockout of an
 * address stops guessing, not the people who work from it: a credential that verified from the
 * address within KNOWN_FROM_ADDRESS_MS keeps being evaluated while the address is locked out.
 */
export const KNOWN_FROM_ADDRESS_MS = 24 * 60 * 60 * 1000;
/** A verification is written at most this often per address and credential (the rest are in memory). */
const RECORD_EVERY_MS = 60 * 60 * 1000;
const MEMORY_MAX = 10_000;

/** This runtime's view: `address credential` → service-clock ms of the last verification it recorded. */
export type VerifiedFrom = Map<string, number>;

const keyOf = (address: string, credentialHash: string) => `${address} ${credentialHash}`;

/** Notes that the credential verified from the address; written to the shared table at most hourly. */
export async function recordVerified(deps: Deps, address: string, credentialHash: string): Promise<void> {
  const now = deps.clock.nowMs();
  const memory = deps.state.staffVerifiedFrom;
  const key = keyOf(address, credentialHash);
  const last = memory.get(key);
  if (last !== undefined && now - last < RECORD_EVERY_MS && last <= now) return;
  if (memory.size >= MEMORY_MAX) memory.clear();
  memory.set(key, now);
  await deps.db
    .insertInto('staff_auth_known')
    .values({ address, credential_hash: credentialHash, verified_at: new Date(now) })
    .onConflict((oc) => oc.columns(['address', 'credential_hash']).doUpdateSet({ verified_at: new Date(now) }))
    .execute()
    .catch((error: unknown) => {
      // A failure to record costs only the exemption later; it refuses nothing now.
      memory.delete(key);
      deps.log.warn({ err: error }, 'recording a staff credential’s address failed');
    });
}

/** Whether the credential verified from the address within the last 24 hours (service clock). */
export async function verifiedLately(deps: Deps, address: string, credentialHash: string): Promise<boolean> {
  const since = deps.clock.nowMs() - KNOWN_FROM_ADDRESS_MS;
  const last = deps.state.staffVerifiedFrom.get(keyOf(address, credentialHash));
  if (last !== undefined && last > since) return true;
  const row = await deps.db
    .selectFrom('staff_auth_known')
    .select('verified_at')
    .where('address', '=', address)
    .where('credential_hash', '=', credentialHash)
    .where('verified_at', '>', new Date(since))
    .executeTakeFirst();
  return row !== undefined;
}

/** Retention: verifications older than 24 hours no longer exempt anything. */
export async function purgeStaleStaffVerifications(db: Kysely<DB>, nowMs: number): Promise<number> {
  const result = await db
    .deleteFrom('staff_auth_known')
    .where('verified_at', '<=', new Date(nowMs - KNOWN_FROM_ADDRESS_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
