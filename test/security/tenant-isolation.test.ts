import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp, STAFF_PREFIX } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createBrand } from '../../src/modules/integrations/integrations.service.js';
import { createIntegration } from '../../src/modules/accounts/accounts.service.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createRuntime } from '../../src/runtime.js';
import { book, bookingBody, createVilla, day, lastSequence, newKey, type Villa } from '../bookings/fixtures.js';
import { createTestContext, failure, staffRequest, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Two brands through the service's real HTTP stack: A is a sandbox, B is not. Staff limits as
// shipped (10 failed authentications a minute), so that lockouts are real.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DAY = 86_400;

let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker;
let a: TestIntegration;
let b: TestIntegration;
let villaA: Villa;
let villaB: Villa;

beforeAll(async () => {
  ctx = await createTestContext({ STAFF_AUTH_FAILURE_LIMIT: '' });
  receiver = await startReceiver();
  const brandA = (await ctx.staff('POST', '/brands', { name: 'Sandbox A', sandbox: true })).json().data.id;
  a = await ctx.createIntegration({ brandId: brandA, webhook: { url: `${receiver.url}/a` } });
  b = await ctx.createIntegration({ brandId: await ctx.createBrand('Production B'), webhook: { url: `${receiver.url}/b` } });
  villaA = await createVilla(ctx, a, 2);
  villaB = await createVilla(ctx, b, 2);
  worker = startDeliveryWorker(ctx.deps, { pollMs: 100 });
});
afterAll(async () => {
  await worker?.stop();
  await receiver?.close();
  await ctx?.close();
});

const sandbox = (path: string, body?: unknown, headers?: Record<string, string>) => ctx.api(a.apiKey, 'POST', `/sandbox${path}`, body, headers);
const hostBooking = (extra: Record<string, unknown> = {}, nights = [20, 21]) =>
  sandbox(`/properties/${villaA.id}/bookings`, { check_in: day(ctx, nights[0]), check_out: day(ctx, nights[1]), ...extra }, { 'idempotency-key': newKey() });
const staffHostBooking = (villa: Villa, extra: Record<string, unknown> = {}, nights = [20, 21]) =>
  ctx.staff('POST', `/properties/${villa.id}/bookings`, {
    check_in: day(ctx, nights[0]),
    check_out: day(ctx, nights[1]),
    units: [{ adults: 1 }],
    guest: { name: 'Host' },
    pricing: { total: 0 },
    ...extra,
  });

describe('host booking ids are each brand’s own', () => {
  it('an id another brand uses behaves as a fresh one, both ways; the same brand still refuses it without naming anything else', async () => {
    const takenByB = await staffHostBooking(villaB, { external_booking_id: 'BDC-4455667' }, [30, 31]);
    expect(takenByB.statusCode, takenByB.body).toBe(201);
    const sameIdInA = await hostBooking({ external_booking_id: 'BDC-4455667' }, [30, 31]);
    expect(sameIdInA.statusCode, sameIdInA.body).toBe(201);
    expect(sameIdInA.json().data.external_booking_id).toBe('BDC-4455667');

    const firstInA = await hostBooking({ external_booking_id: 'SBX-1' }, [32, 33]);
    expect(firstInA.statusCode, firstInA.body).toBe(201);
    expect((await staffHostBooking(villaB, { external_booking_id: 'SBX-1' }, [32, 33])).statusCode).toBe(201);

    // Within one brand the id is still taken.
    const again = await hostBooking({ external_booking_id: 'SBX-1' }, [34, 35]);
    expect(again.statusCode).toBe(422);
    expect(again.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { external_booking_id: expect.any(Array) } });
  });

  it('generated DL-<n> names count per brand: a sandbox naming its bookings DL-… takes nothing from another brand', async () => {
    const staffBrand = await ctx.createBrand('Fresh brand');
    const c = await ctx.createIntegration({ brandId: staffBrand });
    const villaC = await createVilla(ctx, c, 1);
    // The sandbox takes the names the next generated ones would have, and makes some of its own.
    for (const n of [1, 2, 3]) expect((await hostBooking({ external_booking_id: `DL-${n}` }, [40 + 2 * n, 41 + 2 * n])).statusCode).toBe(201);
    const generated = await hostBooking({}, [50, 51]);
    expect(generated.json().data.external_booking_id).toBe('DL-4');
    const first = await staffHostBooking(villaC, {}, [50, 51]);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data.external_booking_id).toBe('DL-1');
    expect((await staffHostBooking(villaC, {}, [52, 53])).json().data.external_booking_id).toBe('DL-2');
  });
});

