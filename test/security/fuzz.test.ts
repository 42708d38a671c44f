import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, STAFF_PREFIX } from '../../src/app.js';
import { createTestContext, STAFF_TOKEN, type TestContext } from '../helpers/context.js';
import { changedTables, tableDigest, type Digest } from '../helpers/digest.js';
import { fillPath, listRoutes, type RegisteredRoute } from '../helpers/routes.js';
import { describeExchange, encodeSegment, mutate, QUERY_NAMES, requestPlans, resolveDays, routeKeyOf, type ParamPlan, type RequestPlan } from './fuzz.js';
import { buildWorld, day, newKey, propertyBody, type World } from './world.js';

/**
 * Property-based fuzzing of every endpoint of the integrations API and the staff API (routes read
 * from the app, so new ones are covered without being listed). Each generated request varies the
 * body (near-valid: a valid body with one or two fields mutated; or any JSON; or malformed text),
 * the content type, the Idempotency-Key, If-Match, the Authorization form, the query string and
 * the path ids (own, another integration's, missing, malformed). For every answer:
 *
 * - never a 5xx;
 * - always the envelope: JSON, `success` boolean, `message` string, `data` on success, `code` on
 *   failure, `errors` an object (of message arrays for VALIDATION_FAILED);
 * - on the integrations API, the X-RateLimit fields;
 * - a refusal (4xx) writes nothing: a digest of every table except counters and logs is the same
 *   before and after.
 *
 * Fixed seed (FUZZ_SEED), bounded runs: FUZZ_RUNS requests to the integrations API (default 2500)
 * and FUZZ_STAFF_RUNS to the staff API (default 1000), about 20 seconds. A longer run,
 * FUZZ_RUNS=12000 FUZZ_STAFF_RUNS=5000, takes a few minutes. Every distinct failure is
 * collected and the run goes on, so one run lists them all (each with its request and plan).
 * FUZZ_VERBOSE=1 prints the answers per route.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const API_RUNS = Number(process.env.FUZZ_RUNS ?? 2500);
const STAFF_RUNS = Number(process.env.FUZZ_STAFF_RUNS ?? 1000);
/** Requests between two moves of the service clock by a minute, so rate tiers rarely answer instead. */
const REQUESTS_PER_WINDOW = 12;

let ctx: TestContext;
let w: World;
let routes: RegisteredRoute[];
/** The query parameters each route declares (`GET /api/…/events` → after_sequence, limit, types), from the app's OpenAPI document. */
const queryNames = new Map<string, string[]>();

