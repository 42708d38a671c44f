import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { book, bookingBody, createVilla, day, holdsOf, integrationWithVilla, newKey, newRef, postBooking, today, type Villa } from './fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const setup = (units = 3) => integrationWithVilla(ctx, units);

/** POST /bookings expecting 422 VALIDATION_FAILED; returns `errors`. */
async function refused(integ: TestIntegration, body: unknown): Promise<Record<string, string[]>> {
  const res = await postBooking(ctx, integ, body);
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
  return res.json().errors;
}

describe('POST /bookings: the created booking', () => {
  it('answers 201 with the booking object of decisions §4', async () => {
    const { integ, villa } = await setup();
    const body = bookingBody(ctx, villa, {
      units: [
        { external_unit_id: villa.aliases[0], adults: 2, children: 1, meal_plan: 'CP' },
        { inventory_id: villa.unitIds[1], adults: 1 },
      ],
      notes: 'Late arrival',
      pricing: { total: 12999.999, currency: 'INR' },
    });
    const res = await postBooking(ctx, integ, body);
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({
      external_booking_id: body.external_booking_id,
      revision: 1,
      status: 'confirmed',
      property: { doorloom_id: villa.id, external_id: villa.externalId },
      units: [
        { inventory_id: villa.unitIds[0], external_unit_id: villa.aliases[0], adults: 2, children: 1, meal_plan: 'CP' },
        { inventory_id: villa.unitIds[1], external_unit_id: villa.aliases[1], adults: 1, children: 0, meal_plan: 'EP' },
      ],
      check_in: body.check_in,
      check_out: body.check_out,
      nights: 2,
      guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
      pricing: { total: 13000, currency: 'INR' },
      notes: 'Late arrival',
      source: { channel: 'airbnb', reference: 'HM-1' },
      cancellation: null,
    });
    expect(Number.isInteger(data.id)).toBe(true);
    expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
    expect(data.updated_at).toBe(data.created_at);
    expect(data.duplicate).toBe(false);
    // The stay's nights are held for both units (check_out exclusive).
    const holds = await holdsOf(ctx, data.id);
    expect(holds).toHaveLength(4);
    expect(new Set(holds.map((h) => h.night))).toEqual(new Set([day(ctx, 10), day(ctx, 11)]));
  });

  it('accepts the property by doorloom_id, status pending, and rounds money to two decimals', async () => {
    const { integ, villa } = await setup();
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { property: { doorloom_id: villa.id }, status: 'pending', pricing: { total: 1.005 } }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      status: 'pending',
      pricing: { total: 1.01, currency: 'INR' },
      property: { doorloom_id: villa.id, external_id: villa.externalId },
    });
    // pending holds inventory too
    expect(await holdsOf(ctx, res.json().data.id)).toHaveLength(2);
  });

  it('defaults: status confirmed, children 0, meal_plan EP, adults 1; optional fields null', async () => {
    const { integ, villa } = await setup();
    const res = await postBooking(ctx, integ, {
      external_booking_id: newRef(),
      property: { external_id: villa.externalId },
      units: [{ external_unit_id: villa.aliases[0] }],
      check_in: day(ctx, 3),
      check_out: day(ctx, 4),
      guest: { name: 'Only Name' },
      pricing: { total: 0 },
      source: { channel: 'direct' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      status: 'confirmed',
      units: [{ adults: 1, children: 0, meal_plan: 'EP' }],
      guest: { name: 'Only Name', phone_code: null, mobile: null },
      pricing: { total: 0, currency: 'INR' },
      notes: null,
      source: { channel: 'direct', reference: null },
      nights: 1,
    });
  });

  it('picks free units for entries that name none, in unit order, skipping held ones', async () => {
    const { integ, villa } = await setup(3);
    await book(ctx, integ, villa); // holds U1 on day 10-11
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ adults: 2 }, { adults: 1 }] }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.units.map((u: { inventory_id: number }) => u.inventory_id)).toEqual([villa.unitIds[1], villa.unitIds[2]]);
    // Mixed: one named, one picked (the picked one is not the named one).
    const mixed = await postBooking(
      ctx,
      integ,
      bookingBody(ctx, villa, { check_in: day(ctx, 20), check_out: day(ctx, 21), units: [{ adults: 1 }, { external_unit_id: villa.aliases[0] }] }),
    );
    expect(mixed.statusCode, mixed.body).toBe(201);
    expect(mixed.json().data.units.map((u: { inventory_id: number }) => u.inventory_id)).toEqual([villa.unitIds[1], villa.unitIds[0]]);
  });

  it('accepts check_in today and a stay of exactly MAX_STAY_NIGHTS (30)', async () => {
    const { integ, villa } = await setup();
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: today(ctx), check_out: day(ctx, 30) }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.nights).toBe(30);
  });

  it('adjacent stays on one unit both succeed (check_out is exclusive)', async () => {
    const { integ, villa } = await setup(1);
    await book(ctx, integ, villa, { check_in: day(ctx, 5), check_out: day(ctx, 7) });
    const next = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 7), check_out: day(ctx, 9) }));
    expect(next.statusCode, next.body).toBe(201);
    const before = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 3), check_out: day(ctx, 5) }));
    expect(before.statusCode, before.body).toBe(201);
  });
});