describe('the sandbox brand’s clock, advanced 40 days', () => {
  it('moves brand A’s data only: B’s bookings, staff tokens, the lockout and every signature stay on the service clock', async () => {
    const minted = await ctx.staff('POST', '/staff-tokens', { name: 'two days', expires_in_days: 2 });
    const shortLived = minted.json().data.token as string;
    // An address locked out before the move.
    const lockedIp = '198.51.100.40';
    const guess = () =>
      ctx.app.inject({
        method: 'GET',
        url: `${STAFF_PREFIX}/staff-tokens`,
        remoteAddress: lockedIp,
        headers: { authorization: `Bearer dls_${'z'.repeat(40)}` },
      });
    for (let n = 0; n < 10; n++) expect((await guess()).statusCode).toBe(401);
    expect((await guess()).statusCode).toBe(429);
    const serviceBefore = ctx.deps.clock.offsetSeconds();
    const aEventsBefore = await lastSequence(ctx, a.id);
    expect(aEventsBefore).toBeGreaterThan(0);

    const moved = await sandbox('/clock/advance', { days: 40 });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data.offset_seconds).toBe(serviceBefore + 40 * DAY);
    const read = await ctx.api(a.apiKey, 'GET', '/sandbox/clock');
    expect(read.json().data).toEqual(moved.json().data);
    expect(ctx.deps.clock.offsetSeconds()).toBe(serviceBefore);

    // B: "today" has not moved.
    const tomorrow = await book(ctx, b, villaB, { check_in: day(ctx, 1), check_out: day(ctx, 2) });
    expect(tomorrow.status).toBe('confirmed');
    // A: its today is 40 days on, so a check-in 10 days from real today is in its past.
    const past = await ctx.api(a.apiKey, 'POST', '/bookings', bookingBody(ctx, villaA, { check_in: day(ctx, 10), check_out: day(ctx, 11) }), {
      'idempotency-key': newKey(),
    });
    expect(past.statusCode, past.body).toBe(422);
    expect(
      (
        await ctx.api(a.apiKey, 'POST', '/bookings', bookingBody(ctx, villaA, { check_in: day(ctx, 45), check_out: day(ctx, 46) }), {
          'idempotency-key': newKey(),
        })
      ).statusCode,
    ).toBe(201);

    // Staff token expiry and the lockout read the service clock.
    expect((await staffRequest(ctx.app, shortLived, 'GET', '/staff-tokens')).statusCode).toBe(200);
    expect((await guess()).statusCode).toBe(429);

    // Events: A's carry its brand's time, B's the service's; every delivery is signed with the service clock.
    const seqB = receiver.of(b.slug).length;
    const seqA = receiver.of(a.slug).length;
    const bBooking = await book(ctx, b, villaB, { check_in: day(ctx, 3), check_out: day(ctx, 4) });
    expect((await sandbox(`/properties/${villaA.id}/block`, { from: day(ctx, 50), to: day(ctx, 50) })).statusCode).toBe(200);
    const parsed = (slug: string, from: number) =>
      receiver
        .of(slug)
        .slice(from)
        .map((r) => ({ request: r, event: JSON.parse(r.body) }));
    const bEvent = () => parsed(b.slug, seqB).find((e) => e.event.type === 'booking.changed' && e.event.data.booking.id === bBooking.id);
    const aEvent = () => parsed(a.slug, seqA).find((e) => e.event.type === 'availability.changed' && e.event.window?.from === day(ctx, 50));
    await receiver.waitFor(() => bEvent() !== undefined && aEvent() !== undefined, 20_000, 'the new events of both brands');
    const realNow = Date.now() / 1000 + serviceBefore;
    for (const { request } of [...parsed(b.slug, seqB), ...parsed(a.slug, seqA)]) {
      const stamp = Number(request.headers['webhook-timestamp']);
      // Standard receivers allow five minutes either way.
      expect(Math.abs(stamp - realNow), `${request.path} ${request.body.slice(0, 120)}`).toBeLessThan(300);
    }
    const createdAt = (e: { event: { created_at: string } }) => Date.parse(e.event.created_at) / 1000;
    expect(Math.abs(createdAt(bEvent()!) - realNow), 'B created_at').toBeLessThan(300);
    expect(Math.abs(createdAt(aEvent()!) - (realNow + 40 * DAY)), 'A created_at').toBeLessThan(300);

    // Retention: A's events from before the move are 40 days old on its clock and gone; B's, as old, stay.
    const retention = await ctx.staff('POST', '/jobs/retention/run');
    expect(retention.statusCode, retention.body).toBe(200);
    const eventsOf = (id: number) => ctx.deps.db.selectFrom('events').select('sequence').where('integration_id', '=', id).execute();
    expect((await eventsOf(a.id)).filter((e) => Number(e.sequence) <= aEventsBefore)).toEqual([]);
    expect((await eventsOf(b.id)).length).toBeGreaterThan(0);
  });
});

