import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';
import { changedTables, tableDigest } from '../helpers/digest.js';
import { bookingBody, buildWorld, createVilla, expectStatus, newKey, newRef, propertyBody, type World } from './world.js';

/**
 * Mass assignment: fields the service decides (contract: "Owner, brand, status, coverage and
 * cluster position are decided by the service from the API key; such fields in a body are
 * ignored"; decisions §4: revision, status transitions, the patchable fields) are ignored or
 * refused, and the stored record is unchanged. Every check reads back through the API and the
 * database.
 */

let ctx: TestContext;
let w: World;

beforeAll(async () => {
  ctx = await createTestContext();
  w = await buildWorld(ctx);
});
afterAll(() => ctx.close());

const LONG_AGO = '2000-01-01T00:00:00+05:30';

/** Everything a property body could try to decide for the service. */
function decidedPropertyFields(): Record<string, unknown> {
  return {
    id: 999_999,
    doorloom_id: 999_999,
    owner: 'mallory',
    owner_id: 1,
    brand_id: w.b.brandId,
    brand: { id: w.b.brandId, name: 'Brand Y' },
    status: 'archived',
    coverage: 'removed',
    is_master: false,
    master_property_id: w.villaB.id,
    cluster: { master_property_id: w.villaB.id },
    revision: 99,
    sequence: 12345,
    created_at: LONG_AGO,
    updated_at: LONG_AGO,
    archived_at: LONG_AGO,
    integration: { id: w.b.id, slug: w.b.slug },
    integration_id: w.b.id,
    created_by_integration_id: w.b.id,
  };
}

/** Unit fields the service decides on create: id, default flag, position, sale state, property. */
const decidedUnitFields = (i: number) => ({
  inventory_id: 900_000 + i,
  id: 900_000 + i,
  is_default: i !== 0,
  is_active: false,
  deleted: true,
  position: 50 - i,
  property_id: w.villaB.id,
});

const propertyRow = (id: number) => ctx.deps.db.selectFrom('properties').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const unitRows = (propertyId: number) => ctx.deps.db.selectFrom('units').selectAll().where('property_id', '=', propertyId).orderBy('position').execute();
const coverageRows = (propertyId: number) =>
  ctx.deps.db.selectFrom('coverage').select(['integration_id', 'external_id']).where('property_id', '=', propertyId).execute();

/** What the service decides about a property A created, read from the API and from the database. */
async function expectDecidedByService(propertyId: number, externalId: string) {
  const res = await ctx.api(w.a.apiKey, 'GET', `/properties/${propertyId}`);
  expectStatus(res, 200);
  const block = res.json().data;
  expect(block).toMatchObject({
    doorloom_id: propertyId,
    external_id: externalId,
    coverage: 'active',
    status: 'active',
    is_master: true,
    master_property_id: propertyId,
  });
  expect(block.created_at).not.toBe(LONG_AGO);
  expect(block.units.map((u: { is_active: boolean; is_default: boolean }) => [u.is_active, u.is_default])).toEqual([
    [true, true],
    [true, false],
  ]);
  for (const u of block.units) expect(u.inventory_id).toBeLessThan(900_000);

  const row = await propertyRow(propertyId);
  expect(row).toMatchObject({ brand_id: w.a.brandId, status: 'active', created_by_integration_id: w.a.id, archived_at: null });
  expect(row.created_at.getFullYear()).not.toBe(2000);
  expect(await coverageRows(propertyId)).toEqual([{ integration_id: w.a.id, external_id: externalId }]);
  const units = await unitRows(propertyId);
  expect(units.map((u) => [u.property_id, u.position, u.is_active, u.is_default])).toEqual([
    [propertyId, 1, true, true],
    [propertyId, 2, true, false],
  ]);
  // events went to A only
  const receivers = await ctx.deps.db.selectFrom('events').select('integration_id').distinct().where('property_id', '=', propertyId).execute();
  expect(receivers).toEqual([{ integration_id: w.a.id }]);
}

describe('property creates ignore the fields the service decides', () => {
  it('POST /properties', async () => {
    const externalId = newRef('MA');
    const body = propertyBody(externalId, 2);
    const res = await ctx.api(
      w.a.apiKey,
      'POST',
      '/properties',
      { ...body, ...decidedPropertyFields(), units: (body.units as object[]).map((u, i) => ({ ...u, ...decidedUnitFields(i) })) },
      { 'idempotency-key': newKey() },
    );
    expectStatus(res, 201);
    expect(res.json().data.doorloom_id).not.toBe(999_999);
    await expectDecidedByService(res.json().data.doorloom_id, externalId);
  });

  it('POST /properties/bulk', async () => {
    const externalId = newRef('MB');
    const body = propertyBody(externalId, 2);
    const item = { ...body, ...decidedPropertyFields(), units: (body.units as object[]).map((u, i) => ({ ...u, ...decidedUnitFields(i) })) };
    const res = await ctx.api(
      w.a.apiKey,
      'POST',
      '/properties/bulk',
      { properties: [item], brand_id: w.b.brandId, integration_id: w.b.id },
      { 'idempotency-key': newKey() },
    );
    expectStatus(res, 201);
    await expectDecidedByService(res.json().data.results[0].doorloom_id, externalId);
  });
});

