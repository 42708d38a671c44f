import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, dayOfWeek, eachDate } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { alias, cover, hold, insertProperty, nextDow, today, touchUnitCalendar, type FixtureProperty } from './fixtures.js';

let ctx: TestContext;
let partner: TestIntegration;
let other: TestIntegration;
let property: FixtureProperty;
let day0: string;

beforeAll(async () => {
  ctx = await createTestContext();
  partner = await ctx.createIntegration();
  other = await ctx.createIntegration({ brandId: partner.brandId });
  property = await insertProperty(ctx, {
    brandId: partner.brandId,
    units: 3,
    weekday: { base_price: 4000.5, per_night_occupancy: 2, extra_adult_price: 500, extra_child_price: 250 },
    weekend: { base_price: 6000, per_night_occupancy: 3, extra_adult_price: 700.25, extra_child_price: 350 },
  });
  await cover(ctx, partner, property.id, 'VILLA-1');
  await alias(ctx, partner, property.unitIds[1], 'ROOM-B');
  await alias(ctx, other, property.unitIds[1], 'OTHER-B');
  day0 = today(ctx);
});
afterAll(() => ctx.close());

const snapshot = (kind: string, query: string, key = partner.apiKey, ref: string | number = property.id) =>
  ctx.api(key, 'GET', `/properties/${ref}/${kind}${query}`);

const q = (from: string, to: string) => `?from=${from}&to=${to}`;

describe('snapshot window validation', () => {
  for (const kind of ['availability', 'rates', 'restrictions']) {
    it(`${kind}: from and to are required, real dates, ordered, at most 92 nights and 730 days ahead`, async () => {
      const missing = await snapshot(kind, '');
      expect(missing.statusCode).toBe(422);
      expect(missing.json()).toMatchObject(failure('VALIDATION_FAILED'));
      expect(Object.keys(missing.json().errors).sort()).toEqual(['from', 'to']);

      const onlyFrom = await snapshot(kind, `?from=${day0}`);
      expect(onlyFrom.statusCode).toBe(422);
      expect(Object.keys(onlyFrom.json().errors)).toEqual(['to']);

      for (const bad of ['2026-02-30', '2026-13-01', 'tomorrow', '2026-1-01']) {
        const res = await snapshot(kind, q(bad, day0));
        expect(res.statusCode, bad).toBe(422);
        expect(Object.keys(res.json().errors)).toEqual(['from']);
      }

      const reversed = await snapshot(kind, q(addDays(day0, 5), addDays(day0, 4)));
      expect(reversed.statusCode).toBe(422);
      expect(Object.keys(reversed.json().errors)).toEqual(['to']);

      // 92 nights inclusive is the most; 93 is refused on `to`
      expect((await snapshot(kind, q(day0, addDays(day0, 91)))).statusCode).toBe(200);
      const tooLong = await snapshot(kind, q(day0, addDays(day0, 92)));
      expect(tooLong.statusCode).toBe(422);
      expect(tooLong.json()).toMatchObject(failure('VALIDATION_FAILED'));
      expect(Object.keys(tooLong.json().errors)).toEqual(['to']);

      // `to` may be today + 730, not a day more
      expect((await snapshot(kind, q(addDays(day0, 700), addDays(day0, 730)))).statusCode).toBe(200);
      const tooFar = await snapshot(kind, q(addDays(day0, 701), addDays(day0, 731)));
      expect(tooFar.statusCode).toBe(422);
      expect(Object.keys(tooFar.json().errors)).toEqual(['to']);

      const single = await snapshot(kind, q(day0, day0));
      expect(single.statusCode).toBe(200);
      expect(single.json().data.data.dates.map((d: { date: string }) => d.date)).toEqual([day0]);
    });
  }

  it('answers 404 for an unknown property, another integration’s property and an uncovered one', async () => {
    const uncovered = await insertProperty(ctx, { brandId: partner.brandId });
    for (const ref of [999999, 'NOPE-1', uncovered.id]) {
      const res = await snapshot('availability', q(day0, day0), partner.apiKey, ref);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject(failure('NOT_FOUND'));
    }
    // `other` does not cover the property
    for (const kind of ['availability', 'rates', 'restrictions']) {
      expect((await snapshot(kind, q(day0, day0), other.apiKey)).statusCode).toBe(404);
    }
    // unknown property with a bad window is still 404
    expect((await snapshot('rates', '?from=x', partner.apiKey, 999999)).statusCode).toBe(404);
  });

  it('needs an integration key', async () => {
    expect((await snapshot('availability', q(day0, day0), 'dlk_wrong')).statusCode).toBe(401);
    const res = await ctx.api(null, 'GET', `/properties/${property.id}/rates${q(day0, day0)}`);
    expect(res.json()).toMatchObject(failure('UNAUTHENTICATED'));
  });
});

