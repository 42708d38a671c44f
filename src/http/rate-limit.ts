import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError, fail } from './errors.js';
import { sha256Hex } from '../lib/secrets.js';
import { recordVerified, verifiedLately } from './staff-lockout.js';

/** The integrations API's authentication, as an onRequest hook with its `done` callback. */
export type IntegrationAuthHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export { createCounterStore, type CounterStore } from './rate-limit.store.js';

/**
 * Request rate limits of the integrations API (contract: Limits → Request rate; decisions §8).
 *
 * Fixed windows of one minute aligned to the service clock. Every request counts against the
 * per-source-IP tier (authenticated or not) and, once authenticated, against its integration's
 * overall tier and its endpoint tier. A refused request still counts. Counters live in PostgreSQL
 * (upserts shared by every process; the requests arriving together are counted by one statement)
 * or, on the embedded engine, in process memory (no database round trip).
 *
 * Order: an address this process already knows to be over its limit is refused before the key is
 * looked at. Otherwise the key is checked, and the address is counted together with the
 * integration's tiers in the same statement (or alone, when the key is refused), so an
 * authenticated request costs at most one round trip and 429 still wins over 401 for an address
 * over the limit.
 */

export interface Tier {
  /** Policy name in the `RateLimit` and `RateLimit-Policy` fields. */
  name: string;
  /** Requests per window. */
  limit: number;
  /** What the tier covers, for the 429 message. */
  covers: string;
}

export const WINDOW_SECONDS = 60;
const WINDOW_MS = WINDOW_SECONDS * 1000;

export const IP_TIER: Tier = { name: 'ip', limit: 600, covers: 'all calls from one source address' };
export const INTEGRATION_TIER: Tier = { name: 'integration', limit: 300, covers: 'all calls of this integration' };

const ME: Tier = { name: 'me', limit: 60, covers: 'GET /me' };
const PROPERTY_READS: Tier = { name: 'property-reads', limit: 120, covers: 'property reads (GET /properties and the snapshots)' };
const EVENT_REPLAY: Tier = { name: 'event-replay', limit: 120, covers: 'event replay (GET /events)' };
const BOOKING_READS: Tier = { name: 'booking-reads', limit: 120, covers: 'booking reads' };
const BOOKING_WRITES: Tier = { name: 'booking-writes', limit: 60, covers: 'booking writes (create, update, cancel)' };
const PROPERTY_WRITES: Tier = { name: 'property-writes', limit: 30, covers: 'property writes (POST /properties and PUT /properties/{property})' };
const BULK: Tier = { name: 'bulk-property-writes', limit: 6, covers: 'bulk property writes (POST and PUT /properties/bulk)' };
// Additions to the contract's tiers (docs/decisions.md).
const DELIVERIES: Tier = { name: 'deliveries', limit: 60, covers: 'the delivery attempt log (GET /deliveries)' };
const SANDBOX: Tier = { name: 'sandbox', limit: 60, covers: 'sandbox test helpers (/sandbox/…)' };

/**
 * The endpoint tiers, by method and path relative to the API prefix, exactly as the contract and
 * decisions §3 name them. A `{…}` segment is a path parameter, whatever the route calls it. Routes
 * are classified by their registered pattern, so modules need nothing of their own; a route listed
 * here before its module exists simply starts counting when it is registered.
 */
