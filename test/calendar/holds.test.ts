import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/time.js';
import { notFound } from '../../src/http/errors.js';
import {
  availabilityForStay,
  HoldConflict,
  isHoldConflict,
  decideStay,
  holdStay,
  releaseStay,
  type ReserveRequest,
  type StayOptions,
} from '../../src/modules/calendar/calendar.holds.js';
import { lockProperty } from '../../src/modules/properties/properties.lock.js';
import { unitOfWork } from '../../src/modules/events/events.log.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { alias, cover, hold, insertProperty, makeBooking, today, type FixtureProperty } from './fixtures.js';

let ctx: TestContext;
let partner: TestIntegration;
let day0: string;

beforeAll(async () => {
  ctx = await createTestContext();
  partner = await ctx.createIntegration();
  day0 = today(ctx);
});
afterAll(() => ctx.close());

const stay = (p: FixtureProperty, checkIn: string, checkOut: string, options: StayOptions) =>
  ctx.deps.db.transaction().execute((trx) => availabilityForStay(trx, p.id, checkIn, checkOut, options));

/** decideStay then holdStay for an existing bare booking row: the write only touches it. */
const reserve = (p: FixtureProperty, bookingId: number, units: Array<number | null>, checkIn: string, checkOut: string, extra: Partial<ReserveRequest> = {}) =>
  unitOfWork(ctx.deps, async (trx) => {
    const lock = await lockProperty(trx, p.id);
    if (!lock) throw notFound('No such property.');
    const request: ReserveRequest = { checkIn, checkOut, channel: 'direct', integrationId: null, units, ...extra };
    const decision = await decideStay(trx, lock, request);
    const write = trx
      .updateTable('bookings')
      .set({ units: JSON.stringify(decision.unitIds.map((unit_id) => ({ unit_id, adults: 1, children: 0, meal_plan: 'EP' }))) })
      .where('id', '=', bookingId)
      .returningAll();
    return { ...decision, row: await holdStay(trx, lock, request, decision, write) };
  });
const heldBy = (bookingId: number) =>
  ctx.deps.db.selectFrom('unit_nights').select(['unit_id', 'night']).where('booking_id', '=', bookingId).orderBy('night').orderBy('unit_id').execute();
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e as { code?: string }).code ?? String(e),
  );