describe('snapshot envelope', () => {
  it('carries sequence, property (by id or external_id) and window', async () => {
    const from = addDays(day0, 1);
    const to = addDays(day0, 3);
    for (const ref of [property.id, 'VILLA-1']) {
      const res = await snapshot('availability', q(from, to), partner.apiKey, ref);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ success: true, message: expect.any(String) });
      expect(body.data).toMatchObject({
        sequence: expect.any(Number),
        property: { doorloom_id: property.id, external_id: 'VILLA-1' },
        window: { from, to },
      });
      expect(body.data.data.dates).toHaveLength(3);
    }
  });
});

describe('availability payload', () => {
  it('lists active units with this integration’s aliases, and counts per night', async () => {
    const from = addDays(day0, 100);
    const res = await snapshot('availability', q(from, addDays(from, 1)));
    const data = res.json().data.data;
    expect(data.total_units).toBe(3);
    expect(data.units).toEqual([
      { inventory_id: property.unitIds[0], external_unit_id: null, name: 'Room 1', unavailable: [] },
      { inventory_id: property.unitIds[1], external_unit_id: 'ROOM-B', name: 'Room 2', unavailable: [] },
      { inventory_id: property.unitIds[2], external_unit_id: null, name: 'Room 3', unavailable: [] },
    ]);
    expect(data.dates[0]).toEqual({ date: from, available_units: 3, total_units: 3, is_blocked: false, block_scope: null, units_cap: null });
  });

  it('counts held units, unit blocks, property blocks (everywhere and ota_only) and caps', async () => {
    const base = addDays(day0, 120);
    const [u1, u2, u3] = property.unitIds;
    const n = (i: number) => addDays(base, i);
    // night 0: nothing; 1: u1 held; 2: u1+u2 held; 3: property blocked everywhere (+u1 held);
    // 4: property ota_only block; 5: cap 1; 6: cap 2 with u3 held; 7: u2 blocked everywhere;
    // 8: u2 blocked ota_only; 9: cap 0
    await hold(ctx, u1, n(1), n(3));
    await hold(ctx, u2, n(2), n(2));
    await hold(ctx, u3, n(6), n(6));
    const put = (body: object) => ctx.staff('PUT', `/properties/${property.id}/calendar`, body);
    expect((await put({ from: n(3), to: n(3), block_scope: 'everywhere' })).statusCode).toBe(200);
    expect((await put({ from: n(4), to: n(4), block_scope: 'ota_only' })).statusCode).toBe(200);
    expect((await put({ from: n(5), to: n(5), units_cap: 1 })).statusCode).toBe(200);
    expect((await put({ from: n(6), to: n(6), units_cap: 2 })).statusCode).toBe(200);
    expect((await put({ from: n(7), to: n(7), inventory_ids: [u2], block_scope: 'everywhere' })).statusCode).toBe(200);
    expect((await put({ from: n(8), to: n(8), inventory_ids: [u2], block_scope: 'ota_only' })).statusCode).toBe(200);
    expect((await put({ from: n(9), to: n(9), units_cap: 0 })).statusCode).toBe(200);

    const data = (await snapshot('availability', q(n(0), n(9)))).json().data.data;
    const row = (i: number) => data.dates[i];
    const pick = (i: number) => [row(i).available_units, row(i).is_blocked, row(i).block_scope, row(i).units_cap];
    expect(pick(0)).toEqual([3, false, null, null]);
    expect(pick(1)).toEqual([2, false, null, null]);
    expect(pick(2)).toEqual([1, false, null, null]);
    expect(pick(3)).toEqual([0, true, 'everywhere', null]);
    expect(pick(4)).toEqual([3, true, 'ota_only', null]); // an ota_only block keeps its count
    expect(pick(5)).toEqual([1, false, null, 1]);
    expect(pick(6)).toEqual([1, false, null, 2]); // min(3, 2) - 1 held
    expect(pick(7)).toEqual([2, false, null, null]); // a unit blocked everywhere cannot be sold
    expect(pick(8)).toEqual([3, false, null, null]); // a unit's ota_only block keeps the count too
    expect(pick(9)).toEqual([0, false, null, 0]);
    expect(data.dates.every((d: { total_units: number }) => d.total_units === 3)).toBe(true);

    const unavailable = Object.fromEntries(data.units.map((u: { inventory_id: number; unavailable: string[] }) => [u.inventory_id, u.unavailable]));
    expect(unavailable[u1]).toEqual([n(1), n(2), n(3)]);
    expect(unavailable[u2]).toEqual([n(2), n(3), n(7)]);
    expect(unavailable[u3]).toEqual([n(3), n(6)]);

    // clearing: block_scope null lifts the block, units_cap null lifts the cap
    await put({ from: n(3), to: n(5), block_scope: null, units_cap: null });
    await put({ from: n(7), to: n(8), inventory_ids: [u2], block_scope: null });
    const after = (await snapshot('availability', q(n(3), n(8)))).json().data.data;
    expect(after.dates.map((d: { available_units: number }) => d.available_units)).toEqual([2, 3, 3, 1, 3, 3]);
    expect(after.dates.map((d: { is_blocked: boolean }) => d.is_blocked)).toEqual([false, false, false, false, false, false]);
    expect(after.dates[2].units_cap).toBeNull();
  });

  it('never counts below 0 and ignores inactive units', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 2 });
    await cover(ctx, partner, p.id);
    const night = addDays(day0, 60);
    await hold(ctx, p.unitIds[0], night, night);
    await hold(ctx, p.unitIds[1], night, night);
    await ctx.staff('PUT', `/properties/${p.id}/calendar`, { from: night, to: night, units_cap: 1 });
    let data = (await snapshot('availability', q(night, night), partner.apiKey, p.id)).json().data.data;
    expect(data.dates[0]).toMatchObject({ available_units: 0, total_units: 2, units_cap: 1 });

    await ctx.deps.db.updateTable('units').set({ is_active: false }).where('id', '=', p.unitIds[1]).execute();
    await touchUnitCalendar(ctx, p.unitIds[1]);
    data = (await snapshot('availability', q(night, night), partner.apiKey, p.id)).json().data.data;
    expect(data.total_units).toBe(1);
    expect(data.units.map((u: { inventory_id: number }) => u.inventory_id)).toEqual([p.unitIds[0]]);
    expect(data.dates[0]).toMatchObject({ available_units: 0, total_units: 1 });
  });
});

