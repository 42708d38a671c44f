import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { book, createVilla, day, eventsOf, lastSequence, newKey, type Villa } from '../bookings/fixtures.js';
import type { RecordedEvent } from '../helpers/fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function sandboxBrand(): Promise<number> {
  const res = await ctx.staff('POST', '/brands', { name: 'Sandbox Stays', sandbox: true });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

/** A sandbox integration with two villas built alike: one driven through the sandbox, one through staff. */
async function sandboxWorld(units = 2): Promise<{ integ: TestIntegration; a: Villa; b: Villa }> {
  const integ = await ctx.createIntegration({ brandId: await sandboxBrand() });
  return { integ, a: await createVilla(ctx, integ, units), b: await createVilla(ctx, integ, units) };
}

/**
 * The events of one villa with everything that names that villa or the moment replaced, so that
 * the same action on two villas built alike gives equal lists.
 */
function normalised(events: RecordedEvent[], villa: Villa): unknown[] {
  const units = new Map(villa.unitIds.map((u, i) => [u, `U${i}`]));
  const idOf = (key: string, n: number) =>
    key === 'inventory_id' ? (units.get(n) ?? n) : (key === 'doorloom_id' || key === 'master_property_id') && n === villa.id ? 'P' : n;
  const walk = (value: unknown, key = ''): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => k !== 'id' && k !== 'sequence' && !k.endsWith('_at'))
          .map(([k, v]) => [k, walk(v, k)]),
      );
    }
    if (typeof value === 'number') return idOf(key, value);
    if (typeof value === 'string')
      return value
        .split(villa.externalId)
        .join('X')
        .replace(/^DL-\d+$/, 'DL-n');
    return value;
  };
  return events.filter((e) => e.property?.doorloom_id === villa.id).map((e) => walk(e));
}

/** Runs `act` and answers what it recorded for the integration. */
async function recorded(integ: TestIntegration, act: () => Promise<LightMyRequestResponse>, status = 200) {
  const seq = await lastSequence(ctx, integ.id);
  const res = await act();
  expect(res.statusCode, res.body).toBe(status);
  return { res, events: await eventsOf(ctx, integ.id, seq) };
}

const sandbox = (integ: TestIntegration, path: string, body?: unknown, headers?: Record<string, string>) =>
  ctx.api(integ.apiKey, 'POST', `/sandbox${path}`, body, headers);

