import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Subscription } from '../../db/listener.js';
import type { Deps } from '../../deps.js';
import { digestsEqual, sha256Hex } from '../../lib/secrets.js';
import { authenticateStaffToken, type StaffIdentity } from './staff-tokens.service.js';
import { fail } from '../../http/errors.js';
import type { IntegrationAuthHook } from '../../http/rate-limit.js';
import { guardStaff, staffAttempt } from '../../http/rate-limit.staff.js';

export interface IntegrationContext {
  id: number;
  brandId: number;
  slug: string;
  status: 'active' | 'paused';
}

declare module 'fastify' {
  interface FastifyRequest {
    integration: IntegrationContext;
    /** The staff API: id of the staff token the request authenticated with. */
    staffTokenId: number;
    /** The staff API: the staff token the request authenticated with, and its scope. */
    staffToken: StaffIdentity;
  }
}

const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/]+=*)$/i; // the auth scheme is case-insensitive (RFC 9110)

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return BEARER.exec(header.trim())?.[1] ?? null;
}

const unauthenticated = () => fail('UNAUTHENTICATED', 'A valid API key is required: send Authorization: Bearer <API_KEY>.');

/**
 * A bearer that is no integration key but has a staff token's form, on the integrations API: a
 * valid staff token is 403 NOT_INTEGRATION_TOKEN (the contract), anything else 401. It is judged
 * under the staff lockout of the address (a wrong one counts as a failed staff authentication, a
 * locked-out address is answered 429), so this API is no better an oracle for staff tokens than the
 * staff API.
 */
async function refuseStaffShaped(deps: Deps, request: FastifyRequest, token: string): Promise<never> {
  await staffAttempt(deps, request, async () => {
    if ((await authenticateStaffToken(deps, token)) === null) throw unauthenticated();
  });
  throw fail('NOT_INTEGRATION_TOKEN', 'This token is not an integration API key.');
}

interface KeyRow {
  id: number;
  brand_id: number;
  slug: string;
  status: 'active' | 'paused' | 'disabled';
  api_key_hash: string;
}

/**
 * API keys already verified, by key hash, for a couple of seconds: the lookup sits on every
 * request. Entries of an integration are dropped at once when its key rotates or its status
 * changes (forgetIntegration), in this process directly and in the others through the PostgreSQL
 * notification that forgetIntegration sends (see authSubscription); the short lifetime bounds
 * what a lost notification could leave behind, and is the whole bound where no LISTEN is possible.
 */
export const AUTH_CACHE_MS = 2000;
const CACHE_MS = AUTH_CACHE_MS;
const CACHE_MAX = 10_000;
export const AUTH_CHANNEL = 'doorloom_integration_auth';
/** One per runtime (Deps.state.authCache). */
export interface AuthCache {
  /** Verified keys by key hash. */
  keys: Map<string, { row: KeyRow; until: number }>;
  /** The change listener is not connected: nothing is cached meanwhile. */
  unheard: boolean;
  /** This process's LISTEN connection is up: its own notifications come back to it. */
  listening: boolean;
  /** forgetIntegration calls waiting to hear their own notification, by integration id. */
  echoes: Map<number, Set<() => void>>;
}
export const createAuthCache = (): AuthCache => ({ keys: new Map(), unheard: false, listening: false, echoes: new Map() });

/** Longest a key rotation waits to hear its own notification before it answers. */
const ECHO_WAIT_MS = 1000;

/** Drops this process's cached keys of one integration (all of them when id is null). */
export function forgetIntegrationLocally(deps: Pick<Deps, 'state'>, integrationId: number | null): void {
  const cache = deps.state.authCache.keys;
  if (integrationId === null) return cache.clear();
  for (const [hash, entry] of cache) if (entry.row.id === integrationId) cache.delete(hash);
}

/** After a key rotation or a status change: every process forgets what it cached of the integration. */
export async function forgetIntegration(deps: Deps, integrationId: number): Promise<void> {
  forgetIntegrationLocally(deps, integrationId);
  if (deps.engine !== 'postgres') return;
  const cache = deps.state.authCache;
  // PostgreSQL hands a notification to every listener at once, so hearing our own echo means the
  // other processes have it too: the caller's next request, on any node, finds the old key gone.
  let heard: Promise<void> | null = null;
  if (cache.listening) {
    heard = new Promise<void>((resolve) => {
      const waiters = cache.echoes.get(integrationId) ?? new Set();
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) cache.echoes.delete(integrationId);
        resolve();
      };
      const timer = setTimeout(done, ECHO_WAIT_MS);
      waiters.add(done);
      cache.echoes.set(integrationId, waiters);
    });
  }
  await sql`select pg_notify(${AUTH_CHANNEL}, ${String(integrationId)})`.execute(deps.db);
  await heard;
}

