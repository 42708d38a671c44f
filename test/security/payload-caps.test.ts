import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { changedTables, COUNTER_TABLES, tableDigest } from '../helpers/digest.js';
import { bookingBody, buildWorld, createVilla, expectStatus, newKey, newRef, propertyBody, type Villa, type World } from './world.js';

/**
 * Every per-field cap of the contract's Limits table (and the caps of the Resources tables it
 * repeats) answers 422 on the right dotted key with a message naming the cap, writes nothing, and
 * lets the value at the cap through. An array far over its cap answers with a bounded error body:
 * the cap, and no message per item beyond it.
 *
 * Each request moves the service clock a minute first, so the rate tiers (30 property writes,
 * 6 bulk calls a minute) never answer instead of the validation.
 */

let ctx: TestContext;
let w: World;
/** A villa of A with 20 aliased units (a booking of 20 units fits). */
let big: Villa;

beforeAll(async () => {
  ctx = await createTestContext();
  w = await buildWorld(ctx);
  big = await createVilla(ctx, w.a, newRef('BIG'), 20);
});
afterAll(() => ctx.close());

async function send(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  integration: TestIntegration = w.a,
) {
  await ctx.advanceClock(60);
  return ctx.api(integration.apiKey, method, path, body, headers);
}

const create = (body: unknown, key = newKey()) => send('POST', '/properties', body, { 'idempotency-key': key });
const book = (body: unknown, key = newKey()) => send('POST', '/bookings', body, { 'idempotency-key': key });

/** The state a refusal must leave alone: the clock moves of send() are the test's, not the request's. */
const state = () => tableDigest(ctx, [...COUNTER_TABLES, 'service_clock']);

/** 422 VALIDATION_FAILED with exactly `key` refused, a message naming `cap`, and nothing written. */
async function expectRefused(request: () => Promise<LightMyRequestResponse>, key: string, cap?: number | string) {
  const before = await state();
  const res = await request();
  expect(res.statusCode, `${key}: ${res.body.slice(0, 300)}`).toBe(422);
  const body = res.json();
  expect(body).toMatchObject(failure('VALIDATION_FAILED'));
  expect(Object.keys(body.errors), key).toEqual([key]);
  expect(body.errors[key]).toEqual(expect.arrayContaining([expect.any(String)]));
  if (cap !== undefined) expect(body.errors[key].join(' '), key).toContain(String(cap));
  expect(changedTables(before, await state()), `${key}: written by a refusal`).toEqual([]);
}

const chars = (n: number, fill = 'x') => fill.repeat(n);
/** An external id of exactly `n` characters using every allowed kind of character. */
const externalIdOf = (n: number) => {
  const head = `${newRef('Ok')}.A_z:9-`;
  return head + chars(n - head.length, 'q');
};
const units = (n: number, unit: (i: number) => Record<string, unknown> = (i) => ({ name: `Room ${i}` })) => Array.from({ length: n }, (_, i) => unit(i));

