import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonWindows } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';
import { createBody, createOk, eventsOf, lastSequence, put } from './fixtures.js';
import { today } from '../helpers/fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function hostCreate(brandId: number, overrides: Record<string, unknown> = {}) {
  const res = await ctx.staff('POST', `/brands/${brandId}/properties`, createBody(overrides));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { doorloom_id: number; status: string; units: Array<{ inventory_id: number }> };
}

describe('host-created properties and coverage', () => {
  it('are invisible to every integration until covered', async () => {
    const a = await ctx.createIntegration();
    const hosted = await hostCreate(a.brandId, { external_id: 'IGNORED', units: [{ name: 'R1', external_id: 'IGNORED-U' }] });
    expect(hosted).toMatchObject({ status: 'active', brand_id: a.brandId, coverage: [] });
    expect((await ctx.api(a.apiKey, 'GET', '/properties')).json().data.properties).toEqual([]);
    expect((await ctx.api(a.apiKey, 'GET', `/properties/${hosted.doorloom_id}`)).statusCode).toBe(404);
    expect((await put(ctx, a, hosted.doorloom_id, { name: 'x' })).json()).toMatchObject(failure('NOT_FOUND'));
    expect(await lastSequence(ctx, a.id)).toBe(0);
  });

  it('host create validates like the partner create; an unknown brand is 404', async () => {
    const res = await ctx.staff('POST', '/brands/1/properties', { name: 'x' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toHaveProperty(['address.pin_code']);
    expect((await ctx.staff('POST', '/brands/999999/properties', createBody())).statusCode).toBe(404);
  });

  it('covering sends the initial state to that integration only, with its mapping', async () => {
    const a = await ctx.createIntegration({ horizon_days: 30 });
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const hosted = await hostCreate(a.brandId);
    const res = await ctx.staff('PUT', `/integrations/${a.id}/coverage/${hosted.doorloom_id}`, { external_id: 'MINE-1' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({ integration_id: a.id, property_id: hosted.doorloom_id, external_id: 'MINE-1', coverage: 'active' });
    const events = await eventsOf(ctx, a.id);
    const months = horizonWindows(today(ctx), 30).length;
    expect(events.map((e) => e.type)).toEqual([
      'property.changed',
      'inventory.changed',
      ...Array(months).fill('availability.changed'),
      ...Array(months).fill('rates.changed'),
      ...Array(months).fill('restrictions.changed'),
    ]);
    expect(events.every((e) => e.origin === 'doorloom' && e.property.external_id === 'MINE-1')).toBe(true);
    expect(await lastSequence(ctx, b.id)).toBe(0);
    const block = (await ctx.api(a.apiKey, 'GET', '/properties/MINE-1')).json().data;
    expect(block).toMatchObject({ doorloom_id: hosted.doorloom_id, external_id: 'MINE-1', coverage: 'active', status: 'active' });
    expect(block.units[0].external_unit_id).toBeNull();

    // covering again changes nothing; a changed mapping is applied
    const again = await ctx.staff('PUT', `/integrations/${a.id}/coverage/${hosted.doorloom_id}`);
    expect(again.statusCode).toBe(200);
    expect(await eventsOf(ctx, a.id)).toHaveLength(events.length);
    await ctx.staff('PUT', `/integrations/${a.id}/coverage/${hosted.doorloom_id}`, { external_id: 'MINE-2' });
    expect((await ctx.api(a.apiKey, 'GET', '/properties/MINE-2')).statusCode).toBe(200);
  });

  it('refuses a mapping held by another property, a property of another brand, unknown ids', async () => {
    const a = await ctx.createIntegration();
    const held = await createOk(ctx, a, { external_id: 'HELD' });
    const hosted = await hostCreate(a.brandId);
    const conflict = await ctx.staff('PUT', `/integrations/${a.id}/coverage/${hosted.doorloom_id}`, { external_id: 'HELD' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ ...failure('PROPERTY_EXTERNAL_ID_EXISTS'), errors: { doorloom_id: held.doorloom_id } });
    const foreign = await hostCreate(await ctx.createBrand('Elsewhere'));
    const crossBrand = await ctx.staff('PUT', `/integrations/${a.id}/coverage/${foreign.doorloom_id}`);
    expect(crossBrand.statusCode).toBe(422);
    expect(crossBrand.json().errors).toHaveProperty('property_id');
    expect((await ctx.staff('PUT', `/integrations/${a.id}/coverage/999999`)).statusCode).toBe(404);
    expect((await ctx.staff('PUT', `/integrations/999999/coverage/${hosted.doorloom_id}`)).statusCode).toBe(404);
    expect((await ctx.staff('PUT', `/integrations/${a.id}/coverage/${hosted.doorloom_id}`, { external_id: 'bad id' })).statusCode).toBe(422);
  });

  it('removing coverage makes reads and writes 404 and frees the mappings', async () => {
    const a = await ctx.createIntegration();
    const block = await createOk(ctx, a, { external_id: 'GONE', units: [{ name: 'G', external_id: 'GONE-U' }] });
    const res = await ctx.staff('DELETE', `/integrations/${a.id}/coverage/${block.doorloom_id}`);
    expect(res.statusCode).toBe(200);
    for (const ref of [block.doorloom_id, 'GONE']) {
      expect((await ctx.api(a.apiKey, 'GET', `/properties/${ref}`)).json()).toMatchObject(failure('NOT_FOUND'));
      expect((await put(ctx, a, ref, { name: 'x' })).json()).toMatchObject(failure('NOT_FOUND'));
    }
    const bulk = await ctx.api(a.apiKey, 'PUT', '/properties/bulk', { properties: [{ doorloom_id: block.doorloom_id, name: 'x' }] });
    expect(bulk.json().data.results[0].error.code).toBe('NOT_FOUND');
    expect((await ctx.api(a.apiKey, 'GET', '/properties')).json().data.properties).toEqual([]);
    expect((await ctx.api(a.apiKey, 'GET', '/me')).json().data.covered_properties).toBe(0);
    // the ids can map a new property
    expect((await createOk(ctx, a, { external_id: 'GONE', units: [{ name: 'G', external_id: 'GONE-U' }] })).external_id).toBe('GONE');
    expect((await ctx.staff('DELETE', `/integrations/${a.id}/coverage/${block.doorloom_id}`)).statusCode).toBe(404);
  });
});

describe('several integrations on one property', () => {
  it('each gets its own events: origin, external ids and retired aliases are per integration', async () => {
    const a = await ctx.createIntegration({ horizon_days: 5 });
    const b = await ctx.createIntegration({ brandId: a.brandId, horizon_days: 5 });
    const block = await createOk(ctx, a, { external_id: 'A-ID', units: [{ name: 'One', external_id: 'A-U1' }] });
    await ctx.staff('PUT', `/integrations/${b.id}/coverage/${block.doorloom_id}`, { external_id: 'B-ID' });
    const [afterA, afterB] = [await lastSequence(ctx, a.id), await lastSequence(ctx, b.id)];
    expect(
      (
        await put(ctx, a, 'A-ID', {
          units: [
            { external_id: 'A-U1', name: 'Uno' },
            { inventory_id: block.units[0].inventory_id, external_id: 'A-U1b' },
          ],
        })
      ).statusCode,
    ).toBe(422);
    expect((await put(ctx, a, 'A-ID', { units: [{ inventory_id: block.units[0].inventory_id, external_id: 'A-U1b', name: 'Uno' }] })).statusCode).toBe(200);
    const [ea, eb] = [await eventsOf(ctx, a.id, afterA), await eventsOf(ctx, b.id, afterB)];
    expect(ea.map((e) => [e.type, e.origin, e.property.external_id])).toEqual([
      ['property.changed', 'partner', 'A-ID'],
      ['inventory.changed', 'partner', 'A-ID'],
    ]);
    expect(eb.map((e) => [e.type, e.origin, e.property.external_id])).toEqual([
      ['property.changed', 'doorloom', 'B-ID'],
      ['inventory.changed', 'doorloom', 'B-ID'],
    ]);
    expect(ea[1].data.units).toEqual([
      expect.objectContaining({ name: 'Uno', external_unit_id: 'A-U1b', deleted: false }),
      { inventory_id: block.units[0].inventory_id, external_unit_id: 'A-U1', deleted: true },
    ]);
    expect(eb[1].data.units).toEqual([expect.objectContaining({ name: 'Uno', external_unit_id: null, deleted: false })]);
    expect(eb[0].data.property.external_id).toBe('B-ID');
    // b sees its own mapping; a's external id means nothing to b
    expect((await ctx.api(b.apiKey, 'GET', '/properties/A-ID')).statusCode).toBe(404);
    expect((await ctx.api(b.apiKey, 'GET', '/properties/B-ID')).json().data.units[0].external_unit_id).toBeNull();
  });
});

describe('host archive and host edits', () => {
  it('archive: status archived, writes refused with 422 PROPERTY_ARCHIVED, property.changed to each covering integration', async () => {
    const a = await ctx.createIntegration();
    const block = await createOk(ctx, a, { external_id: 'ARCH' });
    const after = await lastSequence(ctx, a.id);
    const res = await ctx.staff('POST', `/properties/${block.doorloom_id}/archive`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'archived', archived_at: expect.stringMatching(/\+05:30$/) });
    const events = await eventsOf(ctx, a.id, after);
    expect(events.map((e) => [e.type, e.origin])).toEqual([['property.changed', 'doorloom']]);
    expect(events[0].data.property.status).toBe('archived');
    expect((await ctx.api(a.apiKey, 'GET', '/properties/ARCH')).json().data.status).toBe('archived');
    const refused = await put(ctx, a, 'ARCH', { name: 'x' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject(failure('PROPERTY_ARCHIVED'));
    // archiving again changes nothing
    await ctx.staff('POST', `/properties/${block.doorloom_id}/archive`);
    expect(await eventsOf(ctx, a.id, after)).toHaveLength(1);
    expect((await ctx.staff('POST', '/properties/999999/archive')).statusCode).toBe(404);
  });

  it('host edits of address and occupancy emit property.changed; price edits add rates.changed', async () => {
    const a = await ctx.createIntegration({ horizon_days: 10 });
    const block = await createOk(ctx, a, { external_id: 'HOSTED' });
    const after = await lastSequence(ctx, a.id);
    const res = await ctx.staff('PATCH', `/properties/${block.doorloom_id}`, { address: { city: 'Mysuru' }, occupancy: { max_guests: 10 } });
    expect(res.statusCode, res.body).toBe(200);
    let events = await eventsOf(ctx, a.id, after);
    expect(events.map((e) => [e.type, e.origin])).toEqual([['property.changed', 'doorloom']]);
    expect(events[0].data.property.address).toMatchObject({ city: 'Mysuru', formatted_address: expect.stringContaining('Mysuru') });
    expect(events[0].data.property.occupancy.max_guests).toBe(10);
    const mid = await lastSequence(ctx, a.id);
    await ctx.staff('PATCH', `/properties/${block.doorloom_id}`, { pricing: { weekend: { base_price: 99 } } });
    events = await eventsOf(ctx, a.id, mid);
    const months = horizonWindows(today(ctx), 10).length;
    expect(events.map((e) => e.type)).toEqual(['property.changed', ...Array(months).fill('rates.changed')]);
    // partner mappings and units are not host edits: ignored
    const ignored = await ctx.staff('PATCH', `/properties/${block.doorloom_id}`, { external_id: 'HOST-SET', units: [{ name: 'x' }], name: 'Host name' });
    expect(ignored.statusCode, ignored.body).toBe(200);
    expect((await ctx.api(a.apiKey, 'GET', '/properties/HOSTED')).json().data).toMatchObject({
      name: 'Host name',
      units: [expect.objectContaining({ name: 'Sea Breeze Villa' })],
    });
    const invalid = await ctx.staff('PATCH', `/properties/${block.doorloom_id}`, { occupancy: { max_guests: 0 } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().errors).toHaveProperty(['occupancy.max_guests']);
    expect((await ctx.staff('PATCH', '/properties/999999', { name: 'x' })).statusCode).toBe(404);
  });
});

describe('GET /properties', () => {
  it('pages the covered properties with top-level pagination and a sequence watermark', async () => {
    const a = await ctx.createIntegration({ horizon_days: 1 });
    const blocks = [];
    for (let i = 0; i < 5; i++) blocks.push(await createOk(ctx, a, { external_id: `L-${i}` }));
    const res = await ctx.api(a.apiKey, 'GET', '/properties?per_page=2&page=2');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toEqual({ page: 2, per_page: 2, total: 5, last_page: 3 });
    expect(body.data).not.toHaveProperty('pagination');
    expect(body.data.sequence).toBe(await lastSequence(ctx, a.id));
    expect(body.data.properties).toEqual(blocks.slice(2, 4));
    const all = (await ctx.api(a.apiKey, 'GET', '/properties')).json();
    expect(all.pagination).toEqual({ page: 1, per_page: 50, total: 5, last_page: 1 });
    expect(all.data.properties.map((p: { external_id: string }) => p.external_id)).toEqual(['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
    const beyond = (await ctx.api(a.apiKey, 'GET', '/properties?page=9')).json();
    expect(beyond.data.properties).toEqual([]);
    expect(beyond.pagination.total).toBe(5);
  });

  it('filters by status and validates its query', async () => {
    const a = await ctx.createIntegration({ horizon_days: 1 });
    const kept = await createOk(ctx, a);
    const archived = await createOk(ctx, a);
    await ctx.staff('POST', `/properties/${archived.doorloom_id}/archive`);
    const active = (await ctx.api(a.apiKey, 'GET', '/properties?status=active')).json();
    expect(active.data.properties.map((p: { doorloom_id: number }) => p.doorloom_id)).toEqual([kept.doorloom_id]);
    expect(active.pagination.total).toBe(1);
    const arch = (await ctx.api(a.apiKey, 'GET', '/properties?status=archived')).json();
    expect(arch.data.properties.map((p: { doorloom_id: number; status: string }) => [p.doorloom_id, p.status])).toEqual([[archived.doorloom_id, 'archived']]);
    for (const [query, key] of [
      ['per_page=0', 'per_page'],
      ['per_page=201', 'per_page'],
      ['page=0', 'page'],
      ['page=x', 'page'],
      ['status=gone', 'status'],
    ]) {
      const res = await ctx.api(a.apiKey, 'GET', `/properties?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().errors, query).toHaveProperty([key]);
    }
    expect((await ctx.api(a.apiKey, 'GET', '/properties?per_page=200')).statusCode).toBe(200);
  });

  it('never shows another integration its properties', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration({ brandId: a.brandId });
    await createOk(ctx, a, { external_id: 'ONLY-A' });
    expect((await ctx.api(b.apiKey, 'GET', '/properties')).json().data.properties).toEqual([]);
    expect((await ctx.api(b.apiKey, 'GET', '/properties/ONLY-A')).json()).toMatchObject(failure('NOT_FOUND'));
  });
});

describe('inactive sweep', () => {
  it('deactivates week-old properties of brands without a plan silently, and reactivates them with property.changed', async () => {
    const a = await ctx.createIntegration({ horizon_days: 1 });
    const old = await createOk(ctx, a, { external_id: 'OLD' });
    await ctx.advanceClock(7 * 24 * 3600 + 60);
    const young = await createOk(ctx, a, { external_id: 'YOUNG' });
    const planned = await ctx.createIntegration({ horizon_days: 1 });
    const withPlan = await createOk(ctx, planned);
    expect((await ctx.staff('PUT', `/brands/${a.brandId}/plan`, { active: false })).statusCode).toBe(200);
    const after = await lastSequence(ctx, a.id);

    const run = await ctx.staff('POST', '/jobs/inactive-sweep/run');
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().data.result).toMatchObject({ deactivated: 1 });
    const status = async (key: string, ref: string | number) => (await ctx.api(key, 'GET', `/properties/${ref}`)).json().data.status;
    expect(await status(a.apiKey, 'OLD')).toBe('inactive');
    expect(await status(a.apiKey, 'YOUNG')).toBe('active');
    expect(await status(planned.apiKey, withPlan.doorloom_id)).toBe('active');
    expect(await lastSequence(ctx, a.id)).toBe(after); // no event for the flip
    expect((await ctx.api(a.apiKey, 'GET', '/properties?status=inactive')).json().data.properties.map((p: { doorloom_id: number }) => p.doorloom_id)).toEqual([
      old.doorloom_id,
    ]);
    // an inactive property is still editable through the API
    expect((await put(ctx, a, 'OLD', { name: 'Still mine' })).statusCode).toBe(200);
    const beforeBack = await lastSequence(ctx, a.id);

    await ctx.staff('PUT', `/brands/${a.brandId}/plan`, { active: true });
    const back = await ctx.staff('POST', '/jobs/inactive-sweep/run');
    expect(back.json().data.result).toEqual({ deactivated: 0, reactivated: 1 });
    expect(await status(a.apiKey, 'OLD')).toBe('active');
    const events = await eventsOf(ctx, a.id, beforeBack);
    expect(events.map((e) => [e.type, e.origin, e.property.doorloom_id])).toEqual([['property.changed', 'doorloom', old.doorloom_id]]);
    expect(events[0].data.property.status).toBe('active');
    expect(young.status).toBe('active');
  });
});