describe('sandbox brands (staff)', () => {
  it('are marked at creation, read, changed by PATCH, and listed with the flag', async () => {
    const created = await ctx.staff('POST', '/brands', { name: 'Try Stays', sandbox: true });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    expect(created.json().data).toEqual({ id, name: 'Try Stays', plan: { active: true }, sandbox: true });
    expect((await ctx.staff('GET', `/brands/${id}`)).json().data.sandbox).toBe(true);
    const off = await ctx.staff('PATCH', `/brands/${id}`, { sandbox: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toEqual({ id, name: 'Try Stays', plan: { active: true }, sandbox: false });
    const renamed = await ctx.staff('PATCH', `/brands/${id}`, { name: 'Tried Stays' });
    expect(renamed.json().data).toMatchObject({ name: 'Tried Stays', sandbox: false });
    const listed = await ctx.staff('GET', `/brands?q=Tried%20Stays`);
    expect(listed.json().data).toEqual([expect.objectContaining({ id, sandbox: false })]);
    expect((await ctx.staff('POST', '/brands', { name: 'Plain' })).json().data.sandbox).toBe(false);
  });

  it('refuses bad input and unknown brands', async () => {
    expect((await ctx.staff('POST', '/brands', { name: 'X', sandbox: 'yes' })).json()).toMatchObject({
      ...failure('VALIDATION_FAILED'),
      errors: { sandbox: expect.any(Array) },
    });
    expect((await ctx.staff('PATCH', '/brands/999999', { sandbox: true })).statusCode).toBe(404);
    expect((await ctx.staff('GET', '/brands/abc')).statusCode).toBe(404);
    const id = await ctx.createBrand();
    expect((await ctx.staff('PATCH', `/brands/${id}`, { sandbox: 1 })).statusCode).toBe(422);
  });
});

describe('sandbox actions record exactly the events of the same staff action', () => {
  it('block and unblock, both scopes', async () => {
    const { integ, a, b } = await sandboxWorld();
    for (const [sandboxBody, staffBody, path] of [
      [{ from: day(ctx, 3), to: day(ctx, 5) }, { from: day(ctx, 3), to: day(ctx, 5), block_scope: 'everywhere' }, '/block'],
      [{ from: day(ctx, 7), to: day(ctx, 8), block_scope: 'ota_only' }, { from: day(ctx, 7), to: day(ctx, 8), block_scope: 'ota_only' }, '/block'],
      [{ from: day(ctx, 4), to: day(ctx, 7) }, { from: day(ctx, 4), to: day(ctx, 7), block_scope: null }, '/unblock'],
    ] as const) {
      const mine = await recorded(integ, () => sandbox(integ, `/properties/${encodeURIComponent(a.externalId)}${path}`, sandboxBody));
      const host = await recorded(integ, () => ctx.staff('PUT', `/properties/${b.id}/calendar`, staffBody));
      expect(mine.events.length).toBeGreaterThan(0);
      expect(mine.events.every((e) => e.type === 'availability.changed' && e.origin === 'doorloom')).toBe(true);
      expect(normalised(mine.events, a)).toEqual(normalised(host.events, b));
      expect(mine.res.json().data).toMatchObject({ doorloom_id: a.id, window: { from: sandboxBody.from, to: sandboxBody.to } });
    }
    // The blocked nights as a snapshot shows them: 3 everywhere, 7 now lifted.
    const snap = await ctx.api(integ.apiKey, 'GET', `/properties/${a.id}/availability?from=${day(ctx, 3)}&to=${day(ctx, 3)}`);
    expect(snap.json().data.data.dates[0]).toMatchObject({ is_blocked: true, block_scope: 'everywhere', available_units: 0 });
  });

  it('price and restriction overrides', async () => {
    const { integ, a, b } = await sandboxWorld();
    const rates = { from: day(ctx, 2), to: day(ctx, 4), base_price: 4321 };
    const mine = await recorded(integ, () => sandbox(integ, `/properties/${a.id}/rate-override`, rates));
    const host = await recorded(integ, () => ctx.staff('PUT', `/properties/${b.id}/rates`, rates));
    expect(mine.events.map((e) => [e.type, e.origin])).toEqual(mine.events.map(() => ['rates.changed', 'doorloom']));
    expect(mine.events[0].data.dates[0]).toMatchObject({ base_price: 4321, source: 'override' });
    expect(normalised(mine.events, a)).toEqual(normalised(host.events, b));

    const restrictions = { from: day(ctx, 2), to: day(ctx, 3), min_stay: 3, stop_sell: true };
    const mine2 = await recorded(integ, () => sandbox(integ, `/properties/${a.id}/restriction-override`, restrictions));
    const host2 = await recorded(integ, () => ctx.staff('PUT', `/properties/${b.id}/restrictions`, restrictions));
    expect(mine2.events.map((e) => [e.type, e.origin])).toEqual(mine2.events.map(() => ['restrictions.changed', 'doorloom']));
    expect(mine2.events[0].data.dates[0]).toMatchObject({ min_stay: 3, stop_sell: true });
    expect(normalised(mine2.events, a)).toEqual(normalised(host2.events, b));
  });

  it('host booking and host cancel of it', async () => {
    const { integ, a, b } = await sandboxWorld();
    const stay = { units: [{ adults: 2 }], check_in: day(ctx, 5), check_out: day(ctx, 7), guest: { name: 'Host Guest' }, pricing: { total: 9000 } };
    const mine = await recorded(
      integ,
      () => sandbox(integ, `/properties/${encodeURIComponent(a.externalId)}/bookings`, stay, { 'idempotency-key': newKey() }),
      201,
    );
    const host = await recorded(integ, () => ctx.staff('POST', `/properties/${b.id}/bookings`, stay), 201);
    expect(mine.events.map((e) => [e.type, e.origin])).toEqual([
      ['booking.changed', 'doorloom'],
      ['availability.changed', 'doorloom'],
    ]);
    expect(normalised(mine.events, a)).toEqual(normalised(host.events, b));
    const booking = mine.res.json().data;
    // The answer is the booking as the partner sees it (its own property id and unit aliases).
    expect(booking).toMatchObject({ status: 'confirmed', property: { doorloom_id: a.id, external_id: a.externalId }, check_in: day(ctx, 5) });
    expect(booking).toEqual(mine.events[0].data.booking);

    const cancelMine = await recorded(integ, () => sandbox(integ, `/bookings/${booking.id}/cancel`, { reason: 'Host closed' }));
    const cancelHost = await recorded(integ, () => ctx.staff('POST', `/bookings/${host.res.json().data.id}/cancel`, { reason: 'Host closed' }));
    expect(cancelMine.events.map((e) => [e.type, e.origin])).toEqual([
      ['booking.changed', 'doorloom'],
      ['availability.changed', 'doorloom'],
    ]);
    expect(cancelMine.res.json().data).toMatchObject({ id: booking.id, status: 'cancelled', cancellation: { reason: 'Host closed' } });
    expect(normalised(cancelMine.events, a)).toEqual(normalised(cancelHost.events, b));
    // Cancelling again changes and records nothing.
    const again = await recorded(integ, () => sandbox(integ, `/bookings/${booking.id}/cancel`));
    expect(again.events).toEqual([]);
  });

  it('defaults make a host booking from the nights alone; the key replays it', async () => {
    const { integ, a } = await sandboxWorld(1);
    const key = newKey();
    const body = { check_in: day(ctx, 9), check_out: day(ctx, 10) };
    const first = await sandbox(integ, `/properties/${a.id}/bookings`, body, { 'idempotency-key': key });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data).toMatchObject({ guest: { name: 'Sandbox guest' }, pricing: { total: 0 }, source: { channel: 'direct' }, units: [{ adults: 1 }] });
    const replay = await sandbox(integ, `/properties/${a.id}/bookings`, body, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    // The only unit is taken now: the host's own availability refusal.
    const full = await sandbox(integ, `/properties/${a.id}/bookings`, body, { 'idempotency-key': newKey() });
    expect(full.statusCode, full.body).toBe(409);
    expect(full.json()).toMatchObject(failure('UNAVAILABLE'));
  });

  it('archive', async () => {
    const { integ, a, b } = await sandboxWorld();
    const mine = await recorded(integ, () => sandbox(integ, `/properties/${encodeURIComponent(a.externalId)}/archive`));
    const host = await recorded(integ, () => ctx.staff('POST', `/properties/${b.id}/archive`));
    expect(mine.events.map((e) => [e.type, e.origin])).toEqual([['property.changed', 'doorloom']]);
    expect(mine.events[0].data.property.status).toBe('archived');
    expect(mine.res.json().data).toMatchObject({ doorloom_id: a.id, external_id: a.externalId, status: 'archived' });
    expect(normalised(mine.events, a)).toEqual(normalised(host.events, b));
    // The partner's own writes now meet the archived property.
    expect((await ctx.api(integ.apiKey, 'PUT', `/properties/${a.id}`, { name: 'Renamed' })).json()).toMatchObject(failure('PROPERTY_ARCHIVED'));
  });

  it('events reach every integration covering the property, each with its own ids', async () => {
    const { integ, a } = await sandboxWorld(1);
    const other = await ctx.createIntegration({ brandId: integ.brandId });
    expect((await ctx.staff('PUT', `/integrations/${other.id}/coverage/${a.id}`, { external_id: 'THEIRS' })).statusCode).toBe(201);
    const seq = await lastSequence(ctx, other.id);
    expect((await sandbox(integ, `/properties/${a.id}/block`, { from: day(ctx, 2), to: day(ctx, 2) })).statusCode).toBe(200);
    const theirs = await eventsOf(ctx, other.id, seq);
    expect(theirs).toEqual([
      expect.objectContaining({ type: 'availability.changed', origin: 'doorloom', property: { doorloom_id: a.id, external_id: 'THEIRS' } }),
    ]);
  });

  it('advance-clock moves the brand’s own clock by whole days, not the service clock', async () => {
    const integ = await ctx.createIntegration({ brandId: await sandboxBrand() });
    const service = (await ctx.staff('GET', '/clock')).json().data.offset_seconds;
    const before = await ctx.api(integ.apiKey, 'GET', '/sandbox/clock');
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json().data.offset_seconds).toBe(service);
    const res = await sandbox(integ, '/clock/advance', { days: 2 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.offset_seconds - service).toBe(2 * 86400);
    expect((await ctx.api(integ.apiKey, 'GET', '/sandbox/clock')).json().data.offset_seconds).toBe(res.json().data.offset_seconds);
    expect((await ctx.staff('GET', '/clock')).json().data.offset_seconds).toBe(service);
  });
});

describe('refusals', () => {
  it('bad input is a 4xx in the envelope', async () => {
    const { integ, a } = await sandboxWorld(1);
    const at = (path: string) => `/properties/${a.id}${path}`;
    const cases: Array<[string, unknown, number, string, string?]> = [
      [at('/block'), { from: day(ctx, 5), to: day(ctx, 4) }, 422, 'VALIDATION_FAILED', 'to'],
      [at('/block'), { from: day(ctx, 5), to: day(ctx, 6), block_scope: 'nowhere' }, 422, 'VALIDATION_FAILED', 'block_scope'],
      [at('/block'), { to: day(ctx, 6) }, 422, 'VALIDATION_FAILED', 'from'],
      [at('/unblock'), { from: 'tomorrow', to: day(ctx, 6) }, 422, 'VALIDATION_FAILED', 'from'],
      [at('/rate-override'), { from: day(ctx, 5), to: day(ctx, 6) }, 422, 'VALIDATION_FAILED', 'base_price'],
      [at('/rate-override'), { from: day(ctx, 5), to: day(ctx, 6), base_price: -1 }, 422, 'VALIDATION_FAILED', 'base_price'],
      [at('/restriction-override'), { from: day(ctx, 5), to: day(ctx, 6) }, 422, 'VALIDATION_FAILED', 'min_stay'],
      [at('/restriction-override'), { from: day(ctx, 5), to: day(ctx, 6), min_stay: 0 }, 422, 'VALIDATION_FAILED', 'min_stay'],
      ['/properties/NO-SUCH/block', { from: day(ctx, 5), to: day(ctx, 6) }, 404, 'NOT_FOUND'],
      ['/bookings/999999/cancel', {}, 404, 'NOT_FOUND'],
      ['/bookings/abc/cancel', {}, 404, 'NOT_FOUND'],
      ['/clock/advance', { days: 0 }, 422, 'VALIDATION_FAILED', 'days'],
      ['/clock/advance', { days: '1' }, 422, 'VALIDATION_FAILED', 'days'],
    ];
    for (const [path, body, status, code, key] of cases) {
      const res = await sandbox(integ, path, body);
      expect(res.statusCode, `${path} ${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject(failure(code));
      if (key) expect(Object.keys(res.json().errors), res.body).toContain(key);
    }
    const noKey = await sandbox(integ, `/properties/${a.id}/bookings`, { check_in: day(ctx, 3), check_out: day(ctx, 4) });
    expect(noKey.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
    const badStay = await sandbox(integ, `/properties/${a.id}/bookings`, { check_in: day(ctx, 3), check_out: day(ctx, 3) }, { 'idempotency-key': newKey() });
    expect(badStay.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { check_out: expect.any(Array) } });
    const bad = await ctx.api(integ.apiKey, 'POST', `/sandbox/properties/${a.id}/block`, '{"from":', {});
    expect(bad.statusCode).toBe(400);
  });

  it('another integration’s property or booking is 404, as on the partner routes', async () => {
    const { integ } = await sandboxWorld(1);
    const stranger = await ctx.createIntegration({ brandId: integ.brandId });
    const theirVilla = await createVilla(ctx, stranger, 1);
    const theirBooking = await book(ctx, stranger, theirVilla);
    expect((await sandbox(integ, `/properties/${theirVilla.id}/archive`)).json()).toMatchObject(failure('NOT_FOUND'));
    expect((await sandbox(integ, `/properties/${encodeURIComponent(theirVilla.externalId)}/block`, { from: day(ctx, 2), to: day(ctx, 2) })).statusCode).toBe(
      404,
    );
    expect((await sandbox(integ, `/bookings/${theirBooking.id}/cancel`)).json()).toMatchObject(failure('NOT_FOUND'));
    const stored = await ctx.staff('GET', `/bookings/${theirBooking.id}`);
    expect(stored.json().data.status).toBe('confirmed');
  });

  it('advance-clock works without the test clock: it moves only the brand', async () => {
    const real = await createTestContext({ TEST_CLOCK: '0' });
    try {
      const brand = await real.staff('POST', '/brands', { name: 'Real time sandbox', sandbox: true });
      const integ = await real.createIntegration({ brandId: brand.json().data.id });
      const res = await real.api(integ.apiKey, 'POST', '/sandbox/clock/advance', { days: 1 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.offset_seconds).toBe(86400);
      expect(real.deps.clock.offsetSeconds()).toBe(0);
    } finally {
      await real.close();
    }
  });
});

describe('any other integration gets 404 exactly as for a path the service does not have', () => {
  const answerOf = (res: LightMyRequestResponse) => ({
    status: res.statusCode,
    body: res.json(),
    limit: res.headers['x-ratelimit-limit'],
    allow: res.headers.allow,
  });

  it('production integrations, unauthenticated callers, wrong methods, and a brand no longer a sandbox', async () => {
    const production = await ctx.createIntegration();
    const villa = await createVilla(ctx, production, 1);
    const unknown = answerOf(await ctx.api(production.apiKey, 'POST', '/sandboxes/nothing/here', { from: day(ctx, 1) }));
    expect(unknown).toMatchObject({ status: 404, body: { success: false, code: 'NOT_FOUND', message: 'No such endpoint.' } });
    const paths = ['/bookings', '/block', '/unblock', '/rate-override', '/restriction-override', '/archive'].map((p) => `/sandbox/properties/${villa.id}${p}`);
    paths.push('/sandbox/bookings/1/cancel', '/sandbox/clock/advance');
    const seq = await lastSequence(ctx, production.id);
    for (const path of paths) {
      const body = { from: day(ctx, 2), to: day(ctx, 3), check_in: day(ctx, 2), check_out: day(ctx, 3), days: 1, base_price: 1 };
      expect(answerOf(await ctx.api(production.apiKey, 'POST', path, body, { 'idempotency-key': newKey() })), path).toEqual(unknown);
      // Not even a body the routes would refuse, or a wrong method, tells them apart.
      expect(answerOf(await ctx.api(production.apiKey, 'POST', path, 'not json')), path).toEqual(
        answerOf(await ctx.api(production.apiKey, 'POST', '/sandboxes/nothing', 'not json')),
      );
      expect(answerOf(await ctx.api(production.apiKey, 'GET', path)), path).toEqual(answerOf(await ctx.api(production.apiKey, 'GET', '/sandboxes/nothing')));
      expect(answerOf(await ctx.api(null, 'POST', path, {})), path).toEqual(answerOf(await ctx.api(null, 'POST', '/sandboxes/nothing', {})));
    }
    expect(await lastSequence(ctx, production.id)).toBe(seq);
    expect((await ctx.staff('GET', `/properties/${villa.id}`)).json().data.status).toBe('active');

    // A sandbox brand turned off by staff: its integrations lose the routes at once.
    const { integ, a } = await sandboxWorld(1);
    expect((await sandbox(integ, `/properties/${a.id}/block`, { from: day(ctx, 2), to: day(ctx, 2) })).statusCode).toBe(200);
    expect((await ctx.staff('PATCH', `/brands/${integ.brandId}`, { sandbox: false })).statusCode).toBe(200);
    const off = answerOf(await sandbox(integ, `/properties/${a.id}/block`, { from: day(ctx, 2), to: day(ctx, 2) }));
    expect(off).toEqual(answerOf(await ctx.api(integ.apiKey, 'POST', '/sandboxes/nothing', {})));
  });

  it('a sandbox integration’s calls count against the sandbox tier', async () => {
    const { integ, a } = await sandboxWorld(1);
    const res = await sandbox(integ, `/properties/${a.id}/block`, { from: day(ctx, 2), to: day(ctx, 2) });
    expect(res.headers['ratelimit-policy']).toContain('"sandbox";q=60;w=60');
    expect(res.headers['x-ratelimit-limit']).toBe('60');
  });
});
