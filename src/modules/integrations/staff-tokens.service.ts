import type { Deps } from '../../deps.js';
import { fail, notFound } from '../../http/errors.js';
import { randomToken } from '../../lib/ids.js';
import { digestsEqual, sha256Hex } from '../../lib/secrets.js';
import { formatTimestamp, formatTimestampOrNull } from '../../lib/time.js';
import {
  findLiveStaffToken,
  insertStaffToken,
  listLiveStaffTokens,
  lockBootstrap,
  lockLiveStaffTokens,
  revokeOtherBootstrapTokens,
  revokeStaffTokenRow,
  touchStaffToken,
  upsertConfiguredStaffToken,
} from './staff-tokens.sql.js';

export const newStaffToken = () => randomToken('dls_', 40);

type TokenRow = Awaited<ReturnType<typeof insertStaffToken>>;

function tokenView(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    created_at: formatTimestamp(row.created_at),
    last_used_at: formatTimestampOrNull(row.last_used_at),
    revoked_at: formatTimestampOrNull(row.revoked_at),
  };
}

/**
 * Makes sure a staff token exists at start. With STAFF_TOKEN set, that token is stored (live again
 * if it had been revoked) and every other bootstrap token is revoked: the setting is authoritative,
 * so changing it retires the previous value. Tokens minted through the API stay. Without it, a
 * database with no live token gets a generated one, returned once so that the caller prints it.
 */
export async function ensureStaffToken(deps: Deps): Promise<string | null> {
  const now = deps.clock.now();
  const configured = deps.config.staffToken;
  return deps.db.transaction().execute(async (trx) => {
    await lockBootstrap(trx);
    if (configured) {
      const hash = sha256Hex(configured);
      await upsertConfiguredStaffToken(trx, hash, now);
      const revoked = await revokeOtherBootstrapTokens(trx, hash, now);
      if (revoked > 0) deps.log.warn({ revoked }, 'STAFF_TOKEN is set: revoked the previous bootstrap staff tokens');
      return null;
    }
    if ((await lockLiveStaffTokens(trx)).length > 0) return null;
    const token = newStaffToken();
    await insertStaffToken(trx, { tokenHash: sha256Hex(token), name: 'generated at first start', kind: 'bootstrap', now });
    return token;
  });
}

/** A use is written at most this often per token (and process): last_used_at is coarse on purpose. */
const TOUCH_EVERY_MS = 60_000;
/** When this runtime last recorded a use, by staff token id (Deps.state.staffTokenUses). */
export type StaffTokenUses = Map<number, number>;

/**
 * The id of the live staff token, or null. Looked up on every call, with no cache: a revoked token
 * stops at once in every process. Records the use at most once a minute per token (TOUCH_EVERY_MS):
 * one small update, not on every request.
 */
export async function authenticateStaffToken(deps: Deps, token: string): Promise<number | null> {
  if (!token.startsWith('dls_')) return null;
  const hash = sha256Hex(token);
  const row = await findLiveStaffToken(deps.db, hash);
  if (!row || !digestsEqual(row.token_hash, hash)) return null;
  const nowMs = deps.clock.nowMs();
  const touched = deps.state.staffTokenUses;
  const stored = row.last_used_at?.getTime() ?? -Infinity;
  if (nowMs - Math.max(stored, touched.get(row.id) ?? -Infinity) >= TOUCH_EVERY_MS) {
    touched.set(row.id, nowMs);
    // Awaited, so that the write belongs to this request (nothing of it lands after the answer);
    // a failure to record a use refuses nothing.
    await touchStaffToken(deps.db, row.id, new Date(nowMs), new Date(nowMs - TOUCH_EVERY_MS)).catch((error: unknown) => {
      deps.log.warn({ err: error, staff_token_id: row.id }, 'recording a staff token use failed');
    });
  }
  return row.id;
}

export async function mintStaffToken(deps: Deps, name: string) {
  const token = newStaffToken();
  const row = await insertStaffToken(deps.db, { tokenHash: sha256Hex(token), name, kind: 'named', now: deps.clock.now() });
  return { staff_token: tokenView(row), token };
}

export async function listStaffTokens(deps: Deps) {
  return (await listLiveStaffTokens(deps.db)).map(tokenView);
}

/**
 * Revokes a live token; it stops authenticating with the next request, in every process. The
 * caller's own token may be revoked (this answer still goes out). Refused: the token this process
 * was started with (STAFF_TOKEN is authoritative; change the setting instead), and the last live
 * token (nobody could manage the service any more).
 */
export async function revokeStaffToken(deps: Deps, id: number, revokedBy?: number) {
  const now = deps.clock.now();
  const configuredHash = deps.config.staffToken ? sha256Hex(deps.config.staffToken) : null;
  const row = await deps.db.transaction().execute(async (trx) => {
    const live = await lockLiveStaffTokens(trx);
    const target = live.find((t) => t.id === id);
    if (!target) throw notFound('No such staff token.');
    if (configuredHash && target.token_hash === configuredHash) {
      throw fail('STAFF_TOKEN_CONFIGURED', 'This token is the STAFF_TOKEN setting; change the setting and restart to replace it.');
    }
    if (live.length === 1) {
      throw fail('LAST_STAFF_TOKEN', 'This is the only live staff token; mint another one before revoking it.');
    }
    return revokeStaffTokenRow(trx, id, now);
  });
  deps.log.info({ staff_token_id: revokedBy, revoked_staff_token_id: id }, 'staff token revoked');
  return tokenView(row);
}
