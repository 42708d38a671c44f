import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonWindows } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { createOk, eventsOf, lastSequence, put } from './fixtures.js';
import { today } from '../helpers/fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

type Block = {
  doorloom_id: number;
  external_id: string | null;
  units: Array<{
    inventory_id: number;
    name: string;
    external_unit_id: string | null;
    is_active: boolean;
    is_default: boolean;
    code: string | null;
    max_occupancy: number | null;
  }>;
};

const detailOf = async (integration: TestIntegration, id: number) => (await ctx.api(integration.apiKey, 'GET', `/properties/${id}`)).json().data;

async function putOk(integration: TestIntegration, ref: string | number, body: unknown): Promise<Block> {
  const res = await put(ctx, integration, ref, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function putRefused(integration: TestIntegration, ref: string | number, body: unknown): Promise<Record<string, string[]>> {
  const res = await put(ctx, integration, ref, body);
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
  return res.json().errors;
}

/** A fresh integration with one property of three units (aliases U1, U2; the third has none). */
async function setup(overrides: Record<string, unknown> = {}) {
  const a = await ctx.createIntegration({ horizon_days: 40 });
  const block: Block = await createOk(ctx, a, {
    external_id: `P-${a.id}`,
    units: [{ name: 'Main', external_id: `U1-${a.id}` }, { name: 'Second', external_id: `U2-${a.id}` }, { name: 'Third' }],
    ...overrides,
  });
  const [main, second, third] = block.units;
  return { a, block, main, second, third, after: await lastSequence(ctx, a.id) };
}

describe('PUT /properties/{property}: groups', () => {
  it('applies a present group and leaves absent ones untouched; re-derives formatted_address', async () => {
    const { a, block } = await setup({ address: { address_line_1: '1 Hill Rd', city: 'Ooty', state: 'TN', pin_code: '643001', landmark: 'Lake' } });
    const before = await detailOf(a, block.doorloom_id);
    expect(before.address.formatted_address).toBe('1 Hill Rd, Lake, Ooty, TN 643001, India');
    const updated = await putOk(a, block.doorloom_id, { address: { city: 'Coonoor' }, space: { bedrooms: 4 } });
    expect(updated).toMatchObject({ doorloom_id: block.doorloom_id, name: 'Sea Breeze Villa' });
    const after = await detailOf(a, block.doorloom_id);
    expect(after.address).toEqual({ ...before.address, city: 'Coonoor', formatted_address: '1 Hill Rd, Lake, Coonoor, TN 643001, India' });
    expect(after.space).toEqual({ bedrooms: 4, washrooms: before.space.washrooms });
    for (const group of ['occupancy', 'pricing', 'features', 'description', 'name', 'property_type', 'property_category']) {
      expect(after[group], group).toEqual(before[group]);
    }
    // a formatted_address that is sent is kept; the next address edit derives it again
    await putOk(a, block.doorloom_id, { address: { formatted_address: 'As the partner writes it' } });
    expect((await detailOf(a, block.doorloom_id)).address.formatted_address).toBe('As the partner writes it');
    await putOk(a, block.doorloom_id, { address: { pin_code: '643101' } });
    expect((await detailOf(a, block.doorloom_id)).address.formatted_address).toBe('1 Hill Rd, Lake, Coonoor, TN 643101, India');
    // an edit outside address leaves it alone
    await putOk(a, block.doorloom_id, { address: { formatted_address: 'Fixed' } });
    await putOk(a, block.doorloom_id, { name: 'Renamed' });
    expect((await detailOf(a, block.doorloom_id)).address.formatted_address).toBe('Fixed');
  });

  it('applies any subset of pricing, occupancy and features', async () => {
    const { a, block } = await setup({ features: { is_pet_friendly: true, max_pets: 2 } });
    await putOk(a, block.doorloom_id, {
      pricing: { weekend: { extra_adult_price: 750.25 } },
      occupancy: { min_guests: 2 },
      features: { is_veg: true },
    });
    const d = await detailOf(a, block.doorloom_id);
    expect(d.pricing).toEqual({
      weekday: { base_price: 12000, per_night_occupancy: 6, extra_adult_price: 0, extra_child_price: 0 },
      weekend: { base_price: 15000, per_night_occupancy: 6, extra_adult_price: 750.25, extra_child_price: 0 },
    });
    expect(d.occupancy).toEqual({ min_guests: 2, max_guests: 6 });
    expect(d.features).toMatchObject({ is_veg: true, is_pet_friendly: true, max_pets: 2 });
  });

  it('clears nullable fields with null', async () => {
    const { a, block } = await setup({
      property_type: 'villa',
      property_category: 'vacation_rental',
      address: { address_line_1: 'A', address_line_2: 'B', landmark: 'C', city: 'D', state: 'E', pin_code: '1', latitude: 10, longitude: 20 },
      features: { max_pets: 3, pet_charges: 200 },
    });
    const updated = await putOk(a, `P-${a.id}`, {
      external_id: null,
      property_type: null,
      property_category: null,
      address: { address_line_2: null, landmark: null, latitude: null, longitude: null },
      features: { max_pets: null, pet_charges: null },
    });
    expect(updated).toMatchObject({ external_id: null, property_type: null });
    const d = await detailOf(a, block.doorloom_id);
    expect(d).toMatchObject({ external_id: null, property_type: null, property_category: null });
    expect(d.address).toMatchObject({ address_line_2: null, landmark: null, latitude: null, longitude: null, formatted_address: 'A, D, E 1, India' });
    expect(d.features).toMatchObject({ max_pets: null, pet_charges: null });
    // the old external id no longer names it
    expect((await put(ctx, a, `P-${a.id}`, {})).statusCode).toBe(404);
  });

  it('validates with the same rules and keys as create; required fields cannot be cleared', async () => {
    const { a, block } = await setup();
    const errors = await putRefused(a, block.doorloom_id, {
      name: null,
      description: 'x'.repeat(2001),
      property_type: 'Villa',
      address: { city: null, pin_code: 'x'.repeat(21), latitude: 100 },
      space: { bedrooms: '2' },
      pricing: { weekday: { base_price: -1 } },
      features: { is_private: null },
      external_id: 'bad id',
    });
    expect(Object.keys(errors).sort()).toEqual([
      'address.city',
      'address.latitude',
      'address.pin_code',
      'description',
      'external_id',
      'features.is_private',
      'name',
      'pricing.weekday.base_price',
      'property_type',
      'space.bedrooms',
    ]);
    expect(errors['name']).toEqual(['must be a string']);
  });

  it('checks max_guests against a stored min_guests, and min_guests against a stored max_guests', async () => {
    const { a, block } = await setup({ occupancy: { min_guests: 3, max_guests: 6 } });
    expect(await putRefused(a, block.doorloom_id, { occupancy: { max_guests: 2 } })).toEqual({ 'occupancy.max_guests': [expect.stringMatching(/min_guests/)] });
    expect(await putRefused(a, block.doorloom_id, { occupancy: { min_guests: 7 } })).toEqual({ 'occupancy.min_guests': [expect.stringMatching(/max_guests/)] });
    expect(await putRefused(a, block.doorloom_id, { occupancy: { min_guests: 5, max_guests: 4 } })).toHaveProperty('occupancy.max_guests');
    await putOk(a, block.doorloom_id, { occupancy: { min_guests: 1, max_guests: 2 } });
  });

  it('addresses the property by service id or external id; unknown ids are 404', async () => {
    const { a, block } = await setup();
    expect((await putOk(a, block.doorloom_id, { name: 'By id' })).doorloom_id).toBe(block.doorloom_id);
    expect((await putOk(a, `P-${a.id}`, { name: 'By external id' })).doorloom_id).toBe(block.doorloom_id);
    for (const ref of ['999999', 'NO-SUCH', '0', '-1']) {
      const res = await put(ctx, a, ref, { name: 'x' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject(failure('NOT_FOUND'));
    }
  });

  it("answers another integration's property with 404, never 403", async () => {
    const { block } = await setup();
    const stranger = await ctx.createIntegration();
    for (const ref of [String(block.doorloom_id), block.external_id!]) {
      const res = await put(ctx, stranger, ref, { name: 'Mine now' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject(failure('NOT_FOUND'));
      expect((await ctx.api(stranger.apiKey, 'GET', `/properties/${ref}`)).statusCode).toBe(404);
    }
  });

  it('re-maps external_id; an id mapped to another property is 409 naming it', async () => {
    const { a, block } = await setup();
    const other: Block = await createOk(ctx, a, { external_id: 'OTHER' });
    const res = await put(ctx, a, block.doorloom_id, { external_id: 'OTHER', name: 'Should not apply' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      ...failure('PROPERTY_EXTERNAL_ID_EXISTS'),
      errors: { doorloom_id: other.doorloom_id, external_id: [expect.any(String)] },
    });
    expect((await detailOf(a, block.doorloom_id)).name).toBe('Sea Breeze Villa');
    expect((await putOk(a, block.doorloom_id, { external_id: `P-${a.id}` })).external_id).toBe(`P-${a.id}`);
    expect((await putOk(a, block.doorloom_id, { external_id: 'NEW-ID' })).external_id).toBe('NEW-ID');
    expect((await putOk(a, 'NEW-ID', {})).doorloom_id).toBe(block.doorloom_id);
  });

  it('is safe to retry unchanged', async () => {
    const { a, block } = await setup();
    const body = { name: 'Same', units: [{ inventory_id: block.units[1].inventory_id, name: 'Second' }] };
    const first = await put(ctx, a, block.doorloom_id, body);
    const second = await put(ctx, a, block.doorloom_id, body);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
  });
});

describe('PUT /properties/{property}: units', () => {
  it('rule 1: an entry naming no unit is 422 on units.N', async () => {
    const { a, block } = await setup();
    expect(
      await putRefused(a, block.doorloom_id, { units: [{ inventory_id: block.units[0].inventory_id }, { name: 'Who?' }, { external_id: null, name: 'x' }] }),
    ).toEqual({
      'units.1': [expect.any(String)],
      'units.2': [expect.any(String)],
    });
  });

  it('rule 2: the default unit cannot be taken off sale (units.N.is_active)', async () => {
    const { a, block, main, second } = await setup();
    const errors = await putRefused(a, block.doorloom_id, {
      units: [
        { inventory_id: second.inventory_id, is_active: false },
        { inventory_id: main.inventory_id, is_active: false },
      ],
    });
    expect(errors).toEqual({ 'units.1.is_active': [expect.any(String)] });
    expect(await putRefused(a, block.doorloom_id, { units: [{ external_id: main.external_unit_id, is_active: false }] })).toHaveProperty('units.0.is_active');
    // nothing applied: the second unit is still on sale
    expect((await detailOf(a, block.doorloom_id)).units).toHaveLength(3);
  });

  it('rule 3: an inventory_id of another property (or none at all) is 422 on units.N.inventory_id', async () => {
    const { a, block } = await setup();
    const other: Block = await createOk(ctx, a);
    const errors = await putRefused(a, block.doorloom_id, {
      units: [{ inventory_id: other.units[0].inventory_id, name: 'Steal' }, { inventory_id: 2147480000 }, { inventory_id: block.units[1].inventory_id }],
    });
    expect(Object.keys(errors).sort()).toEqual(['units.0.inventory_id', 'units.1.inventory_id']);
    expect(await putRefused(a, block.doorloom_id, { units: [{ inventory_id: 0 }] })).toEqual({ 'units.0.inventory_id': ['must be at least 1'] });
  });

  it("rule 4: an alias mapped to another property's unit is 422 on units.N.external_id", async () => {
    const { a, block, main } = await setup();
    await createOk(ctx, a, { units: [{ name: 'Elsewhere', external_id: 'ELSEWHERE' }] });
    expect(await putRefused(a, block.doorloom_id, { units: [{ external_id: 'ELSEWHERE', name: 'Mine' }] })).toEqual({
      'units.0.external_id': [expect.any(String)],
    });
    expect(await putRefused(a, block.doorloom_id, { units: [{ inventory_id: main.inventory_id, external_id: 'ELSEWHERE' }] })).toEqual({
      'units.0.external_id': [expect.any(String)],
    });
  });

  it('checks the list itself: names unique, aliases unique, one entry per unit, 1 to 50 entries', async () => {
    const { a, block, main, second } = await setup();
    const errors = await putRefused(a, block.doorloom_id, {
      units: [
        { inventory_id: main.inventory_id, name: 'Twin' },
        { inventory_id: second.inventory_id, name: 'twin' },
        { external_id: 'N-1', name: 'New 1' },
        { external_id: 'N-1', name: 'New 2' },
        { inventory_id: main.inventory_id, code: 'A' },
      ],
    });
    expect(errors['units.1.name']?.[0]).toMatch(/unique/);
    expect(errors['units.3.external_id']).toBeDefined();
    expect(errors['units.4']).toBeDefined();
    expect(await putRefused(a, block.doorloom_id, { units: [] })).toHaveProperty('units');
    expect(await putRefused(a, block.doorloom_id, { units: Array.from({ length: 51 }, (_, i) => ({ external_id: `X${i}`, name: `X${i}` })) })).toHaveProperty(
      'units',
    );
  });

  it('an unknown alias creates a unit (name required); unmentioned units are untouched', async () => {
    const { a, block, main, second, third } = await setup();
    expect(await putRefused(a, block.doorloom_id, { units: [{ external_id: 'BRAND-NEW' }] })).toEqual({ 'units.0.name': [expect.any(String)] });
    const updated = await putOk(a, block.doorloom_id, { units: [{ external_id: 'BRAND-NEW', name: 'Loft', code: 'LF', max_occupancy: 2 }] });
    expect(updated.units.slice(0, 3)).toEqual([main, second, third]);
    expect(updated.units[3]).toMatchObject({ name: 'Loft', external_unit_id: 'BRAND-NEW', code: 'LF', max_occupancy: 2, is_active: true, is_default: false });
    // addressing it by its alias now edits it
    const again = await putOk(a, block.doorloom_id, { units: [{ external_id: 'BRAND-NEW', name: 'Loft 2', code: null, max_occupancy: null }] });
    expect(again.units[3]).toMatchObject({ inventory_id: updated.units[3].inventory_id, name: 'Loft 2', code: null, max_occupancy: null });
    expect(again.units).toHaveLength(4);
  });

  it('sets, changes and clears aliases; inventory.changed retires the old ones', async () => {
    const { a, block, main, second, third, after } = await setup();
    const updated = await putOk(a, block.doorloom_id, {
      units: [
        { inventory_id: main.inventory_id, external_id: 'MAIN-2' }, // change
        { inventory_id: second.inventory_id, external_id: null }, // clear
        { inventory_id: third.inventory_id, external_id: 'THIRD' }, // set
      ],
    });
    expect(updated.units.map((u) => u.external_unit_id)).toEqual(['MAIN-2', null, 'THIRD']);
    const events = await eventsOf(ctx, a.id, after);
    expect(events.map((e) => e.type)).toEqual(['property.changed', 'inventory.changed']);
    expect(events[1].data.units).toEqual([
      ...updated.units,
      { inventory_id: main.inventory_id, external_unit_id: main.external_unit_id, deleted: true },
      { inventory_id: second.inventory_id, external_unit_id: second.external_unit_id, deleted: true },
    ]);
    // the freed alias can name another unit now; two units may swap aliases in one request
    const swapped = await putOk(a, block.doorloom_id, {
      units: [
        { inventory_id: main.inventory_id, external_id: 'THIRD' },
        { inventory_id: third.inventory_id, external_id: 'MAIN-2' },
        { inventory_id: second.inventory_id, external_id: main.external_unit_id },
      ],
    });
    expect(swapped.units.map((u) => u.external_unit_id)).toEqual(['THIRD', main.external_unit_id, 'MAIN-2']);
    // moving an alias onto a unit while another keeps it is refused
    expect(await putRefused(a, block.doorloom_id, { units: [{ inventory_id: main.inventory_id, external_id: 'MAIN-2' }] })).toHaveProperty(
      'units.0.external_id',
    );
  });

  it('takes units off sale and back; off-sale units leave responses but stay on inventory events', async () => {
    const { a, block, second, after } = await setup();
    const off = await putOk(a, block.doorloom_id, { units: [{ inventory_id: second.inventory_id, is_active: false }] });
    expect(off.units.map((u) => u.inventory_id)).not.toContain(second.inventory_id);
    expect(off.units).toHaveLength(2);
    const listed = (await ctx.api(a.apiKey, 'GET', '/properties')).json().data.properties[0];
    expect(listed.units).toHaveLength(2);
    const events = await eventsOf(ctx, a.id, after);
    const windows = horizonWindows(today(ctx), 40);
    expect(events.map((e) => e.type)).toEqual(['property.changed', 'inventory.changed', ...windows.map(() => 'availability.changed')]);
    expect(events.slice(2).map((e) => e.window)).toEqual(windows);
    expect(events[1].data.units.find((u: { inventory_id: number }) => u.inventory_id === second.inventory_id)).toMatchObject({
      is_active: false,
      deleted: false,
    });

    const on = await putOk(a, block.doorloom_id, { units: [{ external_id: second.external_unit_id, is_active: true }] });
    expect(on.units.map((u) => u.inventory_id)).toContain(second.inventory_id);
    expect(on.units).toHaveLength(3);
  });

  it('lets one of two racing updates map a new unit alias; the other is 422 on units.0.external_id', async () => {
    const { a, block } = await setup();
    const other: Block = await createOk(ctx, a);
    const [r1, r2] = await Promise.all([
      put(ctx, a, block.doorloom_id, { units: [{ external_id: 'CONTESTED', name: 'Here' }] }),
      put(ctx, a, other.doorloom_id, { units: [{ external_id: 'CONTESTED', name: 'There' }] }),
    ]);
    expect([r1.statusCode, r2.statusCode].sort()).toEqual([200, 422]);
    expect((r1.statusCode === 422 ? r1 : r2).json().errors).toHaveProperty(['units.0.external_id']);
  });

  it('writes nothing when one entry is refused', async () => {
    const { a, block, main, second, after } = await setup();
    await putRefused(a, block.doorloom_id, {
      name: 'Not applied',
      units: [
        { inventory_id: second.inventory_id, name: 'Not renamed' },
        { inventory_id: main.inventory_id, is_active: false },
      ],
    });
    const d = await detailOf(a, block.doorloom_id);
    expect(d.name).toBe('Sea Breeze Villa');
    expect(d.units[1].name).toBe('Second');
    expect(await lastSequence(ctx, a.id)).toBe(after);
  });
});

describe('PUT /properties/{property}: events', () => {
  it('always records property.changed, and only that for a plain edit', async () => {
    const { a, block, after } = await setup();
    await putOk(a, block.doorloom_id, { name: 'Renamed', description: 'New text' });
    const events = await eventsOf(ctx, a.id, after);
    expect(events.map((e) => e.type)).toEqual(['property.changed']);
    expect(events[0]).toMatchObject({ origin: 'partner', window: null, property: { doorloom_id: block.doorloom_id, external_id: `P-${a.id}` } });
    expect(events[0].data.property).toMatchObject({ name: 'Renamed', description: 'New text', doorloom_id: block.doorloom_id });
    await putOk(a, block.doorloom_id, {});
    expect((await eventsOf(ctx, a.id, after)).map((e) => e.type)).toEqual(['property.changed', 'property.changed']);
  });

  it('records rates.changed over the horizon when a price changed, not when it was resent unchanged', async () => {
    const { a, block, after } = await setup();
    await putOk(a, block.doorloom_id, { pricing: { weekday: { base_price: 12000 } } });
    expect((await eventsOf(ctx, a.id, after)).map((e) => e.type)).toEqual(['property.changed']);
    const mid = await lastSequence(ctx, a.id);
    await putOk(a, block.doorloom_id, { pricing: { weekend: { per_night_occupancy: 4 } } });
    const events = await eventsOf(ctx, a.id, mid);
    const windows = horizonWindows(today(ctx), 40);
    expect(events.map((e) => e.type)).toEqual(['property.changed', ...windows.map(() => 'rates.changed')]);
    expect(events.slice(1).map((e) => e.window)).toEqual(windows);
    expect(events.every((e) => e.data)).toBe(true);
  });

  it('records inventory.changed when units were sent, availability only when sale status changed', async () => {
    const { a, block, third, after } = await setup();
    await putOk(a, block.doorloom_id, { units: [{ inventory_id: third.inventory_id, name: 'Third, renamed' }] });
    expect((await eventsOf(ctx, a.id, after)).map((e) => e.type)).toEqual(['property.changed', 'inventory.changed']);
    const mid = await lastSequence(ctx, a.id);
    await putOk(a, block.doorloom_id, { units: [{ external_id: 'EXTRA', name: 'Extra' }], pricing: { weekday: { base_price: 1 } } });
    const types = (await eventsOf(ctx, a.id, mid)).map((e) => e.type);
    const months = horizonWindows(today(ctx), 40).length;
    expect(types).toEqual(['property.changed', 'inventory.changed', ...Array(months).fill('availability.changed'), ...Array(months).fill('rates.changed')]);
  });

  it('records nothing for a refused update', async () => {
    const { a, block, after } = await setup();
    await putRefused(a, block.doorloom_id, { name: '' });
    expect(await lastSequence(ctx, a.id)).toBe(after);
  });
});
