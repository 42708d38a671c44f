import { Signals } from '../../src/signals.js';
import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock } from '../../src/lib/clock.js';
import { createRuntime } from '../../src/runtime.js';
import { createTestContext, databaseUrl, STAFF_TOKEN, startSecondApp, type SecondApp, type TestContext } from '../helpers/context.js';
import { call, expectRateLimited, freshAddress, rateHeaders, remainingOf, startOfNextWindow } from './rate-limit.helpers.js';

/**
 * Two app instances on one database, each with its own Deps. On PostgreSQL the second is a runtime
 * of its own (connection pool, clock, signals, counters): to the database it is another process.
 * On the embedded engine (one process owns the database) both apps share the runtime's database
 * handle and state, and so the counters.
 */
let ctx: TestContext;
let second: SecondApp;

beforeAll(async () => {
  ctx = await createTestContext();
  const runtime = databaseUrl ? await createRuntime(ctx.deps.config, pino({ level: 'silent' }), { schema: ctx.schema, poolSize: 10 }) : null;
  second = await startSecondApp(
    runtime?.deps ?? {
      ...ctx.deps,
      clock: createClock(ctx.deps.clock.offsetSeconds()),
      log: pino({ level: 'silent' }),
      signals: new Signals(),
    },
    runtime?.database ?? null,
  );
});
afterAll(async () => {
  await second?.close();
  await ctx.close();
});

/** The second instance reads the moved clock the way another process does: from the database. */
async function nextWindowEverywhere() {
  await startOfNextWindow(ctx);
  const res = await second.app.inject({ method: 'GET', url: '/api/staff/v1/clock', headers: { authorization: `Bearer ${STAFF_TOKEN}` } });
  expect(res.statusCode).toBe(200);
  expect(Math.abs(second.deps.clock.nowMs() - ctx.deps.clock.nowMs())).toBeLessThan(1000);
}

describe('two instances on one database count against the same limits', () => {
  it('sequentially: 60 calls of GET /me alternating between them, then both refuse', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await nextWindowEverywhere();
    for (let n = 1; n <= 60; n++) {
      const app = n % 2 ? ctx.app : second.app;
      const res = await call(app, integration.apiKey, 'GET', '/me', { ip });
      expect(res.statusCode).toBe(200);
      expect(rateHeaders(res).remaining).toBe(60 - n);
    }
    expectRateLimited(await call(ctx.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 60);
    expectRateLimited(await call(second.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 60);

    await nextWindowEverywhere();
    expect((await call(second.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(200);
  });

  it('concurrently: 90 simultaneous calls of GET /me through both admit exactly 60, each count seen once', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await nextWindowEverywhere();
    const responses = await Promise.all(Array.from({ length: 90 }, (_, n) => call(n % 2 ? ctx.app : second.app, integration.apiKey, 'GET', '/me', { ip })));
    const ok = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 429);
    expect(ok).toHaveLength(60);
    expect(refused).toHaveLength(30);
    expect(ok.map((r) => rateHeaders(r).remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const r of refused) expect(r.json().code).toBe('RATE_LIMITED');
    // every one of the 90 counted against the integration
    const after = await call(second.app, integration.apiKey, 'GET', '/events', { ip });
    expect(remainingOf(after, 'integration')).toBe(300 - 91);
  });

  it('the per-IP tier: an address spent through one instance is refused by the other, with or without a key', async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    await nextWindowEverywhere();
    for (let batch = 0; batch < 6; batch++) {
      const responses = await Promise.all(Array.from({ length: 100 }, () => call(ctx.app, null, 'GET', '/me', { ip })));
      expect(responses.every((r) => r.statusCode === 401)).toBe(true);
    }
    expectRateLimited(await call(second.app, null, 'GET', '/me', { ip }), ctx, 600);
    expectRateLimited(await call(second.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 600);
    expectRateLimited(await call(ctx.app, integration.apiKey, 'GET', '/me', { ip }), ctx, 600);
    expect((await call(second.app, integration.apiKey, 'GET', '/me', { ip: freshAddress() })).statusCode).toBe(200);
  });
});

describe('counter storage', () => {
  it(`${databaseUrl ? 'PostgreSQL: windows before the previous one are swept' : 'embedded: counts in memory, the table stays empty'}`, async () => {
    const integration = await ctx.createIntegration();
    const ip = freshAddress();
    const rows = async (where: 'old' | 'all') => {
      const window = Math.floor(ctx.deps.clock.nowMs() / 60_000);
      const result = await sql<{ n: number }>`
        select count(*)::int as n from rate_limit_counters where ${where === 'old' ? sql`window_minute < ${window - 1}` : sql`true`}
      `.execute(ctx.deps.db);
      return result.rows[0].n;
    };
    await nextWindowEverywhere();
    expect((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(200);
    if (!databaseUrl) {
      expect(await rows('all')).toBe(0);
      return;
    }
    expect(await rows('all')).toBeGreaterThan(0);
    await ctx.advanceClock(180);
    // the first request of a new window starts the sweep beside it; wait for it to land
    expect((await call(ctx.app, integration.apiKey, 'GET', '/me', { ip })).statusCode).toBe(200);
    let old = await rows('old');
    for (let attempt = 0; old > 0 && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      old = await rows('old');
    }
    expect(old).toBe(0);
    expect(await rows('all')).toBeGreaterThan(0);
  });
});
