import type { FastifyReply } from 'fastify';
import type { Deps } from '../deps.js';
import { fail, type AppError } from './errors.js';

/** The rate tiers, how routes and addresses map to them, and the fields and refusals that report them. */

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

export interface Usage {
  tier: Tier;
  remaining: number;
  exceeded: boolean;
}

export const usage = (tier: Tier, count: number): Usage => ({ tier, remaining: Math.max(0, tier.limit - count), exceeded: count > tier.limit });

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
export function setHeaders(reply: FastifyReply, usages: Usage[], resetSeconds: number): Usage {
  const tight = tightest(usages);
  reply.header('x-ratelimit-limit', tight.tier.limit);
  reply.header('x-ratelimit-remaining', tight.remaining);
  reply.header('ratelimit-policy', policyField(usages));
  reply.header('ratelimit', usages.map((u) => `"${u.tier.name}";r=${u.remaining};t=${resetSeconds}`).join(', '));
  return tight;
}

export function rateLimited(tier: Tier, retryAfter: number): AppError {
  return fail(
    'RATE_LIMITED',
    `Too many requests: ${tier.covers} may make ${tier.limit} requests per minute. Retry after ${retryAfter} seconds.`,
    { retry_after: retryAfter },
    { 'retry-after': String(retryAfter) },
  );
}

// ---------------------------------------------------------------------------------------------
// Windows

/** The current window of the service clock and the seconds until it ends. */
export function windowOf(deps: Deps): { window: number; resetSeconds: number } {
  const now = deps.clock.nowMs();
  const window = Math.floor(now / WINDOW_MS);
  return { window, resetSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)) };
}
