import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonWindows } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { countProperties, create, createBody, createOk, eventsOf } from './fixtures.js';
import { today } from '../helpers/fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** POST /properties expecting 422 VALIDATION_FAILED; returns `errors`. */
async function refused(body: unknown, integration?: TestIntegration): Promise<Record<string, string[]>> {
  // A fresh integration per call keeps each one far below the property-write rate tier.
  const res = await create(ctx, integration ?? (await ctx.createIntegration()), body);
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
  return res.json().errors;
}

const merge = (overrides: Record<string, Record<string, unknown>>) => {
  const base = createBody();
  for (const [group, values] of Object.entries(overrides)) base[group] = { ...(base[group] as object), ...values };
  return base;
};

describe('POST /properties validation', () => {
  it('names each missing required field by its dotted key', async () => {
    const errors = await refused({ pricing: { weekday: {}, weekend: {} } });
    for (const key of [
      'name',
      'description',
      'address.address_line_1',
      'address.city',
      'address.state',
      'address.pin_code',
      'space.bedrooms',
      'space.washrooms',
      'occupancy.max_guests',
      'pricing.weekday.base_price',
      'pricing.weekend.base_price',
    ]) {
      expect(errors[key], key).toEqual(['is required']);
    }
    const groups = await refused({ name: 'X', description: 'Y' });
    expect(groups['pricing.weekday']).toEqual(['is required']);
    expect(groups['pricing.weekend']).toEqual(['is required']);
    expect(groups['address.pin_code']).toEqual(['is required']);
    expect(groups).not.toHaveProperty('name');
  });

  it('refuses a body that is not an object', async () => {
    expect(await refused([createBody()])).toHaveProperty('body');
  });

  it('enforces every maximum length', async () => {
    const a = await ctx.createIntegration();
    const long = (n: number) => 'x'.repeat(n);
    const errors = await refused({
      ...merge({
        address: {
          address_line_1: long(256),
          address_line_2: long(256),
          landmark: long(256),
          city: long(101),
          state: long(101),
          country: long(101),
          pin_code: long(21),
          formatted_address: long(501),
        },
      }),
      external_id: long(129),
      name: long(256),
      description: long(2001),
      units: [{ name: long(256), code: long(65), external_id: long(129) }],
    });
    for (const key of [
      'external_id',
      'name',
      'description',
      'address.address_line_1',
      'address.address_line_2',
      'address.landmark',
      'address.city',
      'address.state',
      'address.country',
      'address.pin_code',
      'address.formatted_address',
      'units.0.name',
      'units.0.code',
      'units.0.external_id',
    ]) {
      expect(errors[key]?.[0], key).toMatch(/^must be at most \d+ characters$/);
    }
    // exactly at the limits is fine
    const ok = await create(ctx, a, {
      ...merge({ address: { address_line_1: long(255), city: long(100), state: long(100), pin_code: long(20), formatted_address: long(500) } }),
      external_id: long(128),
      name: long(255),
      description: long(2000),
      units: [{ name: long(255), code: long(64), external_id: `u${long(127)}` }],
    });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('allows only A-Z a-z 0-9 . _ : - in external ids', async () => {
    const a = await ctx.createIntegration();
    const errors = await refused(
      createBody({
        external_id: 'has space',
        units: [
          { name: 'A', external_id: 'ü-1' },
          { name: 'B', external_id: 'a/b' },
        ],
      }),
    );
    expect(errors['external_id']).toEqual(['has an invalid format']);
    expect(errors['units.0.external_id']).toEqual(['has an invalid format']);
    expect(errors['units.1.external_id']).toEqual(['has an invalid format']);
    expect(await refused(createBody({ external_id: '' }))).toHaveProperty('external_id');
    const ok = await create(ctx, a, createBody({ external_id: 'Az09._:-x', units: [{ name: 'A', external_id: 'U.1_a:b-c' }] }));
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('takes property_type and property_category only from their lists, never coerced', async () => {
    const a = await ctx.createIntegration({ horizon_days: 1 });
    for (const value of ['Villa', 'VILLA', 'castle', ' villa']) {
      expect((await refused(createBody({ property_type: value })))['property_type']?.[0]).toMatch(/^must be one of: villa, apartment/);
    }
    expect(await refused(createBody({ property_category: 'hotel' }))).toHaveProperty('property_category');
    expect(await refused(createBody({ property_type: 3 }))).toHaveProperty('property_type');
    for (const type of [
      'villa',
      'apartment',
      'farm_stay',
      'home_stay',
      'hostel',
      'bed_and_breakfast',
      'resort',
      'cottage',
      'guest_house',
      'room',
      'suite',
      'dorm',
      'hotel',
    ]) {
      const block = await createOk(ctx, a, { property_type: type, property_category: type === 'hotel' ? 'resort_hotel' : 'vacation_rental' });
      expect(block.property_type).toBe(type);
    }
  });

  it('enforces the numeric ranges', async () => {
    const a = await ctx.createIntegration();
    const errors = await refused(
      merge({
        space: { bedrooms: -1, washrooms: 501 },
        occupancy: { min_guests: 0, max_guests: 501 },
        address: { latitude: 90.5, longitude: -180.01 },
        features: { max_pets: 51, pet_charges: -1 },
        pricing: {
          weekday: { base_price: -1, per_night_occupancy: 0, extra_adult_price: -0.01, extra_child_price: -5 },
          weekend: { base_price: 100 },
        },
      }),
    );
    expect(errors['space.bedrooms']).toEqual(['must be at least 0']);
    expect(errors['space.washrooms']).toEqual(['must be at most 500']);
    expect(errors['occupancy.min_guests']).toEqual(['must be at least 1']);
    expect(errors['occupancy.max_guests']).toEqual(['must be at most 500']);
    expect(errors['address.latitude']).toEqual(['must be at most 90']);
    expect(errors['address.longitude']).toEqual(['must be at least -180']);
    expect(errors['features.max_pets']).toEqual(['must be at most 50']);
    expect(errors['features.pet_charges']).toEqual(['must be at least 0']);
    expect(errors['pricing.weekday.base_price']).toEqual(['must be at least 0']);
    expect(errors['pricing.weekday.per_night_occupancy']).toEqual(['must be at least 1']);
    expect(errors['pricing.weekday.extra_adult_price']).toEqual(['must be at least 0']);
    expect(errors['pricing.weekday.extra_child_price']).toEqual(['must be at least 0']);

    const more = await refused(
      merge({ space: { bedrooms: 501, washrooms: -1 }, occupancy: { max_guests: 0 }, address: { latitude: -91, longitude: 181 }, features: { max_pets: -1 } }),
    );
    expect(Object.keys(more).sort()).toEqual([
      'address.latitude',
      'address.longitude',
      'features.max_pets',
      'occupancy.max_guests',
      'space.bedrooms',
      'space.washrooms',
    ]);

    const edges = await create(
      ctx,
      a,
      merge({
        space: { bedrooms: 0, washrooms: 500 },
        occupancy: { min_guests: 500, max_guests: 500 },
        address: { latitude: -90, longitude: 180 },
        features: { max_pets: 50, pet_charges: 0 },
        pricing: { weekday: { base_price: 0 }, weekend: { base_price: 0 } },
      }),
    );
    expect(edges.statusCode, edges.body).toBe(201);
  });

  it('refuses strings for numbers and booleans, and fractions for integers (nothing is coerced)', async () => {
    const errors = await refused(
      merge({
        space: { bedrooms: '3', washrooms: 1.5 },
        occupancy: { max_guests: '6' },
        features: { is_private: 'true', is_veg: 1 },
        pricing: { weekday: { base_price: '12000' }, weekend: { base_price: 100 } },
      }),
    );
    expect(errors['space.bedrooms']).toEqual(['must be an integer']);
    expect(errors['space.washrooms']).toEqual(['must be an integer']);
    expect(errors['occupancy.max_guests']).toEqual(['must be an integer']);
    expect(errors['features.is_private']).toEqual(['must be a boolean']);
    expect(errors['features.is_veg']).toEqual(['must be a boolean']);
    expect(errors['pricing.weekday.base_price']).toEqual(['must be a number']);
  });

  it('refuses max_guests below min_guests', async () => {
    const a = await ctx.createIntegration();
    const errors = await refused(merge({ occupancy: { min_guests: 5, max_guests: 4 } }));
    expect(errors).toEqual({ 'occupancy.max_guests': ['must not be below occupancy.min_guests'] });
    expect((await create(ctx, a, merge({ occupancy: { min_guests: 4, max_guests: 4 } }))).statusCode).toBe(201);
  });

  it('checks units: 1 to 50 entries, names required and unique, external ids unique in the request', async () => {
    const a = await ctx.createIntegration();
    expect(await refused(createBody({ units: [] }))).toHaveProperty('units');
    expect(await refused(createBody({ units: Array.from({ length: 51 }, (_, i) => ({ name: `U${i}` })) }))).toHaveProperty('units');
    const errors = await refused(
      createBody({
        units: [
          { name: 'Room 1', external_id: 'R1' },
          { code: 'X' },
          { name: ' room 1 ', external_id: 'R2' },
          { name: 'Room 4', external_id: 'R1' },
          'not a unit',
          { name: 'Room 6', max_occupancy: 0 },
        ],
      }),
    );
    expect(errors['units.1.name']).toEqual(['is required']);
    expect(errors['units.2.name']?.[0]).toMatch(/unique/);
    expect(errors['units.3.external_id']?.[0]).toMatch(/units\.0\.external_id/);
    expect(errors['units.4']).toEqual(['must be an object']);
    expect(errors['units.5.max_occupancy']).toEqual(['must be at least 1']);
    expect(errors).not.toHaveProperty('units.0.name');
    const fifty = await create(ctx, a, createBody({ units: Array.from({ length: 50 }, (_, i) => ({ name: `U${i}` })) }));
    expect(fifty.statusCode).toBe(201);
    expect(fifty.json().data.units).toHaveLength(50);
  });

  it('refuses a unit external id already mapped in the integration, creating nothing', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration();
    await createOk(ctx, b, { units: [{ name: 'Only', external_id: 'TAKEN-1' }] });
    const errors = await refused(
      createBody({
        units: [
          { name: 'A', external_id: 'FREE-1' },
          { name: 'B', external_id: 'TAKEN-1' },
        ],
      }),
      b,
    );
    expect(errors).toEqual({ 'units.1.external_id': [expect.stringMatching(/already mapped/)] });
    expect(await countProperties(ctx, b.brandId)).toBe(1);
    // another integration's aliases are its own business
    expect((await create(ctx, a, createBody({ units: [{ name: 'A', external_id: 'TAKEN-1' }] }))).statusCode).toBe(201);
  });
});

describe('POST /properties outcomes', () => {
  it('answers 201 with the Property block, applying the defaults', async () => {
    const b = await ctx.createIntegration();
    const res = await create(ctx, b, createBody({ external_id: 'VILLA-1', property_type: 'villa' }));
    expect(res.statusCode).toBe(201);
    const block = res.json().data;
    expect(res.json()).toMatchObject({ success: true, message: expect.any(String) });
    expect(block).toEqual({
      doorloom_id: expect.any(Number),
      external_id: 'VILLA-1',
      coverage: 'active',
      name: 'Sea Breeze Villa',
      property_type: 'villa',
      status: 'active',
      is_master: true,
      master_property_id: block.doorloom_id,
      units: [
        {
          inventory_id: expect.any(Number),
          external_unit_id: null,
          name: 'Sea Breeze Villa',
          code: null,
          is_active: true,
          is_default: true,
          max_occupancy: null,
          deleted: false,
        },
      ],
    });
    const detail = (await ctx.api(b.apiKey, 'GET', `/properties/${block.doorloom_id}`)).json().data;
    expect(detail).toMatchObject({
      description: 'Three bedrooms by the beach.',
      property_category: null,
      address: {
        address_line_1: '12 Beach Road',
        address_line_2: null,
        landmark: null,
        country: 'India',
        latitude: null,
        longitude: null,
        formatted_address: '12 Beach Road, Candolim, Goa 403515, India',
      },
      occupancy: { min_guests: 1, max_guests: 6 },
      pricing: {
        weekday: { base_price: 12000, per_night_occupancy: 6, extra_adult_price: 0, extra_child_price: 0 },
        weekend: { base_price: 15000, per_night_occupancy: 6, extra_adult_price: 0, extra_child_price: 0 },
      },
      features: { is_private: false, is_pet_friendly: false, max_pets: null, pet_charges: null, is_veg: false, is_smoking_in_rooms: false },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$/),
    });
  });

  it('keeps what was sent: formatted_address, prices (rounded to paise), features, units in order', async () => {
    const a = await ctx.createIntegration();
    const block = await createOk(ctx, a, {
      address: {
        address_line_1: 'L1',
        address_line_2: 'L2',
        landmark: 'Near the fort',
        city: 'Pune',
        state: 'MH',
        country: 'Bharat',
        pin_code: '411001',
        latitude: 18.5,
        longitude: 73.8,
        formatted_address: 'Custom text',
      },
      occupancy: { min_guests: 2, max_guests: 8 },
      pricing: {
        weekday: { base_price: 999.999, per_night_occupancy: 4, extra_adult_price: 500.5, extra_child_price: 250 },
        weekend: { base_price: 13000.0, extra_child_price: 1.005 },
      },
      features: { is_private: true, is_pet_friendly: true, max_pets: 2, pet_charges: 300, is_veg: true, is_smoking_in_rooms: true },
      units: [{ name: 'Garden Room', external_id: 'GR-1', code: 'GR', max_occupancy: 3 }, { name: 'Sea Room', external_id: 'SR-1' }, { name: 'Attic' }],
    });
    expect(
      block.units.map((u: { name: string; is_default: boolean; external_unit_id: string | null; code: string | null; max_occupancy: number | null }) => [
        u.name,
        u.is_default,
        u.external_unit_id,
        u.code,
        u.max_occupancy,
      ]),
    ).toEqual([
      ['Garden Room', true, 'GR-1', 'GR', 3],
      ['Sea Room', false, 'SR-1', null, null],
      ['Attic', false, null, null, null],
    ]);
    const detail = (await ctx.api(a.apiKey, 'GET', `/properties/${block.doorloom_id}`)).json().data;
    expect(detail.address).toEqual({
      address_line_1: 'L1',
      address_line_2: 'L2',
      landmark: 'Near the fort',
      city: 'Pune',
      state: 'MH',
      country: 'Bharat',
      pin_code: '411001',
      latitude: 18.5,
      longitude: 73.8,
      formatted_address: 'Custom text',
    });
    expect(detail.occupancy).toEqual({ min_guests: 2, max_guests: 8 });
    expect(detail.pricing).toEqual({
      weekday: { base_price: 1000, per_night_occupancy: 4, extra_adult_price: 500.5, extra_child_price: 250 },
      weekend: { base_price: 13000, per_night_occupancy: 8, extra_adult_price: 0, extra_child_price: 1.01 },
    });
    expect(detail.features).toEqual({ is_private: true, is_pet_friendly: true, max_pets: 2, pet_charges: 300, is_veg: true, is_smoking_in_rooms: true });
  });

  it('ignores fields the service decides and unknown fields', async () => {
    const a = await ctx.createIntegration();
    const other = await ctx.createBrand('Other');
    const block = await createOk(ctx, a, {
      status: 'archived',
      coverage: 'none',
      brand_id: other,
      owner_id: 99,
      doorloom_id: 1,
      is_master: false,
      master_property_id: 1,
      cluster: { position: 2 },
      colour: 'blue',
    });
    expect(block).toMatchObject({ status: 'active', coverage: 'active', is_master: true, master_property_id: block.doorloom_id });
    expect(block.doorloom_id).not.toBe(1);
    const row = await ctx.deps.db.selectFrom('properties').select('brand_id').where('id', '=', block.doorloom_id).executeTakeFirstOrThrow();
    expect(row.brand_id).toBe(a.brandId);
  });

  it('answers 409 PROPERTY_EXTERNAL_ID_EXISTS naming the holder, creating nothing', async () => {
    const b = await ctx.createIntegration();
    const holder = await createOk(ctx, b, { external_id: 'EXT-1' });
    const res = await create(ctx, b, createBody({ external_id: 'EXT-1', name: 'Copy' }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      ...failure('PROPERTY_EXTERNAL_ID_EXISTS'),
      errors: { external_id: [expect.any(String)], doorloom_id: holder.doorloom_id },
    });
    expect(await countProperties(ctx, b.brandId)).toBe(1);
    // external ids are per integration
    const c = await ctx.createIntegration({ brandId: b.brandId });
    expect((await create(ctx, c, createBody({ external_id: 'EXT-1' }))).statusCode).toBe(201);
  });

  it('lets one of two racing creates take an external id; the other is 409 (or 422 for a unit alias)', async () => {
    const b = await ctx.createIntegration({ horizon_days: 1 });
    const [r1, r2] = await Promise.all([create(ctx, b, createBody({ external_id: 'RACE' })), create(ctx, b, createBody({ external_id: 'RACE' }))]);
    expect([r1.statusCode, r2.statusCode].sort()).toEqual([201, 409]);
    const loser = r1.statusCode === 409 ? r1 : r2;
    const winner = loser === r1 ? r2 : r1;
    expect(loser.json()).toMatchObject({ ...failure('PROPERTY_EXTERNAL_ID_EXISTS'), errors: { doorloom_id: winner.json().data.doorloom_id } });
    const units = (id: string) => createBody({ units: [{ name: 'U', external_id: id }] });
    const [u1, u2] = await Promise.all([create(ctx, b, units('RACE-U')), create(ctx, b, units('RACE-U'))]);
    expect([u1.statusCode, u2.statusCode].sort()).toEqual([201, 422]);
    expect((u1.statusCode === 422 ? u1 : u2).json().errors).toHaveProperty(['units.0.external_id']);
    expect(await countProperties(ctx, b.brandId)).toBe(2);
  });

  it('lists the new property at once', async () => {
    const b = await ctx.createIntegration();
    const block = await createOk(ctx, b, { external_id: 'LISTED' });
    const list = (await ctx.api(b.apiKey, 'GET', '/properties')).json();
    expect(list.data.properties).toEqual([block]);
  });
});

describe('initial-state events', () => {
  it('records property, inventory, then availability, rates and restrictions by month over the horizon', async () => {
    const b = await ctx.createIntegration({ horizon_days: 45 });
    const block = await createOk(ctx, b, { external_id: 'EV-1', units: [{ name: 'One', external_id: 'ONE' }, { name: 'Two' }] });
    const events = await eventsOf(ctx, b.id);
    const windows = horizonWindows(today(ctx), 45);
    expect(windows.length).toBeGreaterThanOrEqual(2);
    expect(events).toHaveLength(2 + 3 * windows.length);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.type)).toEqual([
      'property.changed',
      'inventory.changed',
      ...windows.map(() => 'availability.changed'),
      ...windows.map(() => 'rates.changed'),
      ...windows.map(() => 'restrictions.changed'),
    ]);
    expect(events.slice(2).map((e) => e.window)).toEqual([...windows, ...windows, ...windows]);
    for (const e of events) {
      expect(e.origin).toBe('partner');
      expect(e.property).toEqual({ doorloom_id: block.doorloom_id, external_id: 'EV-1' });
      expect(e.data).toBeTruthy();
    }
    const [property, inventory] = events;
    expect(property.window).toBeNull();
    expect(property.data.property).toMatchObject({
      ...block,
      description: expect.any(String),
      address: expect.objectContaining({ formatted_address: expect.any(String) }),
      space: { bedrooms: 3, washrooms: 2 },
      occupancy: { min_guests: 1, max_guests: 6 },
      pricing: expect.any(Object),
      features: expect.any(Object),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(inventory.data).toEqual({ units: block.units });
    expect(inventory.data.units.map((u: { external_unit_id: string | null; deleted: boolean }) => [u.external_unit_id, u.deleted])).toEqual([
      ['ONE', false],
      [null, false],
    ]);
  });

  it('records about forty events for the default 365-day horizon', async () => {
    const b = await ctx.createIntegration();
    await createOk(ctx, b);
    const months = horizonWindows(today(ctx), 365).length;
    expect(months).toBeGreaterThanOrEqual(12);
    expect(await eventsOf(ctx, b.id)).toHaveLength(2 + 3 * months);
  });

  it('records nothing when the create is refused', async () => {
    const b = await ctx.createIntegration();
    await createOk(ctx, b, { external_id: 'ONLY' });
    const before = (await eventsOf(ctx, b.id)).length;
    expect((await create(ctx, b, createBody({ external_id: 'ONLY' }))).statusCode).toBe(409);
    expect(await eventsOf(ctx, b.id)).toHaveLength(before);
  });
});