/** The integration of a key verified within CACHE_MS, without waiting: undefined when not cached. */
function cachedIntegration(deps: Deps, token: string): KeyRow | undefined {
  return token.startsWith('dlk_') ? cachedByHash(deps, sha256Hex(token)) : undefined;
}

function cachedByHash(deps: Deps, hash: string): KeyRow | undefined {
  const hit = deps.state.authCache.keys.get(hash);
  return hit && hit.until > deps.clock.nowMs() ? hit.row : undefined;
}

async function findIntegrationByKey(deps: Deps, token: string): Promise<KeyRow | undefined> {
  if (!token.startsWith('dlk_')) return undefined;
  const hash = sha256Hex(token);
  const cached = cachedByHash(deps, hash);
  if (cached) return cached;
  const cache = deps.state.authCache.keys;
  const now = deps.clock.nowMs();
  const row = await deps.db
    .selectFrom('integrations')
    .select(['id', 'brand_id', 'slug', 'status', 'api_key_hash'])
    .where('api_key_hash', '=', hash)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.api_key_hash, hash)) {
    cache.delete(hash);
    return undefined;
  }
  if (deps.state.authCache.unheard) return row; // another process's revocation could not reach us
  // Behind a transaction pooler the service runs as a fleet, where a rotated key must be refused on
  // every node the moment the rotation answers: no notification is that fast, so nothing is cached.
  if (deps.config.databasePoolMode === 'transaction') return row;
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(hash, { row, until: now + CACHE_MS });
  return row;
}

/**
 * onRequest hook of the integrations API: resolves the API key to its integration. A key verified
 * moments ago (the cache above) is answered at once, without a promise: the hook runs on every
 * request. Measured with the bench (docs/performance.md).
 */
export function integrationAuth(deps: Deps): IntegrationAuthHook {
  return function authenticate(request, reply, done) {
    const token = bearerToken(request);
    const cached = token ? cachedIntegration(deps, token) : undefined;
    if (!cached) return void lookUp(deps, request, reply, token).then(() => done(), done);
    try {
      admit(request, reply, cached);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}

async function lookUp(deps: Deps, request: FastifyRequest, reply: FastifyReply, token: string | null): Promise<void> {
  if (!token) throw unauthenticated();
  const integration = await findIntegrationByKey(deps, token);
  if (!integration) {
    if (token.startsWith('dls_')) await refuseStaffShaped(deps, request, token);
    throw unauthenticated();
  }
  admit(request, reply, integration);
}

function admit(request: FastifyRequest, reply: FastifyReply, integration: KeyRow): void {
  if (integration.status === 'disabled') {
    throw fail('INTEGRATION_DISABLED', 'This integration has been disabled.');
  }
  request.integration = {
    id: integration.id,
    brandId: integration.brand_id,
    slug: integration.slug,
    status: integration.status,
  };
  // Every later log line of the request (its completion included) names the integration.
  request.log = reply.log = request.log.child({ integration_id: integration.id });
}

/** The staff API's authentication, without its rate limits: see staffAuth. */
export function authenticateStaff(deps: Deps) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw fail('UNAUTHENTICATED', 'A valid staff token is required: send Authorization: Bearer <STAFF_TOKEN>.');
    const staffToken = await authenticateStaffToken(deps, token);
    if (staffToken !== null) {
      request.staffToken = staffToken;
      request.staffTokenId = staffToken.id;
      // which staff token did what, in the request's log lines
      request.log = reply.log = request.log.child({ staff_token_id: staffToken.id });
      return;
    }
    if (await findIntegrationByKey(deps, token)) {
      throw fail('NOT_STAFF_TOKEN', 'An integration API key cannot call the staff API.');
    }
    throw fail('UNAUTHENTICATED', 'A valid staff token is required: send Authorization: Bearer <STAFF_TOKEN>.');
  };
}

/** onRequest hook of the staff API, behind its rate limits and failure lockout (guardStaff). */
export function staffAuth(deps: Deps) {
  return guardStaff(deps, authenticateStaff(deps));
}

/**
 * PostgreSQL: the subscription to other processes' forgetIntegration notifications, for the
 * process's one LISTEN connection (startProcess). Until it is listening, and whenever the
 * connection is down, nothing could tell this process of a revoked key: the cache is emptied and
 * nothing is cached, so every request reads the key from the database.
 */
export function authSubscription(deps: Pick<Deps, 'state'>): Subscription {
  deps.state.authCache.unheard = true;
  forgetIntegrationLocally(deps, null);
  return {
    channels: [AUTH_CHANNEL],
    onMessage(_channel, payload) {
      const id = Number(payload);
      forgetIntegrationLocally(deps, Number.isInteger(id) ? id : null);
      for (const done of [...(deps.state.authCache.echoes.get(id) ?? [])]) done();
    },
    onState(state) {
      deps.state.authCache.unheard = state !== 'up';
      deps.state.authCache.listening = state === 'up';
      forgetIntegrationLocally(deps, null); // whatever changed while no one listened
    },
  };
}