describe('property input caps (POST /properties, PUT /properties/{property})', () => {
  const createCases: Array<[string, (b: Record<string, any>) => void, string, number | string | undefined]> = [
    ['51 units', (b) => (b.units = units(51)), 'units', 50],
    ['a 129-character external_id', (b) => (b.external_id = externalIdOf(129)), 'external_id', 128],
    ['a 256-character name', (b) => (b.name = chars(256)), 'name', 255],
    ['a 2001-character description', (b) => (b.description = chars(2001)), 'description', 2000],
    ['a 129-character units[].external_id', (b) => (b.units[1].external_id = externalIdOf(129)), 'units.1.external_id', 128],
    ['a 256-character units[].name', (b) => (b.units[1].name = chars(256)), 'units.1.name', 255],
    ['a 65-character units[].code', (b) => (b.units[0].code = chars(65)), 'units.0.code', 64],
    ['a 256-character address_line_1', (b) => (b.address.address_line_1 = chars(256)), 'address.address_line_1', 255],
    ['a 101-character city', (b) => (b.address.city = chars(101)), 'address.city', 100],
    ['a 21-character pin_code', (b) => (b.address.pin_code = chars(21)), 'address.pin_code', 20],
    ['a 501-character formatted_address', (b) => (b.address.formatted_address = chars(501)), 'address.formatted_address', 500],
    ['501 bedrooms', (b) => (b.space.bedrooms = 501), 'space.bedrooms', 500],
    ['max_guests 501', (b) => (b.occupancy.max_guests = 501), 'occupancy.max_guests', 500],
    ['max_pets 51', (b) => (b.features.max_pets = 51), 'features.max_pets', 50],
  ];
  for (const [label, mutate, key, cap] of createCases) {
    it(`create refuses ${label} on ${key}`, async () => {
      const body = propertyBody(newRef('C'), 2);
      mutate(body);
      await expectRefused(() => create(body), key, cap);
    });
  }

  const badCharacters = ['with space', 'slash/inside', 'hash#', 'ünï', 'emoji😀', 'semi;colon', 'new\nline', ''];
  it('refuses external ids outside A-Z a-z 0-9 . _ : - (property and unit)', async () => {
    for (const bad of badCharacters) {
      await expectRefused(() => create({ ...propertyBody(newRef('C'), 2), external_id: bad }), 'external_id');
      const body = propertyBody(newRef('C'), 2) as { units: Array<Record<string, unknown>> };
      body.units[0].external_id = bad;
      await expectRefused(() => create(body), 'units.0.external_id');
    }
  });

  it('accepts every field at its cap: 50 units, 128-character ids, 255-character names, 2000-character description', async () => {
    const externalId = externalIdOf(128);
    const body = {
      ...propertyBody(externalId, 0),
      name: chars(255, 'N'),
      description: chars(2000, 'D'),
      units: units(50, (i) => ({
        name: `${chars(250, 'U')}${String(i).padStart(5, '0')}`,
        external_id: `${externalIdOf(120)}-${String(i).padStart(7, '0')}`,
        code: chars(64, 'C'),
      })),
    };
    const res = await create(body);
    expectStatus(res, 201);
    expect(res.json().data.external_id).toBe(externalId);
    expect(res.json().data.units).toHaveLength(50);
    expect(res.json().data.units[49].external_unit_id).toHaveLength(128);
  });

  const updateCases: Array<[string, Record<string, unknown>, string, number | undefined]> = [
    ['51 units', { units: units(51, (i) => ({ external_id: `new-${i}`, name: `New ${i}` })) }, 'units', 50],
    ['a 129-character external_id', { external_id: externalIdOf(129) }, 'external_id', 128],
    ['an external_id with a space', { external_id: 'a b' }, 'external_id', undefined],
    ['a 256-character name', { name: chars(256) }, 'name', 255],
    ['a 2001-character description', { description: chars(2001) }, 'description', 2000],
    ['a 129-character units[].external_id', { units: [{ external_id: externalIdOf(129), name: 'x' }] }, 'units.0.external_id', 128],
    ['a units[].external_id with a slash', { units: [{ external_id: 'a/b', name: 'x' }] }, 'units.0.external_id', undefined],
    ['a 256-character units[].name', { units: [{ inventory_id: 1, name: chars(256) }] }, 'units.0.name', 255],
  ];
  for (const [label, body, key, cap] of updateCases) {
    it(`update refuses ${label} on ${key}`, async () => {
      await expectRefused(() => send('PUT', `/properties/${w.villaA.id}`, body), key, cap);
    });
  }

  it('update accepts a 2000-character description, a 255-character name and a 128-character external_id', async () => {
    const villa = await createVilla(ctx, w.a, newRef('UPD'), 1);
    const externalId = externalIdOf(128);
    const res = await send('PUT', `/properties/${villa.id}`, { name: chars(255, 'n'), description: chars(2000, 'd'), external_id: externalId });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ name: chars(255, 'n'), external_id: externalId });
  });
});

describe('bulk caps (POST and PUT /properties/bulk)', () => {
  const bulkCreate = (properties: unknown[]) => send('POST', '/properties/bulk', { properties }, { 'idempotency-key': newKey() });
  const bulkUpdate = (properties: unknown[]) => send('PUT', '/properties/bulk', { properties });

  it('26 items are refused on properties; item caps carry the properties.N. prefix', async () => {
    await expectRefused(() => bulkCreate(units(26, () => propertyBody(null, 1))), 'properties', 25);
    await expectRefused(() => bulkUpdate(units(26, () => ({ doorloom_id: w.villaA.id }))), 'properties', 25);
    await expectRefused(() => bulkCreate([propertyBody(newRef('K'), 1), { ...propertyBody(newRef('K'), 1), name: chars(256) }]), 'properties.1.name', 255);
    await expectRefused(() => bulkCreate([{ ...propertyBody(newRef('K'), 1), units: units(51) }]), 'properties.0.units', 50);
    await expectRefused(() => bulkCreate([{ ...propertyBody(newRef('K'), 1), external_id: 'no spaces allowed' }]), 'properties.0.external_id');
    await expectRefused(() => bulkUpdate([{ doorloom_id: w.villaA.id, description: chars(2001) }]), 'properties.0.description', 2000);
    await expectRefused(
      () => bulkUpdate([{ doorloom_id: w.villaA.id, units: [{ external_id: externalIdOf(129), name: 'x' }] }]),
      'properties.0.units.0.external_id',
      128,
    );
  });
});