describe('POST /bookings: validation', () => {
  let integ: TestIntegration;
  let villa: Villa;
  beforeAll(async () => {
    ({ integ, villa } = await setup());
  });

  it('names each missing required field', async () => {
    const errors = await refused(integ, { property: { external_id: villa.externalId } });
    for (const key of ['external_booking_id', 'units', 'check_in', 'check_out', 'guest.name', 'pricing.total', 'source.channel']) {
      expect(errors[key], key).toEqual(['is required']);
    }
  });

  it('refuses a body that is not an object', async () => {
    const res = await postBooking(ctx, integ, [1, 2]);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
  });

  it('units: 1 to 20 entries; adults 1-50; children 0-50; meal plans EP, CP, MAP, AP', async () => {
    expect((await refused(integ, bookingBody(ctx, villa, { units: [] }))).units).toBeDefined();
    const many = Array.from({ length: 21 }, () => ({ adults: 1 }));
    expect((await refused(integ, bookingBody(ctx, villa, { units: many }))).units).toBeDefined();
    const errors = await refused(
      integ,
      bookingBody(ctx, villa, {
        units: [
          { external_unit_id: villa.aliases[0], adults: 0 },
          { external_unit_id: villa.aliases[1], adults: 51, children: 51 },
          { external_unit_id: villa.aliases[2], adults: 2, children: -1, meal_plan: 'BB' },
        ],
      }),
    );
    expect(Object.keys(errors).sort()).toEqual(['units.0.adults', 'units.1.adults', 'units.1.children', 'units.2.children', 'units.2.meal_plan']);
    // 50 is allowed; types are not coerced
    const typed = await refused(integ, bookingBody(ctx, villa, { units: [{ external_unit_id: villa.aliases[0], adults: '2' }] }));
    expect(typed['units.0.adults']).toEqual(['must be an integer']);
    for (const plan of ['EP', 'CP', 'MAP', 'AP']) {
      const res = await postBooking(
        ctx,
        integ,
        bookingBody(ctx, villa, {
          check_in: day(ctx, 40 + ['EP', 'CP', 'MAP', 'AP'].indexOf(plan)),
          check_out: day(ctx, 41 + ['EP', 'CP', 'MAP', 'AP'].indexOf(plan)),
          units: [{ adults: 50, children: 50, meal_plan: plan }],
        }),
      );
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.units[0].meal_plan).toBe(plan);
    }
  });

  it('the same unit twice is refused on units.N', async () => {
    const byAlias = await refused(integ, bookingBody(ctx, villa, { units: [{ external_unit_id: villa.aliases[0] }, { external_unit_id: villa.aliases[0] }] }));
    expect(byAlias['units.1']).toBeDefined();
    const byId = await refused(integ, bookingBody(ctx, villa, { units: [{ inventory_id: villa.unitIds[1] }, { inventory_id: villa.unitIds[1] }] }));
    expect(byId['units.1']).toBeDefined();
    // an alias and an inventory_id naming the same unit
    const mixed = await refused(
      integ,
      bookingBody(ctx, villa, { units: [{ inventory_id: villa.unitIds[0] }, { adults: 1 }, { external_unit_id: villa.aliases[0] }] }),
    );
    expect(Object.keys(mixed)).toEqual(['units.2']);
  });

  it('an unknown alias is refused on units.N.external_unit_id; an inventory_id of another property on units.N.inventory_id', async () => {
    const other = await createVilla(ctx, integ, 1);
    const errors = await refused(
      integ,
      bookingBody(ctx, villa, {
        units: [
          { external_unit_id: villa.aliases[0] },
          { external_unit_id: 'no-such-unit' },
          { external_unit_id: other.aliases[0] },
          { inventory_id: other.unitIds[0] },
        ],
      }),
    );
    expect(Object.keys(errors).sort()).toEqual(['units.1.external_unit_id', 'units.2.external_unit_id', 'units.3.inventory_id']);
  });

  it('dates: real YYYY-MM-DD, check_out after check_in, check_in not before today', async () => {
    const bad = await refused(integ, bookingBody(ctx, villa, { check_in: '2026-02-30', check_out: 'tomorrow' }));
    expect(bad.check_in).toBeDefined();
    expect(bad.check_out).toBeDefined();
    const same = await refused(integ, bookingBody(ctx, villa, { check_in: day(ctx, 5), check_out: day(ctx, 5) }));
    expect(same.check_out).toEqual(['must be after check_in']);
    const reversed = await refused(integ, bookingBody(ctx, villa, { check_in: day(ctx, 6), check_out: day(ctx, 5) }));
    expect(reversed.check_out).toBeDefined();
    const past = await refused(integ, bookingBody(ctx, villa, { check_in: day(ctx, -1), check_out: day(ctx, 1) }));
    expect(Object.keys(past)).toEqual(['check_in']);
  });

  it('a stay over MAX_STAY_NIGHTS is refused on check_out, naming the limit', async () => {
    const errors = await refused(integ, bookingBody(ctx, villa, { check_in: day(ctx, 1), check_out: day(ctx, 32) }));
    expect(Object.keys(errors)).toEqual(['check_out']);
    expect(errors.check_out[0]).toContain('30');
  });

  it('currency must be INR; total a number of at least 0', async () => {
    expect((await refused(integ, bookingBody(ctx, villa, { pricing: { total: 100, currency: 'USD' } })))['pricing.currency']).toBeDefined();
    expect((await refused(integ, bookingBody(ctx, villa, { pricing: { total: -1 } })))['pricing.total']).toBeDefined();
    expect((await refused(integ, bookingBody(ctx, villa, { pricing: { total: '100' } })))['pricing.total']).toBeDefined();
  });

  it('length caps: notes 2000, reason and refund_note 500, external_booking_id 128', async () => {
    const errors = await refused(
      integ,
      bookingBody(ctx, villa, { notes: 'n'.repeat(2001), reason: 'r'.repeat(501), refund_note: 'f'.repeat(501), external_booking_id: 'x'.repeat(129) }),
    );
    expect(Object.keys(errors).sort()).toEqual(['external_booking_id', 'notes', 'reason', 'refund_note']);
    const ok = await postBooking(
      ctx,
      integ,
      bookingBody(ctx, villa, {
        check_in: day(ctx, 50),
        check_out: day(ctx, 51),
        notes: 'n'.repeat(2000),
        reason: 'r'.repeat(500),
        refund_note: 'f'.repeat(500),
        external_booking_id: 'x'.repeat(128),
      }),
    );
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('create-time status is pending or confirmed only', async () => {
    for (const status of ['cancelled', 'completed', 'refunded', 'CONFIRMED']) {
      expect((await refused(integ, bookingBody(ctx, villa, { status }))).status, status).toBeDefined();
    }
  });

  it('ignores unknown fields', async () => {
    const res = await postBooking(
      ctx,
      integ,
      bookingBody(ctx, villa, { check_in: day(ctx, 60), check_out: day(ctx, 61), whatever: 1, guest: { name: 'A', extra: true } }),
    );
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('POST /bookings: property and units', () => {
  it('PROPERTY_NOT_MAPPED: missing, empty, unknown, another integration’s, or uncovered', async () => {
    const { integ, villa } = await setup();
    const stranger = await ctx.createIntegration({ brandId: integ.brandId });
    const theirs = await createVilla(ctx, stranger, 1);
    const refs: unknown[] = [undefined, {}, { external_id: 'nope' }, { doorloom_id: 999999 }, { external_id: theirs.externalId }, { doorloom_id: theirs.id }];
    for (const property of refs) {
      const body = bookingBody(ctx, villa, { property });
      const res = await postBooking(ctx, integ, body);
      expect(res.statusCode, JSON.stringify(property)).toBe(422);
      expect(res.json()).toMatchObject(failure('PROPERTY_NOT_MAPPED'));
    }
    // doorloom_id and external_id that disagree
    const mixed = await postBooking(ctx, integ, bookingBody(ctx, villa, { property: { doorloom_id: villa.id, external_id: 'other' } }));
    expect(mixed.json()).toMatchObject(failure('PROPERTY_NOT_MAPPED'));
    // coverage removed by staff
    const del = await ctx.staff('DELETE', `/integrations/${integ.id}/coverage/${villa.id}`);
    expect(del.statusCode, del.body).toBe(200);
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { property: { doorloom_id: villa.id } }));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('PROPERTY_NOT_MAPPED'));
  });

  it('PROPERTY_ARCHIVED for an archived property', async () => {
    const { integ, villa } = await setup();
    expect((await ctx.staff('POST', `/properties/${villa.id}/archive`)).statusCode).toBe(200);
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('PROPERTY_ARCHIVED'));
  });

  it('PROPERTY_INACTIVE for a property made inactive by the sweep', async () => {
    const { integ, villa } = await setup();
    expect((await ctx.staff('PUT', `/brands/${integ.brandId}/plan`, { active: false })).statusCode).toBe(200);
    await ctx.advanceClock(8 * 24 * 3600);
    const run = await ctx.staff('POST', '/jobs/inactive-sweep/run');
    expect(run.statusCode, run.body).toBeLessThan(300);
    const status = await ctx.deps.db.selectFrom('properties').select('status').where('id', '=', villa.id).executeTakeFirstOrThrow();
    expect(status.status).toBe('inactive');
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa));
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject(failure('PROPERTY_INACTIVE'));
  });

  it('UNIT_INACTIVE for a unit taken off sale, with errors["units.N"] = { inventory_id, is_active: false }', async () => {
    const { integ, villa } = await setup(3);
    const put = await ctx.api(integ.apiKey, 'PUT', `/properties/${villa.externalId}`, { units: [{ inventory_id: villa.unitIds[2], is_active: false }] });
    expect(put.statusCode, put.body).toBe(200);
    for (const unit of [{ external_unit_id: villa.aliases[2] }, { inventory_id: villa.unitIds[2] }]) {
      const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ external_unit_id: villa.aliases[0] }, unit] }));
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject(failure('UNIT_INACTIVE'));
      expect(res.json().errors).toEqual({ 'units.1': { inventory_id: villa.unitIds[2], is_active: false } });
    }
    // A picked unit is never an inactive one.
    const picked = await postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ adults: 1 }, { adults: 1 }] }));
    expect(picked.statusCode, picked.body).toBe(201);
    expect(picked.json().data.units.map((u: { inventory_id: number }) => u.inventory_id)).toEqual(villa.unitIds.slice(0, 2));
    const third = await postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ adults: 1 }] }));
    expect(third.statusCode).toBe(409);
  });
});

