import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp, STAFF_PREFIX } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { createRuntime } from '../../src/runtime.js';
import { createTestContext, databaseUrl, failure, STAFF_TOKEN, type TestContext, type TestIntegration } from '../helpers/context.js';

/**
 * The staff lockout (STAFF_AUTH_FAILURE_LIMIT failed authentications a minute per address) as an
 * attacker meets it: guesses in parallel bursts over real HTTP, staff-shaped guesses on the
 * partner API, METRICS_TOKEN guesses; and what must keep working for the honest caller.
 */

const LIMIT = 5;
const METRICS_TOKEN = 'metrics-token-for-the-lockout-test';
let ctx: TestContext;
let base: string;
/** Staff token lookups made by the app at `base`: how many guesses were evaluated. */
let lookups = 0;
let observed: FastifyInstance;
let integration: TestIntegration;
/** A right staff token that never verified from the tests' address (STAFF_TOKEN has: it stays exempt from the lockout). */
let newcomer: string;
/** A second process on the same database (PostgreSQL only: the embedded engine lives in one process). */
let other: { app: FastifyInstance; database: Database; base: string; setOffset(seconds: number): void } | null = null;

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  ctx = await createTestContext({ STAFF_AUTH_FAILURE_LIMIT: String(LIMIT), METRICS_TOKEN });
  integration = await ctx.createIntegration();
  newcomer = (await ctx.staff('POST', '/staff-tokens', { name: 'new to the address', scope: 'admin' })).json().data.token;
  // The same runtime, its queries watched (not changed): every select from staff_tokens is a token looked up.
  const watch: KyselyPlugin = {
    transformQuery(args) {
      if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('"staff_tokens"')) lookups++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  observed = await buildApp({ ...ctx.deps, db: ctx.deps.db.withPlugin(watch) });
  base = await listen(observed);
  if (databaseUrl) {
    const runtime = await createRuntime(ctx.deps.config, pino({ level: 'silent' }), { schema: ctx.schema, poolSize: 4 });
    const app = await buildApp(runtime.deps);
    other = { app, database: runtime.database, base: await listen(app), setOffset: (s) => runtime.deps.clock.setOffsetSeconds(s) };
  }
});
afterAll(async () => {
  await other?.app.close();
  await other?.database.close();
  await observed?.close();
  await ctx.close();
});

/** Lines the test up with the start of a fresh window of the service clock: every address starts with a clean count. */
function freshWindow() {
  const now = ctx.deps.clock.nowMs();
  const offset = ctx.deps.clock.offsetSeconds() + (60_000 - (now % 60_000)) / 1000 + 0.05;
  ctx.deps.clock.setOffsetSeconds(offset);
  other?.setOffset(offset);
}

const guess = (i: number) => `dls_${String(i).padStart(40, 'G')}`;

async function get(url: string, token: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code };
}

