import { Signals } from '../../src/signals.js';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, STAFF_PREFIX } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { createClock } from '../../src/lib/clock.js';
import { createTestContext, databaseUrl, failure, poolMode, STAFF_TOKEN, type TestContext } from '../helpers/context.js';

// The staff API's limits as shipped (600 calls and 10 failed authentications a minute per
// address), not the raised ones the other suites run with.
let ctx: TestContext;
let small: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ STAFF_RATE_LIMIT: '', STAFF_AUTH_FAILURE_LIMIT: '' });
  small = await createTestContext({ STAFF_RATE_LIMIT: '25', STAFF_AUTH_FAILURE_LIMIT: '' });
});
afterAll(async () => {
  await ctx?.close();
  await small?.close();
});

let counter = 0;
const freshAddress = () => `203.0.113.${++counter}`;

function call(c: Pick<TestContext, 'app'>, ip: string, token: string | null, path = '/staff-tokens') {
  return c.app.inject({ method: 'GET', url: STAFF_PREFIX + path, remoteAddress: ip, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/** Lines the test up with the start of a fresh window of the service clock. */
function startOfNextWindow(c: TestContext) {
  const now = c.deps.clock.nowMs();
  c.deps.clock.setOffsetSeconds(c.deps.clock.offsetSeconds() + (60_000 - (now % 60_000)) / 1000 + 0.05);
}

function expectRateLimited(res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toMatchObject(failure('RATE_LIMITED'));
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.json().errors).toEqual({ retry_after: retryAfter });
}

describe('staff API rate limits', () => {
  it('the defaults are 600 calls and 10 failed authentications a minute', () => {
    expect(ctx.deps.config.staffRateLimit).toBe(600);
    expect(ctx.deps.config.staffAuthFailureLimit).toBe(10);
  });

  it('10 failed authentications answer 401; then the address is refused 429, the right token too, until the window ends', async () => {
    startOfNextWindow(ctx);
    const ip = freshAddress();
    const wrong = `dls_${'x'.repeat(40)}`;
    const attempts = [wrong, 'nonsense', `dlk_${'x'.repeat(40)}`, wrong, wrong, wrong, wrong, wrong, wrong, wrong];
    for (const token of attempts) {
      const res = await call(ctx, ip, token);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(failure('UNAUTHENTICATED'));
    }
    expectRateLimited(await call(ctx, ip, wrong));
    expectRateLimited(await call(ctx, ip, STAFF_TOKEN));

    // another address is not concerned
    expect((await call(ctx, freshAddress(), STAFF_TOKEN)).statusCode).toBe(200);

    startOfNextWindow(ctx);
    expect((await call(ctx, ip, STAFF_TOKEN)).statusCode).toBe(200);
  });

  it('a token that verified from the address keeps working through its lockout; a token new to the address waits', async () => {
    startOfNextWindow(ctx);
    const ip = freshAddress();
    const minted = await ctx.staff('POST', '/staff-tokens', { name: 'new to the address' });
    expect(minted.statusCode, minted.body).toBe(201);
    const other = minted.json().data.token as string;
    expect((await call(ctx, ip, STAFF_TOKEN)).statusCode).toBe(200);
    const wrong = `dls_${'y'.repeat(40)}`;
    for (let n = 0; n < 10; n++) expect((await call(ctx, ip, wrong)).statusCode).toBe(401);
    expectRateLimited(await call(ctx, ip, wrong));
    // Known from this address: evaluated, on the staff API, /metrics and the partner API alike.
    expect((await call(ctx, ip, STAFF_TOKEN)).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: ip, headers: { authorization: `Bearer ${STAFF_TOKEN}` } })).statusCode).toBe(
      200,
    );
    const partner = await ctx.app.inject({
      method: 'GET',
      url: '/api/integrations/v1/me',
      remoteAddress: ip,
      headers: { authorization: `Bearer ${STAFF_TOKEN}` },
    });
    expect(partner.json()).toMatchObject(failure('NOT_INTEGRATION_TOKEN'));
    // Right, but never verified from here: not evaluated until the lockout ends.
    expectRateLimited(await call(ctx, ip, other));
    expect((await call(ctx, freshAddress(), other)).statusCode).toBe(200);
    // A second runtime on the same database (another process) knows it too, from the shared table.
    const second = await buildApp({ ...ctx.deps, state: { ...ctx.deps.state, staffVerifiedFrom: new Map(), knownStaffCredentials: new Map() } });
    await second.ready();
    try {
      expect((await call({ app: second }, ip, STAFF_TOKEN)).statusCode).toBe(200);
      expectRateLimited(await call({ app: second }, ip, other));
    } finally {
      await second.close();
    }
    startOfNextWindow(ctx);
    expect((await call(ctx, ip, other)).statusCode).toBe(200);
  });

  it('no credential at all and an integration key are no guesses: they do not lock the address out', async () => {
    startOfNextWindow(ctx);
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    for (let n = 0; n < 15; n++) {
      const res = await call(ctx, ip, integration.apiKey);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(failure('NOT_STAFF_TOKEN'));
      const bare = await call(ctx, ip, null);
      expect(bare.statusCode).toBe(401);
      expect(bare.json()).toEqual(failure('UNAUTHENTICATED'));
    }
    expect((await call(ctx, ip, STAFF_TOKEN)).statusCode).toBe(200);
  });

  it('a malformed Authorization header counts as a failure', async () => {
    startOfNextWindow(ctx);
    const ip = freshAddress();
    const malformed = () =>
      ctx.app.inject({ method: 'GET', url: `${STAFF_PREFIX}/staff-tokens`, remoteAddress: ip, headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    for (let n = 0; n < 10; n++) expect((await malformed()).statusCode).toBe(401);
    expectRateLimited(await malformed());
    expectRateLimited(await call(ctx, ip, STAFF_TOKEN));
  });

  it('1,000 wrong guesses from one address: 10 × 401, then 429', async () => {
    startOfNextWindow(ctx);
    const ip = freshAddress();
    const statuses = new Map<number, number>();
    for (let n = 0; n < 1000; n++) {
      const res = await call(ctx, ip, `dls_${String(n).padStart(40, '0')}`);
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: 10, 429: 990 });
  });

  it('successful calls count against the overall limit per address', async () => {
    startOfNextWindow(small);
    const ip = freshAddress();
    for (let n = 1; n <= 25; n++) {
      const res = await call(small, ip, STAFF_TOKEN);
      expect(res.statusCode).toBe(200);
    }
    expectRateLimited(await call(small, ip, STAFF_TOKEN));
    // IPv6 addresses of one /64 share the allowance
    startOfNextWindow(small);
    for (let n = 1; n <= 25; n++) expect((await call(small, `2001:db8:1:2::${n.toString(16)}`, STAFF_TOKEN)).statusCode).toBe(200);
    expectRateLimited(await call(small, '2001:db8:1:2::ffff', STAFF_TOKEN));
    expect((await call(small, '2001:db8:1:3::1', STAFF_TOKEN)).statusCode).toBe(200);
  });

  it('failures count across instances sharing the database (another process on PostgreSQL)', async () => {
    startOfNextWindow(ctx);
    const database = databaseUrl ? await openDatabase({ url: databaseUrl, dataDir: '', schema: ctx.schema, poolSize: 2, poolMode }) : null;
    // its own clock, set like the first one's, its own counters' view on PostgreSQL
    const app = await buildApp({
      ...ctx.deps,
      db: database ? database.db : ctx.deps.db,
      clock: createClock(ctx.deps.clock.offsetSeconds()),
      log: pino({ level: 'silent' }),
      signals: new Signals(),
    });
    await app.ready();
    try {
      const other = { app };
      const ip = freshAddress();
      for (let n = 0; n < 10; n++) expect((await call(n % 2 ? ctx : other, ip, 'wrong')).statusCode).toBe(401);
      expectRateLimited(await call(ctx, ip, STAFF_TOKEN));
      expectRateLimited(await call(other, ip, STAFF_TOKEN));
    } finally {
      await app.close();
      await database?.close();
    }
  });

  it('RATE_LIMITS=off lifts the staff limits too', async () => {
    const off = await createTestContext({ STAFF_RATE_LIMIT: '2', STAFF_AUTH_FAILURE_LIMIT: '1', RATE_LIMITS: 'off' });
    try {
      const ip = freshAddress();
      for (let n = 0; n < 5; n++) expect((await call(off, ip, 'wrong')).statusCode).toBe(401);
      for (let n = 0; n < 5; n++) expect((await call(off, ip, STAFF_TOKEN)).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });
});
