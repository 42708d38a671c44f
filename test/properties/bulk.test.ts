import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonWindows, kolkataDate } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { countProperties, createBody, createOk, eventsOf, lastSequence, newKey } from './fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const bulkCreate = (integration: TestIntegration, body: unknown, key = newKey()) =>
  ctx.api(integration.apiKey, 'POST', '/properties/bulk', body, { 'idempotency-key': key });
const bulkUpdate = (integration: TestIntegration, body: unknown, headers?: Record<string, string>) =>
  ctx.api(integration.apiKey, 'PUT', '/properties/bulk', body, headers);

describe('POST /properties/bulk', () => {
  it('creates every item: 201, summary and results with Property blocks, initial events per item', async () => {
    const a = await ctx.createIntegration({ horizon_days: 20 });
    const res = await bulkCreate(a, {
      properties: [
        createBody({ external_id: 'B-1', name: 'One' }),
        createBody({ name: 'Two', units: [{ name: 'Alpha', external_id: 'B-2-A' }, { name: 'Beta' }] }),
        createBody({ external_id: 'B-3', name: 'Three' }),
      ],
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ success: true, message: expect.any(String) });
    expect(body.data.summary).toEqual({ requested: 3, succeeded: 3, failed: 0 });
    expect(body.data.results.map((r: { index: number; external_id: string | null; status: string }) => [r.index, r.external_id, r.status])).toEqual([
      [0, 'B-1', 'created'],
      [1, null, 'created'],
      [2, 'B-3', 'created'],
    ]);
    for (const r of body.data.results) {
      expect(r.property).toMatchObject({ doorloom_id: r.doorloom_id, external_id: r.external_id, coverage: 'active', status: 'active', is_master: true });
      expect(r).not.toHaveProperty('error');
    }
    expect(
      body.data.results[1].property.units.map((u: { name: string; external_unit_id: string | null; is_default: boolean }) => [
        u.name,
        u.external_unit_id,
        u.is_default,
      ]),
    ).toEqual([
      ['Alpha', 'B-2-A', true],
      ['Beta', null, false],
    ]);
    const months = horizonWindows(kolkataDate(ctx.deps.clock.now()), 20).length;
    const events = await eventsOf(ctx, a.id);
    expect(events).toHaveLength(3 * (2 + 3 * months));
    // item by item, each in its own order
    const per = 2 + 3 * months;
    for (let i = 0; i < 3; i++) {
      const slice = events.slice(i * per, (i + 1) * per);
      expect(slice[0].type).toBe('property.changed');
      expect(slice.every((e) => e.property.doorloom_id === body.data.results[i].doorloom_id)).toBe(true);
    }
  });

  it('validates the whole batch first with properties.N. keys, writing nothing', async () => {
    const a = await ctx.createIntegration();
    const res = await bulkCreate(a, {
      properties: [
        createBody({ external_id: 'D-1' }),
        { ...createBody(), name: undefined, units: [{ name: 'X', external_id: 'SHARED-U' }] },
        createBody({ external_id: 'D-1', property_type: 'Villa' }),
        createBody({ occupancy: { min_guests: 3, max_guests: 2 }, units: [{ name: 'Y', external_id: 'SHARED-U' }] }),
        createBody({ address: { city: 'X' } }),
      ],
    });
    expect(res.statusCode).toBe(422);
    const errors = res.json().errors;
    expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
    expect(errors['properties.1.name']).toEqual(['is required']);
    expect(errors['properties.2.external_id']?.[0]).toMatch(/properties\.0\.external_id/);
    expect(errors['properties.2.property_type']).toBeDefined();
    expect(errors['properties.3.occupancy.max_guests']).toBeDefined();
    expect(errors['properties.3.units.0.external_id']?.[0]).toMatch(/properties\.1\.units\.0/);
    expect(errors['properties.4.address.pin_code']).toEqual(['is required']);
    expect(Object.keys(errors).every((k) => k.startsWith('properties.'))).toBe(true);
    expect(await countProperties(ctx, a.brandId)).toBe(0);
    expect(await lastSequence(ctx, a.id)).toBe(0);
  });

  it('takes 1 to 25 items', async () => {
    const a = await ctx.createIntegration();
    for (const body of [{ properties: [] }, { properties: Array.from({ length: 26 }, () => createBody()) }, {}, { properties: createBody() }]) {
      const res = await bulkCreate(a, body);
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toHaveProperty('properties');
    }
    expect((await bulkCreate(a, { properties: [createBody(), 'x'] })).json().errors).toEqual({ 'properties.1': ['must be an object'] });
    const full = await bulkCreate(a, { properties: Array.from({ length: 25 }, (_, i) => createBody({ name: `P${i}` })) });
    expect(full.statusCode).toBe(201);
    expect(full.json().data.summary).toEqual({ requested: 25, succeeded: 25, failed: 0 });
  });

  it('fails a refused item alone: 200, success true, item error with its code and errors', async () => {
    const a = await ctx.createIntegration({ horizon_days: 10 });
    const holder = await createOk(ctx, a, { external_id: 'HELD', units: [{ name: 'H', external_id: 'HELD-U' }] });
    const res = await bulkCreate(a, {
      properties: [
        createBody({ external_id: 'OK-1' }),
        createBody({ external_id: 'HELD' }),
        createBody({ external_id: 'OK-2', units: [{ name: 'Z', external_id: 'HELD-U' }] }),
        createBody({ external_id: 'OK-3' }),
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data.summary).toEqual({ requested: 4, succeeded: 2, failed: 2 });
    const [ok1, held, unit, ok3] = body.data.results;
    expect(ok1).toMatchObject({ index: 0, status: 'created', external_id: 'OK-1' });
    expect(ok3).toMatchObject({ index: 3, status: 'created', external_id: 'OK-3' });
    expect(held).toEqual({
      index: 1,
      external_id: 'HELD',
      doorloom_id: null,
      status: 'failed',
      error: {
        code: 'PROPERTY_EXTERNAL_ID_EXISTS',
        message: expect.any(String),
        errors: { external_id: [expect.any(String)], doorloom_id: holder.doorloom_id },
      },
    });
    expect(unit).toMatchObject({ index: 2, status: 'failed', error: { code: 'VALIDATION_FAILED', errors: { 'units.0.external_id': [expect.any(String)] } } });
    expect(held).not.toHaveProperty('property');
    expect(await countProperties(ctx, a.brandId)).toBe(3);
  });

  it('replays an identical batch under the same key and creates nothing; a different batch is refused', async () => {
    const a = await ctx.createIntegration({ horizon_days: 5 });
    await createOk(ctx, a, { external_id: 'TAKEN' });
    const key = newKey();
    const batch = { properties: [createBody({ external_id: 'R-1' }), createBody({ external_id: 'TAKEN' })] };
    const first = await bulkCreate(a, batch, key);
    expect(first.statusCode).toBe(200);
    const events = await lastSequence(ctx, a.id);
    const again = await bulkCreate(a, batch, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(await countProperties(ctx, a.brandId)).toBe(2);
    expect(await lastSequence(ctx, a.id)).toBe(events);
    const changed = await bulkCreate(a, { properties: [createBody({ external_id: 'R-2' })] }, key);
    expect(changed.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    // a structural 422 is stored too
    const invalidKey = newKey();
    const invalid = await bulkCreate(a, { properties: [] }, invalidKey);
    expect((await bulkCreate(a, { properties: [] }, invalidKey)).body).toBe(invalid.body);
  });
});

describe('PUT /properties/bulk', () => {
  async function setup() {
    const a = await ctx.createIntegration({ horizon_days: 10 });
    const p1 = await createOk(ctx, a, { external_id: 'U-1' });
    const p2 = await createOk(ctx, a, { external_id: 'U-2' });
    const p3 = await createOk(ctx, a);
    return { a, p1, p2, p3 };
  }

  it('updates items named by doorloom_id or external_id; external_id never re-maps; 200', async () => {
    const { a, p1, p2, p3 } = await setup();
    const after = await lastSequence(ctx, a.id);
    const res = await bulkUpdate(a, {
      properties: [
        { external_id: 'U-1', name: 'First' },
        { doorloom_id: p2.doorloom_id, pricing: { weekday: { base_price: 1 } } },
        { doorloom_id: p3.doorloom_id, external_id: undefined, name: 'Third' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.summary).toEqual({ requested: 3, succeeded: 3, failed: 0 });
    expect(
      data.results.map((r: { index: number; doorloom_id: number; external_id: string | null; status: string; property: { name: string } }) => [
        r.index,
        r.doorloom_id,
        r.external_id,
        r.status,
        r.property.name,
      ]),
    ).toEqual([
      [0, p1.doorloom_id, 'U-1', 'updated', 'First'],
      [1, p2.doorloom_id, 'U-2', 'updated', 'Sea Breeze Villa'],
      [2, p3.doorloom_id, null, 'updated', 'Third'],
    ]);
    const months = horizonWindows(kolkataDate(ctx.deps.clock.now()), 10).length;
    expect((await eventsOf(ctx, a.id, after)).map((e) => e.type)).toEqual([
      'property.changed',
      'property.changed',
      ...Array(months).fill('rates.changed'),
      'property.changed',
    ]);
  });

  it('reports NOT_FOUND, PROPERTY_ARCHIVED and unit-rule failures per item; 200 even when all fail', async () => {
    const { a, p1, p2, p3 } = await setup();
    const stranger = await ctx.createIntegration();
    const theirs = await createOk(ctx, stranger, { external_id: 'THEIRS' });
    expect((await ctx.staff('POST', `/properties/${p2.doorloom_id}/archive`)).statusCode).toBe(200);
    const res = await bulkUpdate(a, {
      properties: [
        { doorloom_id: 999999, name: 'x' },
        { doorloom_id: theirs.doorloom_id, name: 'x' },
        { external_id: 'THEIRS', name: 'x' },
        { doorloom_id: p2.doorloom_id, name: 'x' },
        { doorloom_id: p3.doorloom_id, units: [{ inventory_id: p3.units[0].inventory_id, is_active: false }] },
        { doorloom_id: p1.doorloom_id, external_id: 'U-2', name: 'mismatch' },
      ],
    });
    expect(res.statusCode).toBe(200);
    const { summary, results } = res.json().data;
    expect(summary).toEqual({ requested: 6, succeeded: 0, failed: 6 });
    expect(results.map((r: { error: { code: string } }) => r.error.code)).toEqual([
      'NOT_FOUND',
      'NOT_FOUND',
      'NOT_FOUND',
      'PROPERTY_ARCHIVED',
      'VALIDATION_FAILED',
      'NOT_FOUND',
    ]);
    expect(results[0]).toMatchObject({ index: 0, doorloom_id: null, status: 'failed' });
    expect(results[1].doorloom_id).toBeNull();
    expect(results[3]).toMatchObject({ doorloom_id: p2.doorloom_id, external_id: 'U-2' });
    expect(results[4].error.errors).toEqual({ 'units.0.is_active': [expect.any(String)] });
    expect((await ctx.api(stranger.apiKey, 'GET', `/properties/${theirs.doorloom_id}`)).json().data.name).toBe('Sea Breeze Villa');
  });

  it('validates the whole batch first: each item names its property, no item twice', async () => {
    const { a, p1 } = await setup();
    const res = await bulkUpdate(a, {
      properties: [
        { name: 'No reference' },
        { doorloom_id: p1.doorloom_id, name: '' },
        { doorloom_id: p1.doorloom_id, name: 'Again' },
        { external_id: 'U-2' },
        { external_id: 'U-2' },
        { doorloom_id: '5' },
        { external_id: 'U-1', units: [{ name: 'no ref' }] },
      ],
    });
    expect(res.statusCode).toBe(422);
    const errors = res.json().errors;
    expect(errors['properties.0']).toBeDefined();
    expect(errors['properties.1.name']).toBeDefined();
    expect(errors['properties.2.doorloom_id']).toBeDefined();
    expect(errors['properties.4.external_id']).toBeDefined();
    expect(errors['properties.5.doorloom_id']).toEqual(['must be an integer']);
    expect(errors['properties.6.units.0']).toBeDefined();
    expect((await ctx.api(a.apiKey, 'GET', `/properties/${p1.doorloom_id}`)).json().data.name).toBe('Sea Breeze Villa');
  });

  it('needs no Idempotency-Key', async () => {
    const { a, p1 } = await setup();
    const res = await bulkUpdate(a, { properties: [{ doorloom_id: p1.doorloom_id, name: 'N' }] });
    expect(res.statusCode).toBe(200);
    const again = await bulkUpdate(a, { properties: [{ doorloom_id: p1.doorloom_id, name: 'N' }] }, { 'idempotency-key': 'ignored-key-1' });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.json().data.summary.succeeded).toBe(1);
  });
});