describe('holds storage', () => {
  it('decideStay and holdStay hold check_out-exclusive nights with the row, refuses what is taken, and releases', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 1 });
    const [u] = p.unitIds;
    const [b1, b2, b3] = [await makeBooking(ctx, p.id), await makeBooking(ctx, p.id), await makeBooking(ctx, p.id)];
    const first = await reserve(p, b1, [null], addDays(day0, 1), addDays(day0, 4));
    expect(first.unitIds).toEqual([u]);
    expect(first.row.id).toBe(b1);
    expect(first.row.units).toEqual([{ unit_id: u, adults: 1, children: 0, meal_plan: 'EP' }]);
    expect((await heldBy(b1)).map((r) => r.night)).toEqual([addDays(day0, 1), addDays(day0, 2), addDays(day0, 3)]);
    // the returned calendar carries the new holds
    expect(first.stay.data.holds.get(addDays(day0, 2))?.includes(u)).toBe(true);

    // an overlapping stay is refused by the decision (409), and leaves nothing behind
    expect(await codeOf(reserve(p, b2, [u], addDays(day0, 3), addDays(day0, 5)))).toBe('UNAVAILABLE');
    expect(await heldBy(b2)).toEqual([]);
    // an adjacent stay is fine
    await reserve(p, b3, [u], addDays(day0, 4), addDays(day0, 6));

    // a changed booking's own holds count as free and are replaced
    await reserve(p, b1, [u], addDays(day0, 2), addDays(day0, 4), { bookingId: b1 });
    expect((await heldBy(b1)).map((r) => r.night)).toEqual([addDays(day0, 2), addDays(day0, 3)]);

    await unitOfWork(ctx.deps, async (trx) => releaseStay(trx, (await lockProperty(trx, p.id))!, b1));
    expect(await heldBy(b1)).toEqual([]);
    expect((await heldBy(b3)).length).toBe(2);
  });

  it('throws a HoldConflict naming the stay when a hold is taken between the decision and the write', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 2 });
    const [b, other] = [await makeBooking(ctx, p.id), await makeBooking(ctx, p.id)];
    const request: ReserveRequest = {
      checkIn: addDays(day0, 1),
      checkOut: addDays(day0, 3),
      channel: 'direct',
      integrationId: partner.id,
      units: [p.unitIds[0], null],
    };
    const lost = await unitOfWork(ctx.deps, async (trx) => {
      const lock = (await lockProperty(trx, p.id))!;
      const decision = await decideStay(trx, lock, request);
      // a writer that skipped the property's lock takes a night of the decided units
      await trx
        .insertInto('unit_nights')
        .values({ unit_id: decision.unitIds[1], night: addDays(day0, 2), booking_id: other })
        .execute();
      return holdStay(trx, lock, request, decision, trx.updateTable('bookings').set({ notes: 'held' }).where('id', '=', b).returningAll());
    }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(HoldConflict);
    const conflict = lost as HoldConflict;
    expect(isHoldConflict(conflict.cause)).toBe(true);
    expect(conflict.picked).toBe(true);
    expect(conflict.stay).toEqual({
      propertyId: p.id,
      checkIn: request.checkIn,
      checkOut: request.checkOut,
      channel: 'direct',
      integrationId: partner.id,
      excludeBookingId: undefined,
    });
    expect(await heldBy(b)).toEqual([]);
  });

  it('refuses an archived property and an unknown one', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 1 });
    const b = await makeBooking(ctx, p.id);
    await ctx.deps.db.updateTable('properties').set({ status: 'archived' }).where('id', '=', p.id).execute();
    expect(await codeOf(reserve(p, b, [null], addDays(day0, 1), addDays(day0, 2)))).toBe('PROPERTY_ARCHIVED');
    expect(await codeOf(reserve({ ...p, id: 2_000_000_000 }, b, [null], addDays(day0, 1), addDays(day0, 2)))).toBe('NOT_FOUND');
    expect(await heldBy(b)).toEqual([]);
  });

  it('lets exactly one of many concurrent overlapping holds win, by the primary key alone', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 1 });
    const [u] = p.unitIds;
    const bookings: number[] = [];
    for (let i = 0; i < 8; i++) bookings.push(await makeBooking(ctx, p.id));
    // raw inserts, without the calendar lock: the (unit, night) key is the last line of defence
    const results = await Promise.allSettled(bookings.map((b, i) => hold(ctx, u, addDays(day0, 10 + (i % 2)), addDays(day0, 12), b)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(isHoldConflict(r.reason)).toBe(true);
    expect(isHoldConflict(new Error('other'))).toBe(false);
    const holders = await ctx.deps.db.selectFrom('unit_nights').select('booking_id').distinct().where('unit_id', '=', u).execute();
    expect(holders).toHaveLength(1);
  });

  it('serialises check-then-hold under the property lock, so a cap is never overrun', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 4 });
    await ctx.staff('PUT', `/properties/${p.id}/calendar`, { from: addDays(day0, 20), to: addDays(day0, 21), units_cap: 2 });
    const bookings: number[] = [];
    for (let i = 0; i < 6; i++) bookings.push(await makeBooking(ctx, p.id));
    const outcomes = await Promise.all(bookings.map((id) => codeOf(reserve(p, id, [null], addDays(day0, 20), addDays(day0, 22)))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'UNAVAILABLE')).toHaveLength(4);
    const held = await ctx.deps.db.selectFrom('unit_nights').select('unit_id').distinct().where('unit_id', 'in', p.unitIds).execute();
    expect(held).toHaveLength(2);
  });
});