describe('booking caps (POST /bookings, PATCH, cancel)', () => {
  const valid = (offset: number) => bookingBody(ctx, big, offset);
  const createCases: Array<[string, (b: Record<string, any>) => void, string, number]> = [
    ['21 units', (b) => (b.units = units(21, () => ({ adults: 1 }))), 'units', 20],
    ['51 adults', (b) => (b.units[0].adults = 51), 'units.0.adults', 50],
    ['51 children', (b) => (b.units[0].children = 51), 'units.0.children', 50],
    ['a 129-character external_booking_id', (b) => (b.external_booking_id = chars(129)), 'external_booking_id', 128],
    ['2001-character notes', (b) => (b.notes = chars(2001)), 'notes', 2000],
    ['a 501-character reason', (b) => (b.reason = chars(501)), 'reason', 500],
    ['a 501-character refund_note', (b) => (b.refund_note = chars(501)), 'refund_note', 500],
    ['a 256-character guest name', (b) => (b.guest.name = chars(256)), 'guest.name', 255],
  ];
  for (const [label, mutate, key, cap] of createCases) {
    it(`create refuses ${label} on ${key}`, async () => {
      const body = valid(5);
      mutate(body);
      await expectRefused(() => book(body), key, cap);
    });
  }

  it('create accepts 20 units of 50 adults and 50 children, a 128-character id, 2000-character notes, 500-character reason and refund_note', async () => {
    const body = {
      ...valid(200),
      external_booking_id: chars(128, 'B'),
      units: big.aliases.map((alias) => ({ external_unit_id: alias, adults: 50, children: 50 })),
      notes: chars(2000, 'n'),
      reason: chars(500, 'r'),
      refund_note: chars(500, 'f'),
    };
    const res = await book(body);
    expectStatus(res, 201);
    expect(res.json().data.units).toHaveLength(20);
    expect(res.json().data.external_booking_id).toHaveLength(128);
  });

  it('PATCH and cancel refuse over-long notes, reason, refund_note and too many units or guests', async () => {
    const created = await book(valid(300));
    expectStatus(created, 201);
    const id = created.json().data.id;
    const patch = (body: unknown) => () => send('PATCH', `/bookings/${id}`, body);
    await expectRefused(patch({ notes: chars(2001) }), 'notes', 2000);
    await expectRefused(patch({ reason: chars(501) }), 'reason', 500);
    await expectRefused(patch({ refund_note: chars(501) }), 'refund_note', 500);
    await expectRefused(patch({ units: units(21, () => ({ adults: 1 })) }), 'units', 20);
    await expectRefused(patch({ units: [{ external_unit_id: big.aliases[0], adults: 51 }] }), 'units.0.adults', 50);
    await expectRefused(patch({ units: [{ external_unit_id: big.aliases[0], children: 51 }] }), 'units.0.children', 50);
    await expectRefused(() => send('POST', `/bookings/${id}/cancel`, { reason: chars(501) }), 'reason', 500);
    await expectRefused(() => send('POST', `/bookings/${id}/cancel`, { refund_note: chars(501) }), 'refund_note', 500);

    expectStatus(await send('PATCH', `/bookings/${id}`, { notes: chars(2000), reason: chars(500), refund_note: chars(500) }), 200);
    const cancelled = await send('POST', `/bookings/${id}/cancel`, { reason: chars(500, 'z'), refund_note: chars(500, 'y') });
    expectStatus(cancelled, 200);
    expect(cancelled.json().data.cancellation.reason).toBe(chars(500, 'z'));
  });
});

describe('query caps', () => {
  it('per_page of GET /bookings and GET /properties, limit of GET /events: 1 to 200', async () => {
    for (const [path, key] of [
      ['/bookings?per_page=', 'per_page'],
      ['/properties?per_page=', 'per_page'],
      ['/events?limit=', 'limit'],
    ] as const) {
      for (const bad of ['201', '0', '1000000']) await expectRefused(() => send('GET', path + bad), key, bad === '0' ? 1 : 200);
      expectStatus(await send('GET', `${path}200`), 200);
      expectStatus(await send('GET', `${path}1`), 200);
    }
  });
});

describe('POST /sync: property_ids up to 500', () => {
  it('501 ids are refused on property_ids; 500 are accepted', async () => {
    const fresh = await ctx.createIntegration({ brandId: w.a.brandId, horizon_days: 30 });
    const villa = await createVilla(ctx, fresh, newRef('SY'), 1);
    await expectRefused(() => send('POST', '/sync', { property_ids: Array(501).fill(villa.id) }, {}, fresh), 'property_ids', 500);
    const accepted = await send('POST', '/sync', { property_ids: Array(500).fill(villa.id) }, {}, fresh);
    expectStatus(accepted, 202);
    expect(accepted.json().data.queued_properties).toBe(1);
  });
});