function tally(results: Array<{ status: number }>) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe('staff lockout', () => {
  // On PostgreSQL the lookups of a burst overlap (counting after the lookup let 11 to 30 of 30 be
  // evaluated); on the embedded engine each finishes before the next request is read.
  it('a burst of parallel guesses at the staff API: exactly the limit are evaluated, the rest refused, then a right token new to the address too', async () => {
    freshWindow();
    lookups = 0;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => get(`${base}${STAFF_PREFIX}/staff-tokens`, guess(i))));
    expect(tally(results)).toEqual({ 401: LIMIT, 429: 30 - LIMIT });
    expect(lookups).toBe(LIMIT);
    expect(await get(`${base}${STAFF_PREFIX}/staff-tokens`, newcomer)).toEqual({ status: 429, code: 'RATE_LIMITED' });
    // A token that verified from this address within 24 hours keeps working.
    expect((await get(`${base}${STAFF_PREFIX}/staff-tokens`, STAFF_TOKEN)).status).toBe(200);
  });

  it('staff-shaped guesses on the partner API count as failed staff authentications, in a burst too', async () => {
    freshWindow();
    lookups = 0;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => get(`${base}${API_PREFIX}/me`, guess(100 + i))));
    expect(tally(results)).toEqual({ 401: LIMIT, 429: 30 - LIMIT });
    expect(lookups).toBe(LIMIT);
    for (const r of results) expect(r.code).toBe(r.status === 401 ? 'UNAUTHENTICATED' : 'RATE_LIMITED');
    // locked out: a valid staff token new to the address is 429 on both APIs, so the status tells nothing
    expect(await get(`${base}${API_PREFIX}/me`, newcomer)).toEqual({ status: 429, code: 'RATE_LIMITED' });
    expect(await get(`${base}${STAFF_PREFIX}/staff-tokens`, newcomer)).toEqual({ status: 429, code: 'RATE_LIMITED' });
    // the partner's own key is not a staff credential: it keeps working from the address
    expect((await get(`${base}${API_PREFIX}/me`, integration.apiKey)).status).toBe(200);
  });

  it('failures on either API add up: guesses on the partner API lock the staff API', async () => {
    freshWindow();
    for (let i = 0; i < LIMIT; i++) expect((await get(`${base}${API_PREFIX}/me`, guess(200 + i))).status).toBe(401);
    expect((await get(`${base}${STAFF_PREFIX}/staff-tokens`, newcomer)).status).toBe(429);
  });

  it('a valid staff token on the partner API stays 403 NOT_INTEGRATION_TOKEN and uses up nothing', async () => {
    freshWindow();
    for (let i = 0; i < LIMIT * 3; i++) expect(await get(`${base}${API_PREFIX}/me`, STAFF_TOKEN)).toEqual({ status: 403, code: 'NOT_INTEGRATION_TOKEN' });
    // the whole allowance is still there
    for (let i = 0; i < LIMIT; i++) expect((await get(`${base}${STAFF_PREFIX}/staff-tokens`, guess(300 + i))).status).toBe(401);
    expect((await get(`${base}${STAFF_PREFIX}/staff-tokens`, guess(399))).status).toBe(429);
  });

  it('the right token in parallel bursts is never refused', async () => {
    freshWindow();
    expect((await get(`${base}${STAFF_PREFIX}/staff-tokens`, STAFF_TOKEN)).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 4 * LIMIT }, () => get(`${base}${STAFF_PREFIX}/staff-tokens`, STAFF_TOKEN)));
    expect(tally(results)).toEqual({ 200: 4 * LIMIT });
  });

  it('METRICS_TOKEN guesses go through the same lockout, in a burst too', async () => {
    freshWindow();
    expect(await get(`${base}/metrics`, 'x'.repeat(40)).then((r) => r.status)).toBe(401);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => get(`${base}/metrics`, `${METRICS_TOKEN.slice(0, -2)}${String(i).padStart(2, '0')}`)),
    );
    expect(tally(results)).toEqual({ 401: LIMIT - 1, 429: 20 - (LIMIT - 1) });
    // the right METRICS_TOKEN is refused too once the address is locked out
    const right = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(right.status).toBe(429);
    await right.arrayBuffer();
  });

  it('the right METRICS_TOKEN still reads the metrics from an address in good standing', async () => {
    freshWindow();
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('doorloom_');
  });

  it.runIf(databaseUrl)('PostgreSQL: one burst spread over two processes still gets exactly the limit evaluated', async () => {
    freshWindow();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        get(`${i % 2 === 0 ? base : other!.base}${i % 4 < 2 ? STAFF_PREFIX + '/staff-tokens' : API_PREFIX + '/me'}`, guess(500 + i)),
      ),
    );
    expect(tally(results)).toEqual({ 401: LIMIT, 429: 40 - LIMIT });
    expect((await get(`${other!.base}${STAFF_PREFIX}/staff-tokens`, newcomer)).status).toBe(429);
  });
});

it('with the lockout met, the error is in the envelope with Retry-After', async () => {
  freshWindow();
  for (let i = 0; i < LIMIT; i++) await get(`${base}${API_PREFIX}/me`, guess(700 + i));
  const res = await fetch(`${base}${API_PREFIX}/me`, { headers: { authorization: `Bearer ${guess(799)}` } });
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await res.json()).toMatchObject({ ...failure('RATE_LIMITED'), errors: { retry_after: expect.any(Number) } });
});
