import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import { addressBucket, ENDPOINT_TIERS, OVERALL_ONLY, routeKey } from '../../src/http/rate-limit.tiers.js';
import { createTestContext, STAFF_TOKEN, type TestContext, type TestIntegration } from '../helpers/context.js';
import { call, expectRateLimited, freshAddress, rateHeaders, remainingOf, startOfNextWindow } from './rate-limit.helpers.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Request = [InjectOptions['method'], string, unknown?];

const window = 'from=2030-01-01&to=2030-01-05';

/**
 * Every endpoint of each tier, by its documented path. Ids are unknown on purpose: a refused or
 * failed request counts like any other, and nothing is written.
 */
const TIERS: Array<{ name: string; limit: number; requests: Request[] }> = [
  {
    name: 'property reads',
    limit: 120,
    requests: [
      ['GET', '/properties'],
      ['GET', '/properties/999999'],
      ['GET', `/properties/999999/availability?${window}`],
      ['GET', `/properties/999999/rates?${window}`],
      ['GET', `/properties/999999/restrictions?${window}`],
    ],
  },
  { name: 'event replay', limit: 120, requests: [['GET', '/events']] },
  {
    name: 'booking reads',
    limit: 120,
    requests: [
      ['GET', '/bookings'],
      ['GET', '/bookings/999999'],
      ['GET', '/bookings/external/no-such-booking'],
    ],
  },
  {
    name: 'booking writes',
    limit: 60,
    requests: [
      ['POST', '/bookings', {}],
      ['PATCH', '/bookings/999999', {}],
      ['PATCH', '/bookings/external/no-such-booking', {}],
      ['POST', '/bookings/999999/cancel'],
      ['POST', '/bookings/external/no-such-booking/cancel'],
    ],
  },
  {
    name: 'property writes',
    limit: 30,
    requests: [
      ['POST', '/properties', {}],
      ['PUT', '/properties/999999', {}],
    ],
  },
  {
    name: 'bulk property writes',
    limit: 6,
    requests: [
      ['POST', '/properties/bulk', {}],
      ['PUT', '/properties/bulk', {}],
    ],
  },
];