describe('the sandbox flag', () => {
  it('an operator token gets 403 INSUFFICIENT_SCOPE; an admin token sets it, logged with the brand and the token', async () => {
    const operator = (await ctx.staff('POST', '/staff-tokens', { name: 'operator' })).json().data.token as string;
    const plain = await ctx.createBrand('Plain');
    for (const res of [
      await staffRequest(ctx.app, operator, 'POST', '/brands', { name: 'Sneaky', sandbox: true }),
      await staffRequest(ctx.app, operator, 'PATCH', `/brands/${plain}`, { sandbox: true }),
      await staffRequest(ctx.app, operator, 'PATCH', `/brands/${plain}`, { sandbox: false }),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toMatchObject(failure('INSUFFICIENT_SCOPE'));
    }
    expect((await ctx.staff('GET', `/brands/${plain}`)).json().data.sandbox).toBe(false);
    // Operators still create plain brands and rename.
    expect((await staffRequest(ctx.app, operator, 'POST', '/brands', { name: 'Plain too' })).statusCode).toBe(201);
    expect((await staffRequest(ctx.app, operator, 'PATCH', `/brands/${plain}`, { name: 'Renamed' })).statusCode).toBe(200);

    const lines: Array<Record<string, unknown>> = [];
    const original = ctx.deps.log;
    ctx.deps.log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    try {
      expect((await ctx.staff('PATCH', `/brands/${plain}`, { sandbox: true })).statusCode).toBe(200);
      const created = await ctx.staff('POST', '/brands', { name: 'Admin sandbox', sandbox: true });
      expect(created.statusCode).toBe(201);
      const flagged = lines.filter((l) => l.msg === 'brand sandbox flag set');
      expect(flagged).toEqual([
        expect.objectContaining({ level: 30, brand_id: plain, sandbox: true, staff_token_id: expect.any(Number) }),
        expect.objectContaining({ level: 30, brand_id: created.json().data.id, sandbox: true, staff_token_id: expect.any(Number) }),
      ]);
    } finally {
      ctx.deps.log = original;
    }
  });
});

describe('sandbox bodies', () => {
  it('take their documented fields only: an unknown field is 422 and nothing reaches the property-wide rules', async () => {
    const rulesBefore = (await ctx.staff('GET', `/properties/${villaA.id}`)).json().data;
    const from = day(ctx, 60);
    const cases: Array<[string, Record<string, unknown>]> = [
      [`/properties/${villaA.id}/restriction-override`, { from, to: from, stop_sell: false, rules: { min_stay: 7 } }],
      [`/properties/${villaA.id}/block`, { from, to: from, units_cap: 1 }],
      [`/properties/${villaA.id}/unblock`, { from, to: from, block_scope: 'everywhere' }],
      [`/properties/${villaA.id}/rate-override`, { from, to: from, base_price: 10, meal_plans: [] }],
      ['/bookings/1/cancel', { reason: 'x', status: 'refunded' }],
      ['/clock/advance', { days: 1, seconds: 5 }],
    ];
    for (const [path, body] of cases) {
      const res = await sandbox(path, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
    }
    const booking = await hostBooking({ id: 5, brand_id: 1 }, [61, 62]);
    expect(booking.statusCode, booking.body).toBe(422);
    expect((await ctx.staff('GET', `/properties/${villaA.id}`)).json().data).toEqual(rulesBefore);
  });
});

describe('hidden routes', () => {
  const answer = (res: LightMyRequestResponse) => ({
    status: res.statusCode,
    body: res.json(),
    allow: res.headers.allow,
    limit: res.headers['x-ratelimit-limit'],
  });
  const post = (key: string | null, path: string, payload: string, ip: string, contentType = 'application/json') =>
    ctx.app.inject({
      method: 'POST',
      url: API_PREFIX + path,
      remoteAddress: ip,
      payload,
      headers: { 'content-type': contentType, ...(key ? { authorization: `Bearer ${key}` } : {}) },
    });

  it('answer exactly as an unknown path: malformed JSON, media types, wrong methods, bad keys', async () => {
    const ip = '198.51.100.7';
    const hidden = `/sandbox/properties/${villaB.id}/block`;
    for (const key of [b.apiKey, null, `dlk_${'q'.repeat(40)}`]) {
      for (const [payload, type] of [
        ['{"from":', 'application/json'],
        ['{}', 'application/json'],
        ['from=1', 'text/plain'],
      ] as const) {
        expect(answer(await post(key, hidden, payload, ip, type)), `${key} ${payload}`).toEqual(
          answer(await post(key, '/sandboxes/nothing', payload, ip, type)),
        );
      }
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const at = (path: string) =>
          ctx.app.inject({ method, url: API_PREFIX + path, remoteAddress: ip, headers: key ? { authorization: `Bearer ${key}` } : {} });
        expect(answer(await at(hidden))).toEqual(answer(await at('/sandboxes/nothing')));
      }
    }
    expect(answer(await ctx.app.inject({ method: 'GET', url: `${API_PREFIX}/sandbox/clock`, headers: { authorization: `Bearer ${b.apiKey}` } }))).toEqual(
      answer(await ctx.app.inject({ method: 'GET', url: `${API_PREFIX}/sandboxes/clock`, headers: { authorization: `Bearer ${b.apiKey}` } })),
    );
  });

  it('answer exactly as an unknown path to a caller over its address limit', async () => {
    const ip = '198.51.100.8';
    for (let n = 0; n < 600; n++) await ctx.app.inject({ method: 'GET', url: `${API_PREFIX}/nothing-${n}`, remoteAddress: ip });
    const over = answer(await post(b.apiKey, '/sandboxes/nothing', '{}', ip));
    expect(over.status).toBe(429);
    expect(answer(await post(b.apiKey, `/sandbox/properties/${villaB.id}/block`, '{}', ip))).toEqual(over);
    expect(answer(await post(b.apiKey, `/sandbox/properties/${villaB.id}/block`, '{"from":', ip))).toEqual(
      answer(await post(b.apiKey, '/sandboxes/nothing', '{"from":', ip)),
    );
  });
});

describe('client addresses', () => {
  it('TRUST_PROXY=0.0.0.0/0 is accepted and applied: the lockout is per forwarded address', async () => {
    const config = loadConfig({ DATABASE_URL: 'memory:', TRUST_PROXY: '0.0.0.0/0,::/0' });
    expect(config.trustProxy).toEqual(['0.0.0.0/0', '::/0']);
    const app = await buildApp({ ...ctx.deps, config: { ...ctx.deps.config, trustProxy: config.trustProxy } });
    await app.ready();
    try {
      const from = (forwarded: string, token: string) =>
        app.inject({
          method: 'GET',
          url: `${STAFF_PREFIX}/staff-tokens`,
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': forwarded, authorization: `Bearer ${token}` },
        });
      for (let n = 0; n < 10; n++) expect((await from('203.0.113.77', `dls_${'w'.repeat(40)}`)).statusCode).toBe(401);
      expect((await from('203.0.113.77', `dls_${'w'.repeat(40)}`)).statusCode).toBe(429);
      expect((await from('203.0.113.78', `dls_${'w'.repeat(40)}`)).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('X-Forwarded-For without TRUST_PROXY is logged once a minute, not once a request', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = await buildApp({ ...ctx.deps, log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }) });
    await app.ready();
    try {
      for (let n = 0; n < 5; n++) await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(lines.filter((l) => String(l.msg).includes('TRUST_PROXY is unset'))).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('an unusable TRUST_PROXY stops the real process before anything else: one line, exit 2', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TRUST_PROXY: '10.0.0.0/33', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^configuration error: TRUST_PROXY/);
  });
});

describe('SECRETS_KEY at start', () => {
  it('a key that does not open the stored secrets stops the real process: one line, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'doorloom-key-'));
    try {
      const sealedWith = randomBytes(32).toString('hex');
      const config = loadConfig({ DATA_DIR: dir, SECRETS_KEY: sealedWith, LOG_LEVEL: 'silent' });
      const { deps, database } = await createRuntime(config, pino({ level: 'silent' }));
      const brand = await createBrand(deps, 'Sealed');
      await createIntegration(deps, { brand_id: brand.id, name: 'Sealed one' });
      await database.close();

      const start = (key: string) =>
        spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: ROOT,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir, SECRETS_KEY: key, PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DRAIN_MS: '0' },
          encoding: 'utf8',
          timeout: 120_000,
        });
      const wrong = start(randomBytes(32).toString('hex'));
      expect(wrong.status, wrong.stderr).toBe(2);
      expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
      expect(wrong.stderr).toMatch(/^configuration error: SECRETS_KEY does not open the stored webhook secret of integration \d+/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