describe('rates payload', () => {
  it('prices Sunday–Thursday nights as weekday and Friday–Saturday as weekend', async () => {
    const sunday = nextDow(addDays(day0, 7), 0);
    const res = await snapshot('rates', q(sunday, addDays(sunday, 6)));
    const data = res.json().data.data;
    expect(data).toMatchObject({ currency: 'INR', gst_applicable: true, price_includes_gst: false });
    expect(data.meal_plans).toEqual([{ code: 'EP', name: expect.any(String), adult_price: 0, child_price: 0 }]);
    const weekday = { base_price: 4000.5, per_night_occupancy: 2, extra_adult_price: 500, extra_child_price: 250, source: 'weekday' };
    const weekend = { base_price: 6000, per_night_occupancy: 3, extra_adult_price: 700.25, extra_child_price: 350, source: 'weekend' };
    expect(data.dates).toEqual(eachDate(sunday, addDays(sunday, 6)).map((date) => ({ date, ...([5, 6].includes(dayOfWeek(date)) ? weekend : weekday) })));
    expect(data.dates.map((d: { source: string }) => d.source)).toEqual(['weekday', 'weekday', 'weekday', 'weekday', 'weekday', 'weekend', 'weekend']);
  });

  it('shows host overrides with source "override", merged per field, and clears them', async () => {
    const friday = nextDow(addDays(day0, 30), 5);
    const thursday = addDays(friday, -1);
    const put = (body: object) => ctx.staff('PUT', `/properties/${property.id}/rates`, body);
    expect((await put({ from: thursday, to: friday, base_price: 9999.999 })).statusCode).toBe(200);
    expect((await put({ from: friday, to: friday, extra_child_price: 0 })).statusCode).toBe(200);
    let dates = (await snapshot('rates', q(addDays(thursday, -1), addDays(friday, 1)))).json().data.data.dates;
    expect(dates[0]).toMatchObject({ source: 'weekday', base_price: 4000.5 });
    expect(dates[1]).toEqual({ date: thursday, base_price: 10000, per_night_occupancy: 2, extra_adult_price: 500, extra_child_price: 250, source: 'override' });
    expect(dates[2]).toEqual({ date: friday, base_price: 10000, per_night_occupancy: 3, extra_adult_price: 700.25, extra_child_price: 0, source: 'override' });
    expect(dates[3]).toMatchObject({ source: 'weekend', base_price: 6000 });

    // null removes one part of an override; clear removes all of them
    await put({ from: thursday, to: thursday, base_price: null });
    dates = (await snapshot('rates', q(thursday, friday))).json().data.data.dates;
    expect(dates[0]).toMatchObject({ source: 'weekday', base_price: 4000.5 });
    expect(dates[1]).toMatchObject({ source: 'override' });
    await put({ from: thursday, to: friday, clear: true });
    dates = (await snapshot('rates', q(thursday, friday))).json().data.data.dates;
    expect(dates.map((d: { source: string }) => d.source)).toEqual(['weekday', 'weekend']);
    expect(dates[1]).toMatchObject({ base_price: 6000, extra_child_price: 350 });
  });

  it('carries meal plans and GST flags set by the host', async () => {
    const plans = await ctx.staff('PUT', `/properties/${property.id}/meal-plans`, [
      { code: 'AP', adult_price: 1500, child_price: 750.5 },
      { code: 'CP', adult_price: 300, child_price: 150 },
    ]);
    expect(plans.statusCode).toBe(200);
    const tax = await ctx.staff('PUT', `/properties/${property.id}/tax`, { gst_applicable: false, price_includes_gst: true });
    expect(tax.statusCode).toBe(200);
    const data = (await snapshot('rates', q(day0, day0))).json().data.data;
    expect(data.gst_applicable).toBe(false);
    expect(data.price_includes_gst).toBe(true);
    expect(data.meal_plans.map((m: { code: string }) => m.code)).toEqual(['EP', 'CP', 'AP']);
    expect(data.meal_plans[2]).toEqual({ code: 'AP', name: expect.any(String), adult_price: 1500, child_price: 750.5 });
    expect(data.meal_plans[0]).toMatchObject({ code: 'EP', adult_price: 0, child_price: 0 });

    // PUT replaces the list; EP stays
    await ctx.staff('PUT', `/properties/${property.id}/meal-plans`, [{ code: 'MAP', adult_price: 800, child_price: 400 }]);
    await ctx.staff('PUT', `/properties/${property.id}/tax`, { gst_applicable: true, price_includes_gst: false });
    const again = (await snapshot('rates', q(day0, day0))).json().data.data;
    expect(again.meal_plans.map((m: { code: string }) => m.code)).toEqual(['EP', 'MAP']);
    expect([again.gst_applicable, again.price_includes_gst]).toEqual([true, false]);
  });
});