describe('property updates leave what the service decides as it was', () => {
  it('PUT /properties/{property}: only the sent input groups change', async () => {
    const villa = await createVilla(ctx, w.a, newRef('MU'), 2);
    const before = { row: await propertyRow(villa.id), units: await unitRows(villa.id), coverage: await coverageRows(villa.id) };
    const createdAt = (await ctx.api(w.a.apiKey, 'GET', `/properties/${villa.id}`)).json().data.created_at;
    const res = await ctx.api(w.a.apiKey, 'PUT', `/properties/${villa.id}`, {
      ...decidedPropertyFields(),
      name: 'Renamed Villa',
      units: [{ inventory_id: villa.unitIds[1], name: 'Renamed room', is_default: true, position: 1, property_id: w.villaB.id, deleted: true, id: 5 }],
    });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ doorloom_id: villa.id, status: 'active', coverage: 'active', is_master: true, master_property_id: villa.id });

    const after = { row: await propertyRow(villa.id), units: await unitRows(villa.id), coverage: await coverageRows(villa.id) };
    expect(after.row).toEqual({ ...before.row, name: 'Renamed Villa', updated_at: after.row.updated_at });
    expect(after.coverage).toEqual(before.coverage);
    expect(after.units).toEqual([before.units[0], { ...before.units[1], name: 'Renamed room', updated_at: after.units[1].updated_at }]);
    const read = (await ctx.api(w.a.apiKey, 'GET', `/properties/${villa.id}`)).json().data;
    expect(read.created_at).toBe(createdAt);
    expect(read.units.map((u: { is_default: boolean }) => u.is_default)).toEqual([true, false]);
  });

  it('PUT /properties/{property}: status in the body does not un-archive a property', async () => {
    const before = await tableDigest(ctx);
    const res = await ctx.api(w.a.apiKey, 'PUT', `/properties/${w.archivedA.id}`, { status: 'active', archived_at: null, name: 'Back again' });
    expectStatus(res, 422);
    expect(res.json()).toEqual(failure('PROPERTY_ARCHIVED'));
    expect((await propertyRow(w.archivedA.id)).status).toBe('archived');
    expect(changedTables(before, await tableDigest(ctx))).toEqual([]);
  });

  it('PUT /properties/bulk: decided fields of an item are ignored', async () => {
    const villa = await createVilla(ctx, w.a, newRef('MV'), 1);
    const before = await propertyRow(villa.id);
    const res = await ctx.api(w.a.apiKey, 'PUT', '/properties/bulk', {
      properties: [{ ...decidedPropertyFields(), doorloom_id: villa.id, description: 'New description' }],
    });
    expectStatus(res, 200);
    expect(res.json().data.results[0]).toMatchObject({ status: 'updated', doorloom_id: villa.id });
    const after = await propertyRow(villa.id);
    expect(after).toEqual({ ...before, description: 'New description', updated_at: after.updated_at });
    expect(await coverageRows(villa.id)).toEqual([{ integration_id: w.a.id, external_id: villa.externalId }]);
  });
});

/** Everything a booking body could try to decide for the service. */
function decidedBookingFields(): Record<string, unknown> {
  return {
    id: 424_242,
    revision: 99,
    integration_id: w.b.id,
    integration: { id: w.b.id },
    owner: 'mallory',
    brand_id: w.b.brandId,
    created_at: LONG_AGO,
    updated_at: LONG_AGO,
    cancelled_at: LONG_AGO,
    cancellation: { reason: 'x', refund_note: 'y', cancelled_at: LONG_AGO },
    nights: 99,
    duplicate: true,
    sequence: 12345,
  };
}