describe('POST /bookings: availability', () => {
  it('409 UNAVAILABLE with the per-night picture; window.to is check_out minus one day', async () => {
    const { integ, villa } = await setup(2);
    await book(ctx, integ, villa, { check_in: day(ctx, 10), check_out: day(ctx, 12) });
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 11), check_out: day(ctx, 14) }));
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject(failure('UNAVAILABLE'));
    const availability = res.json().errors.availability;
    expect(availability.window).toEqual({ from: day(ctx, 11), to: day(ctx, 13) });
    expect(availability.dates).toEqual([
      { date: day(ctx, 11), available_units: 1, is_blocked: false, block_scope: null },
      { date: day(ctx, 12), available_units: 2, is_blocked: false, block_scope: null },
      { date: day(ctx, 13), available_units: 2, is_blocked: false, block_scope: null },
    ]);
    expect(availability.units).toEqual([
      { inventory_id: villa.unitIds[0], external_unit_id: villa.aliases[0], unavailable: [day(ctx, 11)] },
      { inventory_id: villa.unitIds[1], external_unit_id: villa.aliases[1], unavailable: [] },
    ]);
    // Nothing was written for the refused booking.
    const count = await ctx.deps.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('property_id', '=', villa.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('409 when more units are asked for than are free', async () => {
    const { integ, villa } = await setup(2);
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ adults: 1 }, { adults: 1 }, { adults: 1 }] }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject(failure('UNAVAILABLE'));
  });

  it('a block everywhere refuses every channel; ota_only refuses every channel except direct', async () => {
    const { integ, villa } = await setup(2);
    const block = (body: object) => ctx.staff('PUT', `/properties/${villa.id}/calendar`, body);
    expect((await block({ from: day(ctx, 5), to: day(ctx, 5), block_scope: 'everywhere' })).statusCode).toBe(200);
    for (const channel of ['direct', 'airbnb']) {
      const res = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 4), check_out: day(ctx, 6), source: { channel } }));
      expect(res.statusCode, channel).toBe(409);
      expect(res.json().errors.availability.dates[1]).toEqual({ date: day(ctx, 5), available_units: 0, is_blocked: true, block_scope: 'everywhere' });
    }
    expect((await block({ from: day(ctx, 8), to: day(ctx, 8), block_scope: 'ota_only' })).statusCode).toBe(200);
    const ota = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 8), check_out: day(ctx, 9), source: { channel: 'booking.com' } }));
    expect(ota.statusCode).toBe(409);
    expect(ota.json().errors.availability.dates[0]).toMatchObject({ is_blocked: true, block_scope: 'ota_only' });
    const direct = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 8), check_out: day(ctx, 9), source: { channel: 'direct' } }));
    expect(direct.statusCode, direct.body).toBe(201);
    // A block on one unit: that unit refuses, the other is picked.
    expect((await block({ from: day(ctx, 15), to: day(ctx, 15), inventory_ids: [villa.unitIds[0]], block_scope: 'everywhere' })).statusCode).toBe(200);
    const named = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 15), check_out: day(ctx, 16) }));
    expect(named.statusCode).toBe(409);
    const picked = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 15), check_out: day(ctx, 16), units: [{ adults: 1 }] }));
    expect(picked.statusCode, picked.body).toBe(201);
    expect(picked.json().data.units[0].inventory_id).toBe(villa.unitIds[1]);
  });

  it('a units_cap limits how many units can be held that night', async () => {
    const { integ, villa } = await setup(3);
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 20), to: day(ctx, 20), units_cap: 1 })).statusCode).toBe(200);
    const two = await postBooking(
      ctx,
      integ,
      bookingBody(ctx, villa, { check_in: day(ctx, 20), check_out: day(ctx, 21), units: [{ adults: 1 }, { adults: 1 }] }),
    );
    expect(two.statusCode).toBe(409);
    const one = await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 20), check_out: day(ctx, 21), units: [{ adults: 1 }] }));
    expect(one.statusCode, one.body).toBe(201);
    const another = await postBooking(
      ctx,
      integ,
      bookingBody(ctx, villa, { check_in: day(ctx, 19), check_out: day(ctx, 21), units: [{ external_unit_id: villa.aliases[2] }] }),
    );
    expect(another.statusCode).toBe(409);
  });

  it('another integration’s booking occupies availability too', async () => {
    const { integ, villa } = await setup(1);
    const other = await ctx.createIntegration({ brandId: integ.brandId });
    expect((await ctx.staff('PUT', `/integrations/${other.id}/coverage/${villa.id}`, { external_id: 'THEIRS' })).statusCode).toBe(201);
    await book(ctx, integ, villa);
    const res = await postBooking(ctx, other, bookingBody(ctx, villa, { property: { external_id: 'THEIRS' }, units: [{ inventory_id: villa.unitIds[0] }] }));
    expect(res.statusCode, res.body).toBe(409);
    // The picture uses the other integration's ids (it has no alias for the unit).
    expect(res.json().errors.availability.units).toEqual([
      { inventory_id: villa.unitIds[0], external_unit_id: null, unavailable: [day(ctx, 10), day(ctx, 11)] },
    ]);
  });
});