describe('the tier table', () => {
  it('classifies every documented path with the contract’s numbers', () => {
    const limits = Object.fromEntries(Object.entries(ENDPOINT_TIERS).map(([key, tier]) => [key, tier.limit]));
    expect(limits).toEqual({
      'GET /me': 60,
      'GET /properties': 120,
      'GET /properties/{property}': 120,
      'GET /properties/{property}/availability': 120,
      'GET /properties/{property}/rates': 120,
      'GET /properties/{property}/restrictions': 120,
      'GET /events': 120,
      'GET /bookings': 120,
      'GET /bookings/{id}': 120,
      'GET /bookings/external/{external_booking_id}': 120,
      'POST /bookings': 60,
      'PATCH /bookings/{id}': 60,
      'PATCH /bookings/external/{external_booking_id}': 60,
      'POST /bookings/{id}/cancel': 60,
      'POST /bookings/external/{external_booking_id}/cancel': 60,
      'POST /properties': 30,
      'PUT /properties/{property}': 30,
      'POST /properties/bulk': 6,
      'PUT /properties/bulk': 6,
      // additions to the contract's tiers (docs/decisions.md)
      'GET /deliveries': 60,
      'POST /sandbox/properties/{property}/bookings': 60,
      'POST /sandbox/bookings/{id}/cancel': 60,
      'POST /sandbox/properties/{property}/block': 60,
      'POST /sandbox/properties/{property}/unblock': 60,
      'POST /sandbox/properties/{property}/rate-override': 60,
      'POST /sandbox/properties/{property}/restriction-override': 60,
      'POST /sandbox/properties/{property}/archive': 60,
      'GET /sandbox/clock': 60,
      'POST /sandbox/clock/advance': 60,
    });
  });

  it('every registered route of the integrations API is in the table (POST /sync: overall tiers only), and every entry is registered', () => {
    const registered = new Set<string>();
    for (const [route, tier] of ctx.app.rateLimiter.routes) {
      const [method, url] = route.split(' ');
      if (method === 'HEAD' || !url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}/test/`)) continue;
      const key = routeKey(method, url.slice(API_PREFIX.length));
      registered.add(key);
      const listed = Object.entries(ENDPOINT_TIERS).find(([k]) => routeKey(k.split(' ')[0], k.split(' ')[1]) === key);
      if (OVERALL_ONLY.includes(key)) expect(tier, route).toBeNull();
      else expect(tier, `${route} has no rate tier`).toBe(listed?.[1]);
    }
    for (const key of [...Object.keys(ENDPOINT_TIERS), ...OVERALL_ONLY]) {
      expect(registered.has(routeKey(key.split(' ')[0], key.split(' ')[1])), `${key} is not registered`).toBe(true);
    }
  });

  it('keys routes by pattern, whatever the parameter is called; HEAD counts as GET', () => {
    expect(routeKey('GET', '/properties/:id/rates')).toBe(routeKey('GET', '/properties/{property}/rates'));
    expect(routeKey('HEAD', '/me')).toBe('GET /me');
    expect(routeKey('PUT', '/properties/bulk')).not.toBe(routeKey('PUT', '/properties/:property'));
  });

  it('counts IPv4-mapped addresses as IPv4 and IPv6 per /64', () => {
    expect(addressBucket('203.0.113.9')).toBe('203.0.113.9');
    expect(addressBucket('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressBucket('2001:db8:1:2::5')).toBe(addressBucket('2001:0db8:0001:0002:ffff:0:0:6'));
    expect(addressBucket('2001:db8:1:2::5')).not.toBe(addressBucket('2001:db8:1:3::5'));
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('GET /me: 60 per minute', () => {
  it('counts down, refuses the 61st with 429, Retry-After and errors.retry_after, and starts over in the next window', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    for (let n = 1; n <= 60; n++) {
      const res = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip });
      expect(res.statusCode).toBe(200);
      const headers = rateHeaders(res);
      expect([headers.limit, headers.remaining]).toEqual([60, 60 - n]);
      expect(headers.policies.map((p) => [p.name, p.params.q])).toEqual([
        ['me', 60],
        ['integration', 300],
        ['ip', 600],
      ]);
      expect(headers.limits.map((l) => l.params.r)).toEqual([60 - n, 300 - n, 600 - n]);
    }
    const refused = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip });
    expectRateLimited(refused, ctx, 60);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(50); // the window started a moment ago

    // still refused a few seconds before the window ends; waiting Retry-After is enough
    await ctx.advanceClock(retryAfter - 5);
    expectRateLimited(await call(ctx.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 60);
    await ctx.advanceClock(5);
    const next = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip });
    expect(next.statusCode).toBe(200);
    expect([rateHeaders(next).limit, rateHeaders(next).remaining]).toEqual([60, 59]);
  });

  it('HEAD /me shares the GET budget', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    for (let n = 1; n <= 30; n++) expect((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(200);
    for (let n = 1; n <= 30; n++) expect((await call(ctx.app, integration.apiKey, 'HEAD', '/me', { ip })).statusCode).toBe(200);
    expect((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(429);
  });
});

describe.each(TIERS)('$name: $limit per minute, shared by its endpoints', ({ limit, requests }) => {
  it('counts every endpoint of the tier, refuses the next, leaves other tiers alone, and starts over in the next window', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    const send = (n: number) => {
      const [method, path, body] = requests[n % requests.length];
      return call(ctx.app, integration.apiKey, method, path, { ip, body });
    };
    for (let n = 0; n < limit; n++) {
      const res = await send(n);
      expect(res.statusCode, `${requests[n % requests.length].join(' ')}: ${res.body}`).not.toBe(429);
      expect(res.statusCode).toBeLessThan(500);
      const headers = rateHeaders(res);
      expect([headers.limit, headers.remaining]).toEqual([limit, limit - n - 1]);
    }
    for (let n = 0; n < requests.length; n++) expectRateLimited(await send(n), ctx, limit);

    // tiers are independent under the overall ceiling
    const me = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip });
    expect(me.statusCode).toBe(200);
    expect(remainingOf(me, 'me')).toBe(59);
    // the refused requests counted against the overall tier too
    expect(remainingOf(me, 'integration')).toBe(300 - limit - requests.length - 1);

    await startOfNextWindow(ctx);
    const next = await send(0);
    expect(next.statusCode).not.toBe(429);
    expect([rateHeaders(next).limit, rateHeaders(next).remaining]).toEqual([limit, limit - 1]);
  });
});

describe('overall: 300 per integration per minute', () => {
  it('binds across tiers: 60 + 120 + 120 calls in three tiers, then any call is refused, and another integration is not', async () => {
    const integration = await ctx.createIntegration();
    const other = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    const plan: Array<[string, number]> = [
      ['/me', 60],
      ['/properties', 120],
      ['/events', 120],
    ];
    let n = 0;
    for (const [path, count] of plan) {
      for (let i = 0; i < count; i++) {
        const res = await call(ctx.app, integration.apiKey, 'GET', path, { ip });
        expect(res.statusCode).toBe(200);
        n++;
        expect(remainingOf(res, 'integration')).toBe(300 - n);
      }
    }
    // the booking-read tier is untouched (120 left) but the integration has spent its 300
    const refused = await call(ctx.app, integration.apiKey, 'GET', '/bookings', { ip });
    expectRateLimited(refused, ctx, 300);
    expect(remainingOf(refused, 'booking-reads')).toBe(119);
    expect(refused.json().message).toContain('300');
    expectRateLimited(await call(ctx.app, integration.apiKey, 'POST', '/sync', { ip }), ctx, 300);

    const fine = await call(ctx.app, other.apiKey, 'GET', '/bookings', { ip });
    expect(fine.statusCode).toBe(200);
    expect(remainingOf(fine, 'integration')).toBe(299);

    await startOfNextWindow(ctx);
    expect((await call(ctx.app, integration.apiKey, 'GET', '/bookings', { ip })).statusCode).toBe(200);
  });

  it('counts refused requests: 65 calls of GET /me leave 235 of the overall budget', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    const statuses: number[] = [];
    for (let n = 0; n < 65; n++) statuses.push((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual([429, 429, 429, 429, 429]);
    const res = await call(ctx.app, integration.apiKey, 'GET', '/events', { ip });
    expect(remainingOf(res, 'integration')).toBe(300 - 66);
    expect(remainingOf(res, 'ip')).toBe(600 - 66);
    expect([rateHeaders(res).limit, rateHeaders(res).remaining]).toEqual([120, 119]);
  });

  it('counts POST /sync in the overall tiers only', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    const res = await call(ctx.app, integration.apiKey, 'POST', '/sync', { ip });
    expect(res.statusCode).toBeLessThan(500);
    expect(parseNames(res)).toEqual(['integration', 'ip']);
    expect(remainingOf(res, 'integration')).toBe(299);
  });
});

function parseNames(res: Awaited<ReturnType<typeof call>>): string[] {
  return String(res.headers['ratelimit-policy'])
    .split(/\s*,\s*/)
    .map((item) => JSON.parse(item.split(';')[0]) as string);
}

describe('per source IP: 600 per minute, authenticated or not', () => {
  it('counts unauthenticated requests, refuses the 601st with 429 before checking the key, and binds authenticated calls from that address', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    for (let n = 1; n <= 599; n++) {
      const res = await call(ctx.app, n % 2 ? null : 'dlk_wrong', 'GET', '/me', { ip });
      expect(res.statusCode).toBe(401);
      const headers = rateHeaders(res);
      expect([headers.limit, headers.remaining]).toEqual([600, 600 - n]);
      expect(headers.policies.map((p) => p.name)).toEqual(['ip']);
    }
    // the 600th, authenticated: counts against the same address budget
    const last = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip });
    expect(last.statusCode).toBe(200);
    expect(remainingOf(last, 'ip')).toBe(0);
    expect([rateHeaders(last).limit, rateHeaders(last).remaining]).toEqual([600, 0]);

    expectRateLimited(await call(ctx.app, null, 'GET', '/me', { ip }), ctx, 600);
    expectRateLimited(await call(ctx.app, 'dlk_wrong', 'GET', '/me', { ip }), ctx, 600);
    expectRateLimited(await call(ctx.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 600);
    expectRateLimited(await call(ctx.app, integration.apiKey, 'GET', '/nope', { ip }), ctx, 600);

    // the same integration from another address is fine, and its budget was not spent by the refusals
    const elsewhere = await call(ctx.app, integration.apiKey, 'GET', '/me', { ip: freshAddress() });
    expect(elsewhere.statusCode).toBe(200);
    expect(remainingOf(elsewhere, 'me')).toBe(58);

    await startOfNextWindow(ctx);
    const unauthenticated = await call(ctx.app, null, 'GET', '/me', { ip });
    expect(unauthenticated.statusCode).toBe(401);
    expect(rateHeaders(unauthenticated).remaining).toBe(599);
    expect((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(200);
  });

  it('binds before the integration’s own 300: two integrations behind one address share its 600', async () => {
    const first = await ctx.createIntegration();
    const second = await ctx.createIntegration();
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    for (const integration of [first, second]) {
      for (const [path, count] of [
        ['/me', 60],
        ['/properties', 120],
        ['/events', 120],
      ] as const) {
        for (let i = 0; i < count; i++) expect((await call(ctx.app, integration.apiKey, 'GET', path, { ip })).statusCode).toBe(200);
      }
    }
    const third = await ctx.createIntegration();
    expectRateLimited(await call(ctx.app, third.apiKey, 'GET', '/me', { ip }), ctx, 600);
    expect((await call(ctx.app, third.apiKey, 'GET', '/me', { ip: freshAddress() })).statusCode).toBe(200);
  });

  it('counts an IPv6 /64 as one source', async () => {
    await startOfNextWindow(ctx);
    const a = await call(ctx.app, null, 'GET', '/me', { ip: '2001:db8:77:1::a' });
    const b = await call(ctx.app, null, 'GET', '/me', { ip: '2001:db8:77:1:ffff::b' });
    const c = await call(ctx.app, null, 'GET', '/me', { ip: '2001:db8:77:2::a' });
    expect([rateHeaders(a).remaining, rateHeaders(b).remaining, rateHeaders(c).remaining]).toEqual([599, 598, 599]);
  });
});

describe('headers on every response of the integrations API', () => {
  let integration: TestIntegration;
  let disabled: TestIntegration;
  beforeAll(async () => {
    integration = await ctx.createIntegration();
    disabled = await ctx.createIntegration();
    expect((await ctx.staff('PATCH', `/integrations/${disabled.id}`, { status: 'disabled' })).statusCode).toBe(200);
  });

  it('successes and failures alike', async () => {
    const ip = freshAddress();
    await startOfNextWindow(ctx);
    const cases: Array<[number, string | null, InjectOptions['method'], string, CallOptionsLike?]> = [
      [200, integration.apiKey, 'GET', '/me'],
      [401, null, 'GET', '/me'],
      [401, 'dlk_wrong', 'GET', '/properties'],
      [403, STAFF_TOKEN, 'GET', '/me'],
      [403, disabled.apiKey, 'GET', '/me'],
      [404, integration.apiKey, 'GET', '/nope'],
      [404, null, 'GET', '/nope'],
      [405, integration.apiKey, 'DELETE', '/me'],
      [404, integration.apiKey, 'GET', '/properties/999999'],
      [422, integration.apiKey, 'GET', '/events?limit=0'],
      [400, integration.apiKey, 'PUT', '/properties/999999', { body: '{"name":' }],
      [415, integration.apiKey, 'PUT', '/properties/999999', { body: 'name=x', headers: { 'content-type': 'text/plain' } }],
      [413, integration.apiKey, 'PUT', '/properties/999999', { body: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }) }],
    ];
    for (const [status, key, method, path, options] of cases) {
      const res = await call(ctx.app, key, method, path, { ip, ...options });
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ success: status < 400, message: expect.any(String) });
      rateHeaders(res);
    }
  });

  it('not on the staff API', async () => {
    const res = await ctx.staff('GET', '/clock');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers.ratelimit).toBeUndefined();
  });
});

type CallOptionsLike = { body?: unknown; headers?: Record<string, string> };

describe('RATE_LIMITS=off (load tests)', () => {
  it('answers past every tier and sends no rate-limit fields', async () => {
    const off = await createTestContext({ RATE_LIMITS: 'off' });
    try {
      const integration = await off.createIntegration();
      for (let i = 0; i < 70; i++) {
        const res = await off.api(integration.apiKey, 'GET', '/me');
        expect(res.statusCode).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await off.close();
    }
  });
});