const bookingRow = (id: number) => ctx.deps.db.selectFrom('bookings').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('bookings: decided fields are ignored, status only through its transitions', () => {
  it('POST /bookings ignores id, revision, owner, timestamps and cancellation', async () => {
    const body = { ...bookingBody(ctx, w.villaA, 60), ...decidedBookingFields() };
    const res = await ctx.api(w.a.apiKey, 'POST', '/bookings', body, { 'idempotency-key': newKey() });
    expectStatus(res, 201);
    const created = res.json().data;
    expect(created.id).not.toBe(424_242);
    expect(created).toMatchObject({
      revision: 1,
      status: 'confirmed',
      nights: 2,
      cancellation: null,
      duplicate: false,
      external_booking_id: body.external_booking_id,
    });
    expect(created.created_at).not.toBe(LONG_AGO);
    const read = (await ctx.api(w.a.apiKey, 'GET', `/bookings/${created.id}`)).json().data;
    expect(read).toMatchObject({ id: created.id, revision: 1, status: 'confirmed', cancellation: null });
    const row = await bookingRow(created.id);
    expect(row).toMatchObject({ integration_id: w.a.id, property_id: w.villaA.id, revision: 1, cancelled_at: null, reason: null, refund_note: null });
    expect(row.created_at.getFullYear()).not.toBe(2000);
    expect(await ctx.api(w.b.apiKey, 'GET', `/bookings/${created.id}`)).toMatchObject({ statusCode: 404 });
  });

  it('POST /bookings refuses a status a booking cannot be created in, and writes nothing', async () => {
    for (const status of ['cancelled', 'completed', 'refunded', 'archived']) {
      const before = await tableDigest(ctx);
      const res = await ctx.api(w.a.apiKey, 'POST', '/bookings', { ...bookingBody(ctx, w.villaA, 70), status }, { 'idempotency-key': newKey() });
      expectStatus(res, 422);
      expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { status: expect.any(Array) } });
      expect(changedTables(before, await tableDigest(ctx))).toEqual([]);
    }
  });

  it('PATCH ignores id, revision, external_booking_id, property and owner; only the patchable fields change', async () => {
    const created = (await ctx.api(w.a.apiKey, 'POST', '/bookings', bookingBody(ctx, w.villaA, 80), { 'idempotency-key': newKey() })).json().data;
    const before = await bookingRow(created.id);
    const res = await ctx.api(w.a.apiKey, 'PATCH', `/bookings/${created.id}`, {
      ...decidedBookingFields(),
      external_booking_id: 'CHANGED-BY-PATCH',
      property: { doorloom_id: w.villaB.id, external_id: w.villaB.externalId },
      notes: 'Changed note',
    });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({
      id: created.id,
      revision: 2,
      external_booking_id: created.external_booking_id,
      notes: 'Changed note',
      cancellation: null,
    });
    expect(res.json().data.property.doorloom_id).toBe(w.villaA.id);
    const after = await bookingRow(created.id);
    expect(after).toEqual({ ...before, notes: 'Changed note', revision: 2, updated_at: after.updated_at });
    const read = await ctx.api(w.a.apiKey, 'GET', `/bookings/external/${encodeURIComponent(created.external_booking_id)}`);
    expect(read.json().data).toMatchObject({ id: created.id, revision: 2 });
    expect((await ctx.api(w.a.apiKey, 'GET', '/bookings/external/CHANGED-BY-PATCH')).statusCode).toBe(404);
  });

  it('PATCH refuses source.channel and host-only statuses, and writes nothing', async () => {
    const created = (await ctx.api(w.a.apiKey, 'POST', '/bookings', bookingBody(ctx, w.villaA, 90), { 'idempotency-key': newKey() })).json().data;
    for (const [body, code, key] of [
      [{ source: { channel: 'direct' } }, 'VALIDATION_FAILED', 'source.channel'],
      [{ status: 'completed' }, 'INVALID_STATUS_TRANSITION', 'status'],
      [{ status: 'refunded' }, 'INVALID_STATUS_TRANSITION', 'status'],
      [{ status: 'archived' }, 'VALIDATION_FAILED', 'status'],
    ] as const) {
      const before = await tableDigest(ctx);
      const res = await ctx.api(w.a.apiKey, 'PATCH', `/bookings/${created.id}`, body);
      expectStatus(res, 422);
      expect(res.json()).toMatchObject({ ...failure(code), errors: { [key]: expect.anything() } });
      expect(changedTables(before, await tableDigest(ctx)), JSON.stringify(body)).toEqual([]);
    }
    expect((await bookingRow(created.id)).revision).toBe(1);
  });

  it('cancel ignores a status, revision or id in its body', async () => {
    const created = (await ctx.api(w.a.apiKey, 'POST', '/bookings', bookingBody(ctx, w.villaA, 100), { 'idempotency-key': newKey() })).json().data;
    const res = await ctx.api(w.a.apiKey, 'POST', `/bookings/${created.id}/cancel`, { status: 'confirmed', revision: 50, id: 1, reason: 'Guest asked' });
    expectStatus(res, 200);
    expect(res.json().data).toMatchObject({ id: created.id, status: 'cancelled', revision: 2, cancellation: { reason: 'Guest asked' } });
    expect(await bookingRow(created.id)).toMatchObject({ status: 'cancelled', revision: 2, reason: 'Guest asked' });
  });
});