describe('POST /bookings: duplicates and idempotency', () => {
  it('a duplicate external_booking_id answers 200 with the booking as it is now and duplicate: true', async () => {
    const { integ, villa } = await setup();
    const body = bookingBody(ctx, villa);
    const first = await postBooking(ctx, integ, body);
    expect(first.statusCode).toBe(201);
    const id = first.json().data.id;
    const patched = await ctx.api(integ.apiKey, 'PATCH', `/bookings/${id}`, { notes: 'changed since' });
    expect(patched.statusCode, patched.body).toBe(200);
    // A different key, even a different stay: the existing booking, as it is now.
    const again = await postBooking(ctx, integ, { ...body, check_in: day(ctx, 30), check_out: day(ctx, 31) });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ success: true, data: { id, duplicate: true, revision: 2, notes: 'changed since', check_in: body.check_in } });
    const count = await ctx.deps.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('integration_id', '=', integ.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('external_booking_id is unique per integration, not across integrations', async () => {
    const { integ, villa } = await setup();
    const other = await setup();
    const ref = newRef();
    expect((await postBooking(ctx, integ, bookingBody(ctx, villa, { external_booking_id: ref }))).statusCode).toBe(201);
    expect((await postBooking(ctx, other.integ, bookingBody(ctx, other.villa, { external_booking_id: ref }))).statusCode).toBe(201);
  });

  it('requires an Idempotency-Key of 8 to 128 characters', async () => {
    const { integ, villa } = await setup();
    const none = await ctx.api(integ.apiKey, 'POST', '/bookings', bookingBody(ctx, villa));
    expect(none.statusCode).toBe(422);
    expect(none.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
    const short = await postBooking(ctx, integ, bookingBody(ctx, villa), 'short');
    expect(short.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
  });

  it('the same key and body replays the response; the same key with another body is IDEMPOTENCY_KEY_REUSED', async () => {
    const { integ, villa } = await setup();
    const key = newKey();
    const body = bookingBody(ctx, villa);
    const first = await postBooking(ctx, integ, body, key);
    expect(first.statusCode).toBe(201);
    const replay = await postBooking(ctx, integ, body, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const reused = await postBooking(ctx, integ, { ...body, notes: 'different' }, key);
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    // Keys are shared with property creates.
    const propertyKey = newKey();
    await ctx.api(integ.apiKey, 'POST', '/properties', { name: 'x' }, { 'idempotency-key': propertyKey });
    const shared = await postBooking(ctx, integ, bookingBody(ctx, villa), propertyKey);
    expect(shared.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
  });

  it("a create's answer is stored by the booking's own transaction; a duplicate's by the hook after it", async () => {
    const { integ, villa } = await setup();
    const statements = ctx.deps.state.idempotency.complete;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- only put back on the same object below.
    const run = statements.run;
    // the hook's own store fails: only what a transaction stored is there to replay
    statements.run = async () => {
      throw new Error('the store is down');
    };
    try {
      const key = newKey();
      const body = bookingBody(ctx, villa);
      const first = await postBooking(ctx, integ, body, key);
      expect(first.statusCode).toBe(201);
      const replay = await postBooking(ctx, integ, body, key);
      expect([replay.statusCode, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(replay.body).toBe(first.body);

      const duplicateKey = newKey();
      const duplicate = await postBooking(ctx, integ, body, duplicateKey);
      expect(duplicate.statusCode).toBe(200);
      const again = await postBooking(ctx, integ, body, duplicateKey);
      expect(again.json()).toMatchObject(failure('IN_PROGRESS'));
    } finally {
      statements.run = run;
    }
  });

  it('a refusal is stored under its key: retrying a 409 with the same key replays it', async () => {
    const { integ, villa } = await setup(1);
    await book(ctx, integ, villa);
    const key = newKey();
    const body = bookingBody(ctx, villa);
    const first = await postBooking(ctx, integ, body, key);
    expect(first.statusCode).toBe(409);
    const again = await postBooking(ctx, integ, body, key);
    expect(again.statusCode).toBe(409);
    expect(again.body).toBe(first.body);
  });
});
