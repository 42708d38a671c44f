import type { Deps } from '../../deps.js';
import { fail, notFound } from '../../http/errors.js';
import { randomToken } from '../../lib/ids.js';
import { digestsEqual, sha256Hex } from '../../lib/secrets.js';
import { formatTimestamp, formatTimestampOrNull } from '../../lib/time.js';
import {
  CONFIGURED_NAME,
  findLiveStaffToken,
  insertStaffToken,
  listLiveStaffTokens,
  lockBootstrap,
  lockLiveStaffTokens,
  revokeStaffTokenRow,
  revokeStaffTokensWhere,
  touchStaffToken,
  upsertConfiguredStaffToken,
  type StaffScope,
} from './staff-tokens.sql.js';

export type { StaffScope } from './staff-tokens.sql.js';

export const newStaffToken = () => randomToken('dls_', 40);

/** A new named token's scope when the mint does not say: the one that cannot mint or revoke tokens. */
export const DEFAULT_SCOPE: StaffScope = 'operator';

type TokenRow = Awaited<ReturnType<typeof insertStaffToken>>;

function tokenView(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    scope: row.scope,
    created_at: formatTimestamp(row.created_at),
    last_used_at: formatTimestampOrNull(row.last_used_at),
    expires_at: formatTimestampOrNull(row.expires_at),
    revoked_at: formatTimestampOrNull(row.revoked_at),
  };
}

/**
 * Makes sure an admin staff token exists at start. With STAFF_TOKEN set, that token is stored
 * (live again if it had been revoked) and every other bootstrap token is revoked: the setting is
 * authoritative, so changing it retires the previous value; with STAFF_TOKEN_REVOKE_OTHERS every
 * other token goes too (recovery after a compromise). Without STAFF_TOKEN, the token a previous
 * STAFF_TOKEN had set is revoked (removing the setting retires its value), and a database left with
 * no live admin token gets a generated one, returned once so that the caller prints it.
 */
export async function ensureStaffToken(deps: Deps): Promise<string | null> {
  const now = deps.clock.now();
  const configured = deps.config.staffToken;
  return deps.db.transaction().execute(async (trx) => {
    await lockBootstrap(trx);
    if (configured) {
      const hash = sha256Hex(configured);
      await upsertConfiguredStaffToken(trx, hash, now);
      if (deps.config.staffTokenRevokeOthers) {
        const revoked = await revokeStaffTokensWhere(trx, { keepHash: hash }, now);
        deps.log.warn(
          { revoked: revoked.length, revoked_staff_token_ids: revoked },
          `STAFF_TOKEN_REVOKE_OTHERS is set: revoked ${revoked.length} staff tokens; only STAFF_TOKEN is live (unset the setting for the next start)`,
        );
        return null;
      }
      const revoked = await revokeStaffTokensWhere(trx, { kind: 'bootstrap', keepHash: hash }, now);
      if (revoked.length > 0)
        deps.log.warn({ revoked: revoked.length, revoked_staff_token_ids: revoked }, 'STAFF_TOKEN is set: revoked the previous bootstrap staff tokens');
      return null;
    }
    const retired = await revokeStaffTokensWhere(trx, { kind: 'bootstrap', name: CONFIGURED_NAME, keepHash: null }, now);
    if (retired.length > 0) deps.log.warn({ revoked_staff_token_ids: retired }, 'STAFF_TOKEN is no longer set: revoked the staff token it had set');
    if ((await lockLiveStaffTokens(trx, now)).some((t) => t.scope === 'admin')) return null;
    const token = newStaffToken();
    await insertStaffToken(trx, { tokenHash: sha256Hex(token), name: 'generated at first start', kind: 'bootstrap', scope: 'admin', expiresAt: null, now });
    return token;
  });
}

/** A use is written at most this often per token (and process): last_used_at is coarse on purpose. */
const TOUCH_EVERY_MS = 60_000;
/** When this runtime last recorded a use, by staff token id (Deps.state.staffTokenUses). */
export type StaffTokenUses = Map<number, number>;