describe('Idempotency-Key: 8 to 128 visible ASCII characters', () => {
  let bookingsMade = 0;
  const keyOf = (n: number) => `${newKey()}${chars(128)}`.slice(0, n);
  for (const [label, path, body] of [
    ['POST /properties', '/properties', () => propertyBody(newRef('IK'), 1)],
    ['POST /properties/bulk', '/properties/bulk', () => ({ properties: [propertyBody(newRef('IK'), 1)] })],
    ['POST /bookings', '/bookings', () => bookingBody(ctx, big, 400 + 3 * bookingsMade++)],
  ] as const) {
    it(`${label}: shorter, longer, empty or non-ASCII keys are IDEMPOTENCY_KEY_REQUIRED; 8 and 128 are accepted`, async () => {
      for (const key of [keyOf(7), keyOf(129), '', 'sec-key with spaces', 'sec-kéy-0000', keyOf(127) + '\t']) {
        const before = await tableDigest(ctx, []);
        const res = await send('POST', path, body(), { 'idempotency-key': key });
        expect(res.statusCode, JSON.stringify(key)).toBe(422);
        expect(res.json()).toEqual(failure('IDEMPOTENCY_KEY_REQUIRED'));
        expect(res.json().message).toMatch(/8 to 128/);
        // nothing at all: not even an idempotency record (send()'s clock move is a staff call, which may record its token's use)
        expect(changedTables(before, await tableDigest(ctx, [])).filter((t) => !['rate_limit_counters', 'service_clock', 'staff_tokens'].includes(t))).toEqual(
          [],
        );
      }
      expectStatus(await send('POST', path, body(), { 'idempotency-key': keyOf(8) }), 201);
      expectStatus(await send('POST', path, body(), { 'idempotency-key': keyOf(128) }), 201);
    });
  }
});

describe('arrays far over their cap: one refusal on the array, no message per item beyond the cap', () => {
  const ENTRIES = 1000; // the most an array may hold before the body is refused outright (413)
  const cases: Array<[string, () => Promise<LightMyRequestResponse>, string, number]> = [
    ['POST /properties units[] of valid entries', () => create({ ...propertyBody(newRef('L'), 0), units: units(ENTRIES) }), 'units', 50],
    ['POST /properties units[] of invalid entries', () => create({ ...propertyBody(newRef('L'), 0), units: Array(ENTRIES).fill({ name: 7 }) }), 'units', 50],
    [
      'POST /properties units[] of one repeated entry',
      () => create({ ...propertyBody(newRef('L'), 0), units: Array(ENTRIES).fill({ name: 'Same', external_id: 'same' }) }),
      'units',
      50,
    ],
    [
      'PUT /properties/{property} units[] of one repeated entry',
      () => send('PUT', `/properties/${w.villaA.id}`, { units: Array(ENTRIES).fill({ inventory_id: 1 }) }),
      'units',
      50,
    ],
    [
      'POST /bookings units[] of one repeated unit',
      () => book({ ...bookingBody(ctx, big, 5), units: Array(ENTRIES).fill({ external_unit_id: big.aliases[0] }) }),
      'units',
      20,
    ],
    ['PUT /properties/{property} units[]', () => send('PUT', `/properties/${w.villaA.id}`, { units: Array(ENTRIES).fill({ inventory_id: 'x' }) }), 'units', 50],
    [
      'POST /properties/bulk properties[]',
      () => send('POST', '/properties/bulk', { properties: Array(ENTRIES).fill({}) }, { 'idempotency-key': newKey() }),
      'properties',
      25,
    ],
    ['PUT /properties/bulk properties[]', () => send('PUT', '/properties/bulk', { properties: Array(ENTRIES).fill({ doorloom_id: 'x' }) }), 'properties', 25],
    ['POST /bookings units[]', () => book({ ...bookingBody(ctx, big, 5), units: Array(ENTRIES).fill({ adults: 99 }) }), 'units', 20],
    ['PATCH /bookings/{id} units[]', () => send('PATCH', `/bookings/${w.bookingA.id}`, { units: Array(ENTRIES).fill({ children: -1 }) }), 'units', 20],
    ['POST /sync property_ids[]', () => send('POST', '/sync', { property_ids: Array(ENTRIES).fill(0) }), 'property_ids', 500],
  ];
  for (const [label, request, key, cap] of cases) {
    it(label, async () => {
      const before = await state();
      const res = await request();
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      const body = res.json();
      expect(body).toMatchObject(failure('VALIDATION_FAILED'));
      expect(body.errors[key].join(' ')).toContain(String(cap));
      // keys for entries within the cap may be there (they say what else is wrong); none beyond it
      for (const k of Object.keys(body.errors)) {
        const index = new RegExp(`^${key.replace('.', '\\.')}\\.(\\d+)`).exec(k);
        if (index) expect(Number(index[1]), k).toBeLessThan(cap);
      }
      expect(res.body.length).toBeLessThan(64 * 1024);
      expect(changedTables(before, await state())).toEqual([]);
    });
  }
});