export const ENDPOINT_TIERS: Readonly<Record<string, Tier>> = {
  'GET /me': ME,

  'GET /properties': PROPERTY_READS,
  'GET /properties/{property}': PROPERTY_READS,
  'GET /properties/{property}/availability': PROPERTY_READS,
  'GET /properties/{property}/rates': PROPERTY_READS,
  'GET /properties/{property}/restrictions': PROPERTY_READS,

  'GET /events': EVENT_REPLAY,

  'GET /bookings': BOOKING_READS,
  'GET /bookings/{id}': BOOKING_READS,
  'GET /bookings/external/{external_booking_id}': BOOKING_READS,

  'POST /bookings': BOOKING_WRITES,
  'PATCH /bookings/{id}': BOOKING_WRITES,
  'PATCH /bookings/external/{external_booking_id}': BOOKING_WRITES,
  'POST /bookings/{id}/cancel': BOOKING_WRITES,
  'POST /bookings/external/{external_booking_id}/cancel': BOOKING_WRITES,

  'POST /properties': PROPERTY_WRITES,
  'PUT /properties/{property}': PROPERTY_WRITES,

  'POST /properties/bulk': BULK,
  'PUT /properties/bulk': BULK,

  'GET /deliveries': DELIVERIES,

  'POST /sandbox/properties/{property}/bookings': SANDBOX,
  'POST /sandbox/bookings/{id}/cancel': SANDBOX,
  'POST /sandbox/properties/{property}/block': SANDBOX,
  'POST /sandbox/properties/{property}/unblock': SANDBOX,
  'POST /sandbox/properties/{property}/rate-override': SANDBOX,
  'POST /sandbox/properties/{property}/restriction-override': SANDBOX,
  'POST /sandbox/properties/{property}/archive': SANDBOX,
  'GET /sandbox/clock': SANDBOX,
  'POST /sandbox/clock/advance': SANDBOX,
};

/** Routes that count against the overall tiers only: POST /sync has its own daily quota (sync.service.ts). */
export const OVERALL_ONLY: readonly string[] = ['POST /sync'];