describe('availabilityForStay', () => {
  it('applies holds, blocks (everywhere / ota_only by channel), caps and the booking’s own holds', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 3 });
    await cover(ctx, partner, p.id);
    await alias(ctx, partner, p.unitIds[2], 'U3');
    const [u1, u2, u3] = p.unitIds;
    const n = (i: number) => addDays(day0, 30 + i);
    const put = (body: object) => ctx.staff('PUT', `/properties/${p.id}/calendar`, body);

    // plain stay: all free
    let a = await stay(p, n(0), n(2), { channel: 'booking_com' });
    expect(a.window).toEqual({ from: n(0), to: n(1) });
    expect(a.nights).toEqual([n(0), n(1)]);
    expect(a.canBook([u1, u2, u3])).toBe(true);
    expect(a.canBook([u1, u1])).toBe(false);
    expect(a.assign([null, null])).toEqual([u1, u2]);

    // a hold on u1 for night 1
    const b500 = await hold(ctx, u1, n(1), n(1));
    a = await stay(p, n(0), n(2), { channel: 'direct' });
    expect(a.canBook([u1])).toBe(false);
    expect(a.assign([null])).toEqual([u2]);
    expect(a.assign([u2, null])).toEqual([u2, u3]);
    expect(a.assign([null], [u3])).toEqual([u3]); // a preferred unit first
    expect(a.assign([null, null, null])).toBeNull();
    expect(a.assign([u1])).toBeNull(); // named, but held
    // ... which the holding booking itself may keep (update of booking 500)
    a = await stay(p, n(0), n(2), { channel: 'direct', excludeBookingId: b500 });
    expect(a.canBook([u1])).toBe(true);

    // ota_only block of the property: direct yes, others no
    await put({ from: n(3), to: n(3), block_scope: 'ota_only' });
    expect((await stay(p, n(3), n(4), { channel: 'direct' })).canBook([u2])).toBe(true);
    const ota = await stay(p, n(3), n(4), { channel: 'airbnb' });
    expect(ota.canBook([u2])).toBe(false);
    expect(ota.assign([null])).toBeNull();

    // everywhere block: nobody
    await put({ from: n(4), to: n(4), block_scope: 'everywhere' });
    expect((await stay(p, n(4), n(5), { channel: 'direct' })).assign([null])).toBeNull();

    // unit blocks
    await put({ from: n(5), to: n(5), inventory_ids: [u2], block_scope: 'ota_only' });
    await put({ from: n(5), to: n(5), inventory_ids: [u3], block_scope: 'everywhere' });
    expect((await stay(p, n(5), n(6), { channel: 'direct' })).assign([null, null])).toEqual([u1, u2]);
    expect((await stay(p, n(5), n(6), { channel: 'expedia' })).assign([null, null])).toBeNull();
    expect((await stay(p, n(5), n(6), { channel: 'expedia' })).assign([null])).toEqual([u1]);

    // cap 1 with one unit held: nothing more
    await put({ from: n(7), to: n(7), units_cap: 1 });
    const b501 = await hold(ctx, u3, n(7), n(7));
    const capped = await stay(p, n(7), n(8), { channel: 'direct' });
    expect(capped.canBook([u1])).toBe(false);
    expect((await stay(p, n(7), n(8), { channel: 'direct', excludeBookingId: b501 })).canBook([u1])).toBe(true);
  });

  it('gives the 409 picture: window.to is the last night, dates and units with aliases', async () => {
    const p = await insertProperty(ctx, { brandId: partner.brandId, units: 2 });
    await alias(ctx, partner, p.unitIds[1], 'ALIAS-2');
    const n = (i: number) => addDays(day0, 50 + i);
    await hold(ctx, p.unitIds[0], n(0), n(1));
    await ctx.staff('PUT', `/properties/${p.id}/calendar`, { from: n(1), to: n(1), block_scope: 'ota_only' });
    const a = await stay(p, n(0), n(2), { channel: 'airbnb', integrationId: partner.id });
    expect(a.picture()).toEqual({
      window: { from: n(0), to: n(1) },
      dates: [
        { date: n(0), available_units: 1, is_blocked: false, block_scope: null },
        { date: n(1), available_units: 1, is_blocked: true, block_scope: 'ota_only' },
      ],
      units: [
        { inventory_id: p.unitIds[0], external_unit_id: null, unavailable: [n(0), n(1)] },
        { inventory_id: p.unitIds[1], external_unit_id: 'ALIAS-2', unavailable: [n(1)] },
      ],
    });
  });
});