beforeAll(async () => {
  ctx = await createTestContext();
  w = await buildWorld(ctx, { horizonDays: 30 });
  const sandbox = await ctx.staff('PATCH', `/brands/${w.a.brandId}`, { sandbox: true });
  if (sandbox.statusCode !== 200) throw new Error(`sandbox brand: ${sandbox.body}`);
  const blocked = await ctx.staff('PUT', `/properties/${w.villaA.id}/calendar`, { from: day(ctx, 700), to: day(ctx, 701), block_scope: 'everywhere' });
  if (blocked.statusCode !== 200) throw new Error(`block: ${blocked.body}`);
  routes = listRoutes(ctx.app);
  const doc = ctx.app.swagger() as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>> };
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const names = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      queryNames.set(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`, names);
    }
  }
});
afterAll(() => ctx.close());

// ---------------------------------------------------------------------------------------------
// The live world the plans are realised against

interface Recent {
  properties: string[];
  bookings: string[];
  externalBookings: string[];
  integrations: string[];
  brands: string[];
}
const recent: Recent = { properties: [], bookings: [], externalBookings: [], integrations: [], brands: [] };
let counter = 0;
let lastKey = newKey();
const FIXED_KEY = 'fuzz-fixed-key-0001';

/** Valid bodies of the integrations API, by `METHOD /path` relative to the prefix. */
function apiBody(key: string): unknown {
  const n = ++counter;
  const offset = 5 + ((n * 7) % 600);
  switch (key) {
    case 'POST /properties':
      // now and then an external id already mapped (409), or a unit alias already held (422)
      return n % 7 === 0
        ? propertyBody(w.villaA.externalId, 2)
        : n % 11 === 0
          ? { ...propertyBody(`FZ-${n}`, 1), units: [{ name: 'Taken', external_id: w.villaA.aliases[0] }] }
          : propertyBody(`FZ-${n}`, 2);
    case 'PUT /properties/:property':
      return {
        name: `Fuzzed ${n}`,
        description: 'Fuzzed description.',
        property_type: 'cottage',
        property_category: 'resort_hotel',
        address: { city: 'Margao', latitude: 15.2, formatted_address: 'Somewhere' },
        space: { bedrooms: 2 },
        occupancy: { min_guests: 1, max_guests: 5 },
        pricing: { weekday: { base_price: 5100, extra_adult_price: 10 }, weekend: { per_night_occupancy: 3 } },
        features: { is_veg: true, max_pets: 1, pet_charges: null },
        units: [
          { inventory_id: w.villaA.unitIds[1], name: `Room B${n}`, code: 'RB', max_occupancy: 3, is_active: n % 2 === 0 },
          { external_id: w.villaA.aliases[2], code: null },
        ],
      };
    case 'POST /properties/bulk':
      return { properties: [propertyBody(`FZ-${n}-a`, 1), propertyBody(`FZ-${n}-b`, 1)] };
    case 'PUT /properties/bulk':
      return {
        properties: [
          { doorloom_id: w.villaA.id, name: `Bulk ${n}` },
          { external_id: w.shared.externalIdA, description: 'Bulk description', units: [{ inventory_id: w.shared.unitIds[0], name: 'Shared room' }] },
        ],
      };
    case 'POST /bookings':
      return {
        // now and then a duplicate, a stay someone already holds (409), or an archived property
        external_booking_id: n % 13 === 0 ? w.bookingA.externalId : `FZB-${n}`,
        property: n % 3 === 0 ? { doorloom_id: w.shared.id } : n % 17 === 0 ? { external_id: w.archivedA.externalId } : { external_id: w.villaA.externalId },
        units: n % 3 === 0 ? [{ adults: 1 }] : [{ external_unit_id: w.villaA.aliases[n % 3], adults: 2, children: 1, meal_plan: 'MAP' }],
        check_in: `@day:${n % 5 === 0 ? 10 : offset}`,
        check_out: `@day:${n % 5 === 0 ? 12 : offset + 2}`,
        guest: { name: 'Fuzz Guest', phone_code: '+91', mobile: '9876543210' },
        pricing: { total: 12000.5, currency: 'INR' },
        status: n % 2 === 0 ? 'pending' : 'confirmed',
        notes: 'Fuzzed.',
        source: { channel: n % 4 === 0 ? 'direct' : 'airbnb', reference: `R-${n}` },
      };
    case 'PATCH /bookings/:id':
    case 'PATCH /bookings/external/:external_booking_id':
      if (n % 3 === 0) return { notes: `Patched ${n}`, guest: { name: 'Patched Guest' } };
      if (n % 3 === 1) return { status: ['pending', 'confirmed', 'cancelled', 'completed', 'refunded'][n % 5], reason: 'Changed plans.' };
      return {
        notes: `Patched ${n}`,
        guest: { name: 'Patched Guest', phone_code: null, mobile: '99' },
        pricing: { total: 13000, currency: 'INR' },
        source: { reference: `P-${n}` },
        status: 'confirmed',
        check_in: `@day:${offset}`,
        check_out: `@day:${offset + 3}`,
        units: [{ adults: 1, meal_plan: 'EP' }],
        reason: null,
      };
    case 'POST /bookings/:id/cancel':
    case 'POST /bookings/external/:external_booking_id/cancel':
      return { reason: 'Guest asked.', refund_note: 'Full refund.' };
    case 'POST /sync':
      return { property_ids: [w.villaA.id, w.shared.id], types: ['availability', 'rates.changed', 'property'] };
    // A's brand is a sandbox: its test helpers are fuzzed like every other route (B's calls are 404).
    case 'POST /sandbox/properties/:property/bookings':
      // nights the world blocks on A's villa (beforeAll) and no generated edit reaches: there, 409 UNAVAILABLE
      return { check_in: '@day:700', check_out: '@day:702', units: [{ adults: 1 }], guest: { name: 'Sandbox Fuzz' } };
    case 'POST /sandbox/bookings/:id/cancel':
      return { reason: 'Host cancelled.' };
    case 'POST /sandbox/properties/:property/block':
      return { from: `@day:${offset}`, to: `@day:${offset + 1}`, block_scope: n % 2 === 0 ? 'everywhere' : 'ota_only' };
    case 'POST /sandbox/properties/:property/unblock':
      return { from: `@day:${offset}`, to: `@day:${offset + 3}` };
    case 'POST /sandbox/properties/:property/rate-override':
      return { from: `@day:${offset}`, to: `@day:${offset + 1}`, base_price: 4500 };
    case 'POST /sandbox/properties/:property/restriction-override':
      return { from: `@day:${offset}`, to: `@day:${offset + 1}`, min_stay: 2, stop_sell: n % 2 === 0 };
    case 'POST /sandbox/clock/advance':
      // refused: a moved brand clock would put A's today past the world's nights, which are counted
      // on the service clock (the move itself is tested in tenant-isolation.test.ts)
      return { days: 0 };
    default:
      return {};
  }
}

/** Valid bodies of the staff API, by `METHOD /path` relative to the prefix. */
function staffBody(key: string): unknown {
  const n = ++counter;
  const offset = 5 + ((n * 7) % 600);
  const window = { from: `@day:${offset}`, to: `@day:${offset + 3}` };
  switch (key) {
    case 'POST /brands':
      return { name: `Fuzz brand ${n}` };
    case 'PUT /brands/:id/plan':
      return { active: n % 3 !== 0 };
    case 'POST /brands/:id/properties':
      return propertyBody(null, 2);
    case 'POST /integrations':
      return {
        brand_id: w.a.brandId,
        name: `Fuzz integration ${n}`,
        slug: `fuzz-${n}`,
        webhook: { url: 'http://127.0.0.1:9/hook', event_types: ['booking.changed', 'property.changed'], timeout_seconds: 5 },
        horizon_days: 30,
      };
    case 'PATCH /integrations/:id':
      return {
        name: `Renamed ${n}`,
        webhook: { url: 'http://127.0.0.1:9/other', event_types: ['availability.changed'], timeout_seconds: 3 },
        horizon_days: 31,
        status: 'active',
      };
    case 'PUT /integrations/:id/coverage/:property_id':
      return { external_id: `COV-${n}` };
    case 'POST /clock':
      return { advance_seconds: 60 };
    case 'PATCH /properties/:id':
      return { name: `Host edit ${n}`, address: { city: 'Margao' }, occupancy: { max_guests: 5 }, pricing: { weekday: { base_price: 5100 } } };
    case 'PUT /properties/:id/calendar':
      return { ...window, inventory_ids: [w.shared.unitIds[1]], block_scope: 'ota_only', units_cap: 2 };
    case 'PUT /properties/:id/rates':
      return { ...window, base_price: 6000, extra_adult_price: 100, extra_child_price: 50 };
    case 'PUT /properties/:id/restrictions':
      return {
        ...window,
        rules: { min_stay: 1, max_stay: 20, min_advance_days: 0, max_advance_days: 700 },
        min_stay: 2,
        max_stay: 10,
        stop_sell: false,
        closed_to_arrival: true,
        closed_to_departure: false,
      };
    case 'PUT /properties/:id/meal-plans':
      return [{ code: 'CP', adult_price: 300, child_price: 150 }];
    case 'PUT /properties/:id/tax':
      return { gst_applicable: true, price_includes_gst: n % 2 === 0 };
    case 'POST /properties/:id/bookings':
      return {
        external_booking_id: `FZH-${n}`,
        units: [{ adults: 1 }],
        check_in: `@day:${offset}`,
        check_out: `@day:${offset + 1}`,
        guest: { name: 'Host Guest' },
        pricing: { total: 100 },
        status: 'confirmed',
      };
    case 'PATCH /bookings/:id':
      return { notes: `Host ${n}`, status: 'confirmed', guest: { name: 'Host Guest' } };
    case 'POST /bookings/:id/cancel':
      return { reason: 'Host cancelled.' };
    default:
      return {};
  }
}

/** Candidate values of a path parameter, by the segment before it. */
function poolOf(api: boolean, segment: string, param: string): { pool: string[]; recent: string[] } {
  const s = (...values: Array<string | number>) => values.map(String);
  const properties = s(
    w.villaA.id,
    w.villaA.externalId,
    w.archivedA.id,
    w.archivedA.externalId,
    w.shared.id,
    w.shared.externalIdA,
    w.villaB.id,
    w.villaB.externalId,
    w.shared.externalIdC,
    w.uncovered.id,
    999_999,
  );
  const bookingIds = s(w.bookingA.id, w.bookingASharedProperty.id, w.hostBookingShared.id, w.bookingB.id, w.bookingC.id, w.hostBookingUncovered.id, 999_999);
  if (param === 'external_booking_id') {
    return {
      pool: s(
        w.bookingA.externalId,
        w.bookingASharedProperty.externalId,
        w.hostBookingShared.externalId,
        w.bookingB.externalId,
        w.bookingC.externalId,
        w.hostBookingUncovered.externalId,
        'FZB-1',
      ),
      recent: recent.externalBookings,
    };
  }
  if (param === 'property_id' || segment === 'properties')
    return { pool: api ? properties : s(w.villaA.id, w.archivedA.id, w.shared.id, w.uncovered.id, w.villaB.id, 999_999), recent: recent.properties };
  if (segment === 'bookings') return { pool: bookingIds, recent: recent.bookings };
  if (segment === 'brands') return { pool: s(w.a.brandId, w.b.brandId, 999_999), recent: recent.brands };
  if (segment === 'integrations') return { pool: s(w.a.id, w.b.id, w.c.id, w.disabled.id, 999_999), recent: recent.integrations };
  if (segment === 'jobs') return { pool: ['inactive-sweep', 'retention', 'horizon-roll', 'no-such-job'], recent: [] };
  return { pool: ['1', '999999'], recent: [] };
}

function paramValue(api: boolean, route: RegisteredRoute, param: string, plan: ParamPlan): string {
  const segments = route.url.split('/');
  const segment = segments[segments.indexOf(`:${param}`) - 1] ?? '';
  const { pool: candidates, recent: recentOnes } = poolOf(api, segment, param);
  // The sandbox's archive spares the two properties every other route books on.
  const spared = [w.villaA.id, w.villaA.externalId, w.shared.id, w.shared.externalIdA].map(String);
  // The sandbox's host booking aims at A's villa most of the time: its blocked nights are where 409 UNAVAILABLE is reached.
  const aimed = [w.villaA.id, w.villaA.externalId, w.villaA.id, w.villaA.externalId].map(String);
  const archive = route.url.endsWith('/sandbox/properties/:property/archive');
  const latest = archive ? recentOnes.filter((p) => !spared.includes(p)) : recentOnes;
  const pool = archive
    ? candidates.filter((p) => !spared.includes(p))
    : route.url.endsWith('/sandbox/properties/:property/bookings')
      ? [...aimed, ...candidates]
      : candidates;
  switch (plan.kind) {
    case 'pool':
      return encodeSegment(pool[plan.pick % pool.length]);
    case 'recent':
      return encodeSegment(latest.length > 0 ? latest[latest.length - 1 - (plan.pick % Math.min(latest.length, 5))] : pool[plan.pick % pool.length]);
    case 'text':
      return encodeSegment(plan.text);
    case 'raw':
      return plan.text;
  }
}

function authorization(api: boolean, form: string): string | undefined {
  const own = api ? w.a.apiKey : STAFF_TOKEN;
  switch (form) {
    case 'valid':
      return `Bearer ${own}`;
    case 'other-brand':
      return `Bearer ${w.b.apiKey}`;
    case 'same-brand':
      return `Bearer ${w.c.apiKey}`;
    case 'disabled':
      return `Bearer ${w.disabled.apiKey}`;
    case 'staff':
      return `Bearer ${STAFF_TOKEN}`;
    case 'integration-on-staff':
      return `Bearer ${w.a.apiKey}`;
    case 'none':
      return undefined;
    case 'lowercase-bearer':
      return `bearer ${own}`;
    case 'basic':
      return `Basic ${Buffer.from(`${own}:`).toString('base64')}`;
    case 'double-space':
      return `Bearer  ${own}`;
    case 'trailing-garbage':
      return `Bearer ${own} extra`;
    case 'unknown-key':
      return `Bearer dlk_${'0'.repeat(40)}`;
    case 'empty-bearer':
      return 'Bearer ';
    default:
      return own; // token-only: no scheme
  }
}

function idempotencyKey(form: string): string | undefined {
  switch (form) {
    case 'fresh':
      return (lastKey = newKey());
    case 'reuse':
      return lastKey;
    case 'fixed':
      return FIXED_KEY;
    case 'none':
      return undefined;
    case 'short':
      return 'short-7';
    case 'long':
      return 'k'.repeat(129);
    case 'spaces':
      return 'key with spaces 123';
    case 'non-ascii':
      return 'ключ-идемпотентности';
    default:
      return '';
  }
}

const SNAPSHOT = /\/(availability|rates|restrictions)$/;
const HAS_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface Realised {
  method: InjectOptions['method'];
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function realise(api: boolean, list: RegisteredRoute[], plan: RequestPlan): Realised {
  const prefix = api ? API_PREFIX : STAFF_PREFIX;
  const route = list[plan.route % list.length];
  const method = plan.method ?? route.method;
  const values = Object.fromEntries(route.params.map((p, i) => [p, paramValue(api, route, p, plan.params[i % plan.params.length])]));
  let url = fillPath(route.url, values);

  const dayOf = (n: number) => day(ctx, n);
  const own = queryNames.get(`${route.method} ${route.url}`) ?? [];
  const nameOf = (k: string) => {
    const m = /^@own:(\d+)$/.exec(k);
    return m ? (own.length > 0 ? own[Number(m[1]) % own.length] : QUERY_NAMES[Number(m[1]) % QUERY_NAMES.length]) : k;
  };
  const query = plan.query.pairs.map(([k, v]) => `${encodeSegment(nameOf(k))}=${encodeSegment(String(resolveDays(v, dayOf)))}`);
  if (plan.query.window && SNAPSHOT.test(route.url)) {
    query.push(`from=${dayOf(plan.query.window.from)}`, `to=${dayOf(plan.query.window.from + plan.query.window.nights)}`);
  }
  if (plan.query.raw) query.push(plan.query.raw);
  if (query.length > 0) url += `?${query.join('&')}`;

  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [k, v] of plan.headers) headers[k] = v;
  const auth = authorization(api, plan.auth);
  if (auth !== undefined) headers.authorization = auth;
  const key = idempotencyKey(plan.idempotency);
  if (key !== undefined && method === 'POST') headers['idempotency-key'] = key;
  if (plan.ifMatch !== null) headers['if-match'] = plan.ifMatch;

  let payload: string | undefined;
  if (HAS_BODY.has(method)) {
    const base = () => resolveDays((api ? apiBody : staffBody)(routeKeyOf({ ...route, method }, prefix)), dayOf);
    switch (plan.body.kind) {
      case 'valid':
        payload = JSON.stringify(base());
        break;
      case 'mutate': {
        const body = mutate(base(), plan.body.edits);
        payload = body === undefined ? undefined : JSON.stringify(resolveDays(body, dayOf));
        break;
      }
      case 'json':
        payload = JSON.stringify(plan.body.value);
        break;
      case 'raw':
        payload = plan.body.text;
        break;
      case 'none':
        break;
    }
    if (payload !== undefined && plan.contentType !== null) headers['content-type'] = plan.contentType;
  }
  return { method: method as InjectOptions['method'], url, headers, ...(payload !== undefined ? { payload } : {}) };
}

// ---------------------------------------------------------------------------------------------
// The checks

function check(api: boolean, request: Realised, res: LightMyRequestResponse): void {
  const fail = (why: string) => {
    throw new Error(`${why}\n${describeExchange(request, res)}`);
  };
  if (res.statusCode >= 500) fail('a 5xx answer');
  if (res.statusCode < 200) fail('an informational answer');
  if (api && (res.headers['x-ratelimit-limit'] === undefined || res.headers['x-ratelimit-remaining'] === undefined)) fail('no X-RateLimit fields');
  if (request.method === 'HEAD') return;
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) fail('not JSON');
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    fail('a body that is not JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) fail('not a JSON object');
  if (typeof body.success !== 'boolean' || typeof body.message !== 'string' || body.message === '') fail('no success/message');
  if (res.statusCode < 400) {
    if (body.success !== true || !('data' in body)) fail('a success without success: true and data');
    return;
  }
  if (body.success !== false) fail('a failure with success: true');
  if (typeof body.code !== 'string' || !/^[A-Z][A-Z_]*$/.test(body.code)) fail('a failure without a code');
  if ('data' in body) fail('a failure with data');
  if ('errors' in body) {
    if (body.errors === null || typeof body.errors !== 'object' || Array.isArray(body.errors)) fail('errors is not an object');
    if (body.code === 'VALIDATION_FAILED') {
      for (const [key, messages] of Object.entries(body.errors)) {
        if (key === '' || !Array.isArray(messages) || messages.length === 0 || messages.some((m) => typeof m !== 'string'))
          fail(`errors.${key} is not a list of messages`);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The runner

interface Stats {
  requests: number;
  byStatus: Map<number, number>;
  byCode: Map<string, number>;
  /** Distinct failures: route, status and kind → the exchange and the plan. */
  failures: Map<string, string>;
  byRoute: Map<string, Map<number, number>>;
}

function remember(api: boolean, request: Realised, res: LightMyRequestResponse): void {
  if (res.statusCode !== 201 && res.statusCode !== 200) return;
  let data: any;
  try {
    data = JSON.parse(res.body).data;
  } catch {
    return;
  }
  if (!data || typeof data !== 'object') return;
  const push = (list: string[], value: unknown) => {
    if (value !== null && value !== undefined && list.length < 200) list.push(typeof value === 'string' ? value : JSON.stringify(value));
  };
  if (request.url.includes('/properties') && 'doorloom_id' in data) {
    push(recent.properties, data.doorloom_id);
    if (api) push(recent.properties, data.external_id);
  }
  if (request.url.includes('bookings') && typeof data.id === 'number') {
    push(recent.bookings, data.id);
    push(recent.externalBookings, data.external_booking_id);
  }
  if (!api && data.integration) push(recent.integrations, data.integration.id);
  if (!api && request.url.endsWith('/brands')) push(recent.brands, data.id);
}

async function fuzz(api: boolean, runs: number): Promise<Stats> {
  const prefix = api ? API_PREFIX : STAFF_PREFIX;
  const list = routes.filter((r) => r.url.startsWith(`${prefix}/`) && r.method !== 'HEAD');
  const stats: Stats = { requests: 0, byStatus: new Map(), byCode: new Map(), byRoute: new Map(), failures: new Map() };
  let state: Digest = await tableDigest(ctx);

  await fc.assert(
    fc.asyncProperty(requestPlans(list.length), async (plan) => {
      if (api && stats.requests % REQUESTS_PER_WINDOW === 0) {
        await ctx.advanceClock(60);
        state = await tableDigest(ctx);
      }
      const request = realise(api, list, plan);
      const res = await ctx.app.inject(request);
      stats.requests++;
      const route = routeKeyOf({ ...list[plan.route % list.length], method: request.method ?? 'GET' }, prefix);
      stats.byStatus.set(res.statusCode, (stats.byStatus.get(res.statusCode) ?? 0) + 1);
      const perRoute = stats.byRoute.get(route) ?? new Map<number, number>();
      perRoute.set(res.statusCode, (perRoute.get(res.statusCode) ?? 0) + 1);
      stats.byRoute.set(route, perRoute);

      const after = await tableDigest(ctx);
      try {
        check(api, request, res);
        if (res.statusCode >= 400) {
          const changed = changedTables(state, after);
          if (changed.length > 0) throw new Error(`a refusal wrote to ${changed.join(', ')}\n${describeExchange(request, res)}`);
        }
      } catch (error) {
        // Every distinct failure (route and kind) is kept, and the run goes on: one run shows them all.
        const message = (error as Error).message;
        const signature = `${route} ${res.statusCode} ${message.split('\n')[0]}`;
        if (!stats.failures.has(signature)) stats.failures.set(signature, `${message}\n  plan: ${JSON.stringify(plan)}`);
      }
      if (res.statusCode >= 400 && request.method !== 'HEAD' && res.body.startsWith('{')) {
        const code = String(JSON.parse(res.body).code);
        stats.byCode.set(code, (stats.byCode.get(code) ?? 0) + 1);
      }
      state = after;
      remember(api, request, res);
    }),
    { seed: SEED, numRuns: runs },
  );
  return stats;
}

/** Generous: a request takes a few milliseconds; the timeout only catches a hung run. */
const timeoutFor = (runs: number) => 120_000 + runs * 100;

function report(label: string, stats: Stats, ms: number): void {
  const statuses = [...stats.byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const lines = [...stats.byRoute.entries()].sort().map(
    ([route, counts]) =>
      `  ${route.padEnd(58)} ${[...counts.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
  );
  const codes = [...stats.byCode.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  const perRoute = process.env.FUZZ_VERBOSE ? `\n${lines.join('\n')}` : '';
  console.log(`${label}: ${stats.requests} requests in ${(ms / 1000).toFixed(1)} s (seed ${SEED})\n  statuses: ${statuses}\n  codes: ${codes}${perRoute}`);
}

describe('fuzzing every endpoint', () => {
  it('sees a committed write, even of the same values, and no rolled-back one (the refusal check can fail)', async () => {
    const before = await tableDigest(ctx);
    await ctx.deps.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('brands').set({ name: 'Rolled back' }).where('id', '=', w.a.brandId).execute();
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(changedTables(before, await tableDigest(ctx))).toEqual([]);
    await ctx.deps.db
      .updateTable('brands')
      .set((eb) => ({ name: eb.ref('name') }))
      .where('id', '=', w.a.brandId)
      .execute();
    expect(changedTables(before, await tableDigest(ctx))).toEqual(['brands']);
  });

  it('reads the routes from the app (the integrations API part agrees with the rate limiter’s own list)', () => {
    const api = routes.filter((r) => r.url.startsWith(`${API_PREFIX}/`)).map((r) => `${r.method} ${r.url}`);
    expect(api.sort()).toEqual([...ctx.app.rateLimiter.routes.keys()].sort());
    expect(routes.filter((r) => r.url.startsWith(`${STAFF_PREFIX}/`)).length).toBeGreaterThan(20);
  });

  it(
    `integrations API: ${API_RUNS} generated requests, no 5xx, always the envelope, no write on a refusal`,
    async () => {
      const started = performance.now();
      const stats = await fuzz(true, API_RUNS);
      report('integrations API fuzz', stats, performance.now() - started);
      expect([...stats.failures.values()]).toEqual([]);
      // the generator reaches every route, and deep enough to succeed as well as to be refused
      const list = routes.filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.method !== 'HEAD');
      for (const route of list) expect(stats.byRoute.get(routeKeyOf(route, API_PREFIX)), `${route.method} ${route.url}`).toBeDefined();
      // the requests reach the refusals deep in the services, not only the validators (in a run of the default size or more)
      if (API_RUNS >= 2500) {
        for (const code of [
          'VALIDATION_FAILED',
          'NOT_FOUND',
          'IDEMPOTENCY_KEY_REQUIRED',
          'INVALID_STATUS_TRANSITION',
          'PROPERTY_ARCHIVED',
          'PROPERTY_EXTERNAL_ID_EXISTS',
          'UNAVAILABLE',
        ]) {
          expect(stats.byCode.get(code), code).toBeGreaterThan(0);
        }
      }
      const count = (predicate: (s: number) => boolean) => [...stats.byStatus.entries()].filter(([s]) => predicate(s)).reduce((sum, [, n]) => sum + n, 0);
      expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(API_RUNS * 0.1);
      expect(count((s) => s === 422)).toBeGreaterThan(API_RUNS * 0.1);
    },
    timeoutFor(API_RUNS),
  );

  it(
    `staff API: ${STAFF_RUNS} generated requests, no 5xx, always the envelope, no write on a refusal`,
    async () => {
      const started = performance.now();
      const stats = await fuzz(false, STAFF_RUNS);
      report('staff API fuzz', stats, performance.now() - started);
      expect([...stats.failures.values()]).toEqual([]);
      const count = (predicate: (s: number) => boolean) => [...stats.byStatus.entries()].filter(([s]) => predicate(s)).reduce((sum, [, n]) => sum + n, 0);
      expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(STAFF_RUNS * 0.1);
    },
    timeoutFor(STAFF_RUNS),
  );
});