describe('restrictions payload', () => {
  it('has the platform defaults, then host rules and per-night restrictions', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 1 });
    await cover(ctx, partner, p.id);
    const from = addDays(day0, 10);
    let data = (await snapshot('restrictions', q(from, addDays(from, 2)), partner.apiKey, p.id)).json().data.data;
    expect(data.rules).toEqual({ min_stay: 1, max_stay: 30, min_advance_days: 0, max_advance_days: 730 });
    expect(data.dates[0]).toEqual({ date: from, min_stay: 1, max_stay: 30, stop_sell: false, closed_to_arrival: false, closed_to_departure: false });

    const rules = await ctx.staff('PUT', `/properties/${p.id}/restrictions`, {
      rules: { min_stay: 2, max_stay: 14, min_advance_days: 1, max_advance_days: 365 },
    });
    expect(rules.statusCode).toBe(200);
    const nights = await ctx.staff('PUT', `/properties/${p.id}/restrictions`, {
      from: addDays(from, 1),
      to: addDays(from, 1),
      min_stay: 3,
      stop_sell: true,
      closed_to_arrival: true,
      closed_to_departure: true,
    });
    expect(nights.statusCode).toBe(200);
    data = (await snapshot('restrictions', q(from, addDays(from, 2)), partner.apiKey, p.id)).json().data.data;
    expect(data.rules).toEqual({ min_stay: 2, max_stay: 14, min_advance_days: 1, max_advance_days: 365 });
    expect(data.dates).toEqual([
      { date: from, min_stay: 2, max_stay: 14, stop_sell: false, closed_to_arrival: false, closed_to_departure: false },
      { date: addDays(from, 1), min_stay: 3, max_stay: 14, stop_sell: true, closed_to_arrival: true, closed_to_departure: true },
      { date: addDays(from, 2), min_stay: 2, max_stay: 14, stop_sell: false, closed_to_arrival: false, closed_to_departure: false },
    ]);

    // null puts a night back on the rules; rules null restore the platform default
    await ctx.staff('PUT', `/properties/${p.id}/restrictions`, { from: addDays(from, 1), to: addDays(from, 1), min_stay: null, stop_sell: false });
    await ctx.staff('PUT', `/properties/${p.id}/restrictions`, { rules: { max_stay: null } });
    data = (await snapshot('restrictions', q(addDays(from, 1), addDays(from, 1)), partner.apiKey, p.id)).json().data.data;
    expect(data.rules.max_stay).toBe(30);
    expect(data.dates[0]).toMatchObject({ min_stay: 2, max_stay: 30, stop_sell: false, closed_to_arrival: true });
  });
});

describe('watermark', () => {
  it('is the last sequence before the payload: events after it carry later changes', async () => {
    const night = addDays(day0, 200);
    const before = (await snapshot('availability', q(night, night))).json().data;
    await ctx.staff('PUT', `/properties/${property.id}/calendar`, { from: night, to: night, block_scope: 'everywhere' });
    const events = (
      await ctx.deps.db
        .selectFrom('events')
        .select(['sequence', 'body'])
        .where('integration_id', '=', partner.id)
        .where('sequence', '>', before.sequence)
        .execute()
    ).map((e) => JSON.parse(e.body));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'availability.changed', window: { from: night, to: night } });
    expect(before.data.dates[0].is_blocked).toBe(false);
    expect(events[0].data.dates[0].is_blocked).toBe(true);

    const after = (await snapshot('availability', q(night, night))).json().data;
    expect(after.sequence).toBe(events[0].sequence);
    expect(after.data).toEqual(events[0].data);
    const me = (await ctx.api(partner.apiKey, 'GET', '/me')).json().data;
    expect(me.webhook.last_sequence).toBe(after.sequence);
  });
});