/** `GET /properties/:property` and `GET /properties/{property}` → `GET /properties/{}`; HEAD counts as GET. */
export function routeKey(method: string, path: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${path.replace(/\/[:{][^/]*/g, '/{}')}`;
}

const TIER_BY_KEY = new Map(Object.entries(ENDPOINT_TIERS).map(([key, tier]) => [routeKey(key.split(' ')[0], key.split(' ')[1]), tier]));

/** The endpoint tier of a route pattern relative to the prefix; null when only the overall tiers apply. */
export function endpointTier(method: string, path: string): Tier | null {
  return TIER_BY_KEY.get(routeKey(method, path)) ?? null;
}

/**
 * The bucket of a source address. IPv4-mapped IPv6 is plain IPv4. Other IPv6 addresses count per
 * /64, the block one subscriber usually holds, so that rotating through one's own addresses does
 * not multiply the allowance.
 */
export function addressBucket(ip: string): string {
  if (!ip.includes(':')) return ip;
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip)) return ip.slice(7);
  const bare = ip.split('%')[0].toLowerCase();
  const halves = bare.split('::');
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length > 1 && halves[1] ? halves[1].split(':') : [];
  const groups = halves.length > 1 ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail] : head;
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

// ---------------------------------------------------------------------------------------------
// Headers and refusals

interface Usage {
  tier: Tier;
  remaining: number;
  exceeded: boolean;
}

const usage = (tier: Tier, count: number): Usage => ({ tier, remaining: Math.max(0, tier.limit - count), exceeded: count > tier.limit });

/** The tier that binds first: least remaining, then one already exceeded, then the smaller limit. */
function tightest(usages: Usage[]): Usage {
  let best = usages[0];
  for (const u of usages) {
    const better = u.remaining !== best.remaining ? u.remaining < best.remaining : u.exceeded !== best.exceeded ? u.exceeded : u.tier.limit < best.tier.limit;
    if (better) best = u;
  }
  return best;
}

// The policy field does not change between responses of one route, so it is built once per tier set.
const policyFields = new Map<string, string>();

function policyField(usages: Usage[]): string {
  const key = usages.map((u) => u.tier.name).join(',');
  let field = policyFields.get(key);
  if (!field) {
    field = usages.map((u) => `"${u.tier.name}";q=${u.tier.limit};w=${WINDOW_SECONDS}`).join(', ');
    policyFields.set(key, field);
  }
  return field;
}

/**
 * `X-RateLimit-Limit` / `X-RateLimit-Remaining` of the tightest tier (the contract), and every
 * tier of the request in the IETF fields of draft-ietf-httpapi-ratelimit-headers-11:
 * `RateLimit-Policy: "me";q=60;w=60, …` and `RateLimit: "me";r=59;t=42, …`.
 */
function setHeaders(reply: FastifyReply, usages: Usage[], resetSeconds: number): Usage {
  const tight = tightest(usages);
  reply.header('x-ratelimit-limit', tight.tier.limit);
  reply.header('x-ratelimit-remaining', tight.remaining);
  reply.header('ratelimit-policy', policyField(usages));
  reply.header('ratelimit', usages.map((u) => `"${u.tier.name}";r=${u.remaining};t=${resetSeconds}`).join(', '));
  return tight;
}

function rateLimited(tier: Tier, retryAfter: number): AppError {
  return fail(
    'RATE_LIMITED',
    `Too many requests: ${tier.covers} may make ${tier.limit} requests per minute. Retry after ${retryAfter} seconds.`,
    { retry_after: retryAfter },
    { 'retry-after': String(retryAfter) },
  );
}

// ---------------------------------------------------------------------------------------------
// Hooks

/** The current window of the service clock and the seconds until it ends. */
function windowOf(deps: Deps): { window: number; resetSeconds: number } {
  const now = deps.clock.nowMs();
  const window = Math.floor(now / WINDOW_MS);
  return { window, resetSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)) };
}

type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface RateLimiter {
  /**
   * Wraps the integrations API's authentication hook so that every request is counted: against its
   * source address always, and once authenticated against its integration's overall and endpoint
   * tiers too.
   */
  guard(authenticate: IntegrationAuthHook): IntegrationAuthHook | AuthHook;
  /** Registered routes under the prefix (`METHOD /pattern`) and their endpoint tier (null: overall only). */
  readonly routes: ReadonlyMap<string, Tier | null>;
  /**
   * Counts a request under the prefix that the router refused before any hook ran (a malformed or
   * over-long path) against its source address, and sets the X-RateLimit fields; throws the 429.
   */
  countUnrouted(this: void, request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
}

/**
 * Installs the limiter on the root instance; call before the API scope is registered (its onRoute
 * hook classifies the routes as they are added). Also counts requests under the prefix that match
 * no route (404, 405), per source address.
 */
export function installRateLimit(app: FastifyInstance, deps: Deps, prefix: string): RateLimiter {
  const store = () => deps.state.rateCounters;
  const routes = new Map<string, Tier | null>();

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${prefix}/`)) return;
    const path = route.url.slice(prefix.length);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      const tier = endpointTier(method, path);
      routes.set(`${method} ${route.url}`, tier);
      if (!tier && method !== 'HEAD' && !OVERALL_ONLY.includes(routeKey(method, path))) {
        deps.log.warn({ route: `${method} ${path}` }, 'route has no rate tier in src/http/rate-limit.ts; only the overall tiers apply');
      }
    }
  });

  const clockWindow = () => windowOf(deps);

  /** Counts the request against its address only (unauthenticated, unknown route); refuses over the limit. */
  async function countAddressOnly(reply: FastifyReply, window: number, resetSeconds: number, bucket: string): Promise<void> {
    const [count] = await store().hit(window, [bucket]);
    const ip = usage(IP_TIER, count);
    setHeaders(reply, [ip], resetSeconds);
    if (ip.exceeded) throw rateLimited(IP_TIER, resetSeconds);
  }

  /** A source already over its limit in this window is refused before anything else runs. */
  function refuseKnownOverLimit(reply: FastifyReply, window: number, resetSeconds: number, bucket: string): void {
    const counters = store();
    if (counters.seen(window, bucket) < IP_TIER.limit) return;
    // At the limit already, this one is over whatever else happens: counting it would change only
    // the stored number. The embedded store counts it (free); PostgreSQL is spared the round trip.
    if (counters.inMemory) void counters.hit(window, [bucket]);
    setHeaders(reply, [usage(IP_TIER, IP_TIER.limit + 1)], resetSeconds);
    throw rateLimited(IP_TIER, resetSeconds);
  }

  /** A request under the prefix that reached no route: counted per source address only. */
  async function countUnrouted(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!deps.config.rateLimits) return;
    if (!(request.url.startsWith(`${prefix}/`) || request.url === prefix || request.url.startsWith(`${prefix}?`))) return;
    const { window, resetSeconds } = clockWindow();
    const bucket = `ip:${addressBucket(request.ip)}`;
    refuseKnownOverLimit(reply, window, resetSeconds, bucket);
    await countAddressOnly(reply, window, resetSeconds, bucket);
  }

  // A callback hook: a routed request (nearly all) costs no promise here.
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    countUnrouted(request, reply).then(() => done(), done);
  });

  const limiter: RateLimiter = {
    routes,
    countUnrouted,
    guard(authenticate) {
      if (!deps.config.rateLimits) return authenticate;
      const authenticated = (request: FastifyRequest, reply: FastifyReply) =>
        new Promise<void>((resolve, reject) => authenticate(request, reply, (error) => (error ? reject(error) : resolve())));
      return async function rateLimitedAuthentication(request: FastifyRequest, reply: FastifyReply) {
        const { window, resetSeconds } = clockWindow();
        const ipBucket = `ip:${addressBucket(request.ip)}`;
        refuseKnownOverLimit(reply, window, resetSeconds, ipBucket);

        try {
          await authenticated(request, reply);
        } catch (error) {
          // Unauthenticated requests count per address too; over the limit, 429 wins over 401/403.
          await countAddressOnly(reply, window, resetSeconds, ipBucket);
          throw error;
        }

        const id = request.integration.id;
        const key = `${request.method} ${request.routeOptions.url}`;
        const tier = routes.has(key) ? routes.get(key)! : endpointTier(request.method, (request.routeOptions.url ?? '').slice(prefix.length));
        const buckets = tier ? [ipBucket, `i:${id}`, `i:${id}:${tier.name}`] : [ipBucket, `i:${id}`];
        const counts = await store().hit(window, buckets);
        // Narrowest first: endpoint tier, integration, address.
        const usages = tier
          ? [usage(tier, counts[2]), usage(INTEGRATION_TIER, counts[1]), usage(IP_TIER, counts[0])]
          : [usage(INTEGRATION_TIER, counts[1]), usage(IP_TIER, counts[0])];
        const tight = setHeaders(reply, usages, resetSeconds);
        if (tight.exceeded) throw rateLimited(tight.tier, resetSeconds);
      };
    },
  };
  app.decorate('rateLimiter', limiter);
  return limiter;
}