export interface StaffIdentity {
  id: number;
  scope: StaffScope;
}

/**
 * The live staff token (not revoked, not expired on the service clock), or null. Looked up on
 * every call, with no cache: a revoked token stops at once in every process. Records the use at
 * most once a minute per token (TOUCH_EVERY_MS): one small update, not on every request.
 */
export async function authenticateStaffToken(deps: Deps, token: string): Promise<StaffIdentity | null> {
  if (!token.startsWith('dls_')) return null;
  const hash = sha256Hex(token);
  const nowMs = deps.clock.nowMs();
  const row = await findLiveStaffToken(deps.db, hash, new Date(nowMs));
  if (!row || !digestsEqual(row.token_hash, hash)) return null;
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
  return { id: row.id, scope: row.scope };
}

/** Minting staff tokens, revoking other ones and a brand's sandbox flag: admin tokens only. */
export function requireAdmin(actor: StaffIdentity, what = 'mint or revoke staff tokens'): void {
  if (actor.scope !== 'admin') {
    throw fail('INSUFFICIENT_SCOPE', `Only an admin staff token may ${what}.`);
  }
}

const DAY_MS = 86_400_000;

export async function mintStaffToken(deps: Deps, actor: StaffIdentity, input: { name: string; scope?: StaffScope; expires_in_days?: number }) {
  requireAdmin(actor);
  const token = newStaffToken();
  const now = deps.clock.now();
  const expiresAt = input.expires_in_days === undefined ? null : new Date(now.getTime() + input.expires_in_days * DAY_MS);
  const scope = input.scope ?? DEFAULT_SCOPE;
  const row = await insertStaffToken(deps.db, { tokenHash: sha256Hex(token), name: input.name, kind: 'named', scope, expiresAt, now });
  deps.log.info({ staff_token_id: actor.id, new_staff_token_id: row.id, scope, expires_at: formatTimestampOrNull(row.expires_at) }, 'staff token minted');
  return { staff_token: tokenView(row), token };
}

export async function listStaffTokens(deps: Deps, query: { page?: number; per_page?: number }) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  const { rows, total } = await listLiveStaffTokens(deps.db, deps.clock.now(), { limit: perPage, offset: (page - 1) * perPage });
  return { data: rows.map(tokenView), pagination: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) } };
}

/**
 * Revokes a live token; it stops authenticating with the next request, in every process. Admin
 * tokens revoke any token; any token may revoke itself (this answer still goes out). Refused: the token this process
 * was started with (STAFF_TOKEN is authoritative; change the setting instead), and the last live
 * admin token (nobody could manage staff tokens any more).
 */
export async function revokeStaffToken(deps: Deps, actor: StaffIdentity, id: number) {
  // Retiring one's own token takes power away from no one else: any token may.
  if (id !== actor.id) requireAdmin(actor);
  const now = deps.clock.now();
  const configuredHash = deps.config.staffToken ? sha256Hex(deps.config.staffToken) : null;
  const row = await deps.db.transaction().execute(async (trx) => {
    const live = await lockLiveStaffTokens(trx, now);
    const target = live.find((t) => t.id === id);
    if (!target) throw notFound('No such staff token.');
    if (configuredHash && target.token_hash === configuredHash) {
      throw fail('STAFF_TOKEN_CONFIGURED', 'This token is the STAFF_TOKEN setting; change the setting and restart to replace it.');
    }
    if (target.scope === 'admin' && !live.some((t) => t.id !== id && t.scope === 'admin')) {
      throw fail('LAST_STAFF_TOKEN', 'This is the only live admin staff token; mint another admin token before revoking it.');
    }
    return revokeStaffTokenRow(trx, id, now);
  });
  deps.log.info({ staff_token_id: actor.id, revoked_staff_token_id: id }, 'staff token revoked');
  return tokenView(row);
}
