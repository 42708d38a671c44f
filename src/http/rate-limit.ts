import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import {
  addressBucket,
  endpointTier,
  INTEGRATION_TIER,
  IP_TIER,
  OVERALL_ONLY,
  rateLimited,
  routeKey,
  setHeaders,
  usage,
  windowOf,
  type Tier,
} from './rate-limit.tiers.js';

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

/** The integrations API's authentication, as an onRequest hook with its `done` callback. */
export type IntegrationAuthHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

export type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

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
        deps.log.warn({ route: `${method} ${path}` }, 'route has no rate tier in src/http/rate-limit.tiers.ts; only the overall tiers apply');
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