// ---------------------------------------------------------------------------------------------
// Staff API

/** Credentials this runtime authenticated a moment ago (Deps.state.knownStaffCredentials): hash → until (ms). */
export type KnownCredentials = Map<string, number>;
const KNOWN_MS = 10 * 60_000;
const KNOWN_MAX = 1_000;

function lockedOut(limit: number, retryAfter: number): AppError {
  return fail(
    'RATE_LIMITED',
    `Too many failed authentications from this address: at most ${limit} a minute. Retry after ${retryAfter} seconds.`,
    { retry_after: retryAfter },
    { 'retry-after': String(retryAfter) },
  );
}

/** A failed authentication is a presented credential that names nothing (a guess): a 401 to a request that carried one. */
const isGuess = (error: unknown, request: FastifyRequest) => error instanceof AppError && error.status === 401 && request.headers.authorization !== undefined;

/**
 * Runs one staff authentication (`evaluate`, which throws a 401 AppError for a wrong credential)
 * under the lockout of the request's source address (`staff-auth-failures`, bucketed as above):
 *
 * - an address at STAFF_AUTH_FAILURE_LIMIT failures in the window is locked out until the window
 *   ends. A credential that verified from that address within the last 24 hours
 *   (staff-lockout.ts) is still evaluated, so a guesser cannot lock the address's staff out; any
 *   other credential gets 429 without being evaluated, the right one included, so the lockout still
 *   slows guessing and the status tells a guesser nothing;
 * - a credential not authenticated by this runtime lately is counted as a failure before it is
 *   evaluated, and the count is given back when it turns out right (or not a guess: an integration
 *   key, 403). So a burst of concurrent guesses gets exactly the remaining allowance evaluated and the
 *   rest refused, wherever the counts live (PostgreSQL: shared by every process);
 * - a credential authenticated lately (known good) is evaluated without the advance count, so a
 *   staff script's parallel calls do not use up the allowance; if it fails now (revoked), it counts.
 *
 * Used by the staff API, /metrics (METRICS_TOKEN included) and the partner API for staff-shaped
 * bearers. Without rate limits (RATE_LIMITS=off) it only evaluates.
 */
export async function staffAttempt(deps: Deps, request: FastifyRequest, evaluate: () => Promise<void>): Promise<void> {
  if (!deps.config.rateLimits) return evaluate();
  const limit = deps.config.staffAuthFailureLimit;
  const store = deps.state.rateCounters;
  const { window, resetSeconds } = windowOf(deps);
  const address = addressBucket(request.ip);
  const bucket = `staff-fail:${address}`;
  const header = request.headers.authorization;
  const credential = typeof header === 'string' ? sha256Hex(header) : null;
  const known = deps.state.knownStaffCredentials;
  const knownUntil = credential === null ? undefined : known.get(credential);

  /** Evaluates without the advance count; a wrong credential counts as a failure. */
  const evaluateCounted = async () => {
    try {
      await evaluate();
    } catch (error) {
      if (!isGuess(error, request)) throw error;
      if (credential !== null) known.delete(credential);
      const [failed] = await store.hit(window, [bucket]);
      if (failed > limit) throw lockedOut(limit, resetSeconds);
      throw error;
    }
    if (credential !== null) await recordVerified(deps, address, credential);
  };
  /** The address is locked out: only a credential that verified from it lately is evaluated. */
  const whileLockedOut = async () => {
    if (credential === null || !(await verifiedLately(deps, address, credential))) throw lockedOut(limit, resetSeconds);
    await evaluateCounted();
  };

  // An address this process already knows to be locked out costs no count (a flood of guesses).
  if (store.seen(window, bucket) >= limit) return whileLockedOut();

  if (credential === null || (knownUntil !== undefined && knownUntil > deps.clock.nowMs())) {
    if ((await store.read(window, bucket)) >= limit) return whileLockedOut();
    return evaluateCounted();
  }

  // Counted before it is evaluated.
  const [attempt] = await store.hit(window, [bucket]);
  if (attempt > limit) {
    await store.release(window, bucket);
    return whileLockedOut();
  }
  try {
    await evaluate();
  } catch (error) {
    if (!isGuess(error, request)) await store.release(window, bucket);
    throw error;
  }
  await store.release(window, bucket);
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(credential, deps.clock.nowMs() + KNOWN_MS);
  await recordVerified(deps, address, credential);
}

/**
 * Wraps the staff API's authentication hook with its two limits per source address (bucketed as
 * above), in the same windows and counters as the integrations API: every call counts against
 * `staff-ip` (STAFF_RATE_LIMIT, 600 a minute by default), refused ones included, before the token
 * is looked at; and the authentication runs under the failure lockout (staffAttempt).
 *
 * Refusals are 429 `RATE_LIMITED` with Retry-After (seconds to the window's end).
 */
export function guardStaff(deps: Deps, authenticate: AuthHook): AuthHook {
  if (!deps.config.rateLimits) return authenticate;
  const overall: Tier = { name: 'staff-ip', limit: deps.config.staffRateLimit, covers: 'staff API calls from one source address' };
  return async function rateLimitedStaffAuthentication(request, reply) {
    const store = deps.state.rateCounters;
    const { window, resetSeconds } = windowOf(deps);
    const address = addressBucket(request.ip);
    const [count] = await store.hit(window, [`staff-ip:${address}`]);
    // No X-RateLimit fields here: those are the integrations API's contract; a 429 says Retry-After.
    if (usage(overall, count).exceeded) throw rateLimited(overall, resetSeconds);
    await staffAttempt(deps, request, () => authenticate(request, reply));
  };
}
