import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';
import { book, bookingBody, day, eventsOf, holdsOf, integrationWithVilla, lastSequence, newKey, newRef, postBooking } from './fixtures.js';

/**
 * Real concurrency: the requests of each test are in flight together (on PostgreSQL they overlap
 * in the database; on PGlite the driver serialises transactions, which must give the same answers).
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const setup = (units = 3) => integrationWithVilla(ctx, units);

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe('concurrent bookings', () => {
  it('20 parallel creates for one unit on overlapping nights: exactly one 201, the rest 409 UNAVAILABLE', async () => {
    const { integ, villa } = await setup(2);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 10 + (i % 3)), check_out: day(ctx, 13 + (i % 2)) })),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(count(statuses, 201), JSON.stringify(statuses)).toBe(1);
    expect(count(statuses, 409)).toBe(19);
    for (const res of responses.filter((r) => r.statusCode === 409)) expect(res.json()).toMatchObject(failure('UNAVAILABLE'));
    // One booking holds the unit, each night once.
    const holds = await ctx.deps.db.selectFrom('unit_nights').select(['night', 'booking_id']).where('unit_id', '=', villa.unitIds[0]).execute();
    expect(new Set(holds.map((h) => h.booking_id)).size).toBe(1);
    expect(await ctx.deps.db.selectFrom('bookings').select('id').where('integration_id', '=', integ.id).execute()).toHaveLength(1);
  });

  it('the same Idempotency-Key sent twice at once makes one booking', async () => {
    const { integ, villa } = await setup(3);
    const key = newKey();
    const body = bookingBody(ctx, villa, { units: [{ adults: 1 }] });
    const responses = await Promise.all([postBooking(ctx, integ, body, key), postBooking(ctx, integ, body, key), postBooking(ctx, integ, body, key)]);
    const statuses = responses.map((r) => r.statusCode);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      JSON.stringify(statuses),
    ).toBe(true);
    for (const res of responses.filter((r) => r.statusCode === 409)) expect(res.json()).toMatchObject(failure('IN_PROGRESS'));
    const created = responses.filter((r) => r.statusCode === 201).map((r) => r.json().data.id);
    expect(new Set(created).size).toBe(1);
    expect(await ctx.deps.db.selectFrom('bookings').select('id').where('integration_id', '=', integ.id).execute()).toHaveLength(1);
    // Afterwards the key replays the created booking.
    const replay = await postBooking(ctx, integ, body, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.json().data.id).toBe(created[0]);
  });

  it('the same external_booking_id under different keys at once: one booking, the others answer it as a duplicate', async () => {
    const { integ, villa } = await setup(5);
    const ref = newRef();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => postBooking(ctx, integ, bookingBody(ctx, villa, { external_booking_id: ref, units: [{ adults: 1 }] }))),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, JSON.stringify(responses.map((r) => r.body))).toEqual([200, 200, 200, 201]);
    const ids = new Set(responses.map((r) => r.json().data.id));
    expect(ids.size).toBe(1);
    for (const res of responses.filter((r) => r.statusCode === 200)) expect(res.json().data.duplicate).toBe(true);
    expect(
      await ctx.deps.db
        .selectFrom('unit_nights')
        .select('unit_id')
        .distinct()
        .where('booking_id', '=', [...ids][0])
        .execute(),
    ).toHaveLength(1);
  });

  it('adjacent stays on one unit, all at once: every one succeeds', async () => {
    const { integ, villa } = await setup(1);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 20 + 2 * i), check_out: day(ctx, 22 + 2 * i) })),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const holds = await ctx.deps.db.selectFrom('unit_nights').select('night').where('unit_id', '=', villa.unitIds[0]).execute();
    expect(holds).toHaveLength(20);
  });

  it('parallel creates that let the service pick: distinct units, the surplus refused', async () => {
    const { integ, villa } = await setup(5);
    const responses = await Promise.all(Array.from({ length: 8 }, () => postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ adults: 2 }] }))));
    const statuses = responses.map((r) => r.statusCode);
    expect(count(statuses, 201), JSON.stringify(statuses)).toBe(5);
    expect(count(statuses, 409)).toBe(3);
    const units = responses.filter((r) => r.statusCode === 201).map((r) => r.json().data.units[0].inventory_id);
    expect(new Set(units)).toEqual(new Set(villa.unitIds));
  });

  it('availability events stay in step with the holds: the last event of each night shows them all', async () => {
    const { integ, villa } = await setup(6);
    const seq = await lastSequence(ctx, integ.id);
    const responses = await Promise.all(
      villa.aliases.map((alias) =>
        postBooking(ctx, integ, bookingBody(ctx, villa, { units: [{ external_unit_id: alias }], check_in: day(ctx, 30), check_out: day(ctx, 32) })),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    const events = (await eventsOf(ctx, integ.id, seq)).filter((e) => e.type === 'availability.changed');
    expect(events).toHaveLength(6);
    // Applied in sequence order, each event carries at least the holds of those before it.
    const seen = events.map((e) => e.data.dates[0].available_units);
    expect(seen).toEqual([5, 4, 3, 2, 1, 0]);
    expect(events[events.length - 1].data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([0, 0]);
  });

  it('concurrent updates moving two bookings onto the same nights: at most one wins', async () => {
    const { integ, villa } = await setup(1);
    for (let round = 0; round < 3; round++) {
      const base = 40 + round * 20;
      const a = await book(ctx, integ, villa, { check_in: day(ctx, base), check_out: day(ctx, base + 2) });
      const b = await book(ctx, integ, villa, { check_in: day(ctx, base + 4), check_out: day(ctx, base + 6) });
      const target = { check_in: day(ctx, base + 10), check_out: day(ctx, base + 12) };
      const [ra, rb] = await Promise.all([
        ctx.api(integ.apiKey, 'PATCH', `/bookings/${a.id}`, target),
        ctx.api(integ.apiKey, 'PATCH', `/bookings/${b.id}`, target),
      ]);
      const statuses = [ra.statusCode, rb.statusCode].sort();
      expect(statuses, `${ra.body} ${rb.body}`).toEqual([200, 409]);
      const loser = ra.statusCode === 409 ? a : b;
      const winner = ra.statusCode === 200 ? a : b;
      expect((ra.statusCode === 409 ? ra : rb).json()).toMatchObject(failure('UNAVAILABLE'));
      expect((await holdsOf(ctx, winner.id)).map((h) => h.night)).toEqual([target.check_in, day(ctx, base + 11)]);
      expect((await holdsOf(ctx, loser.id)).map((h) => h.night)).toEqual([loser.check_in, day(ctx, loser === a ? base + 1 : base + 5)]);
    }
  });

  it('a cancel racing a create for the same nights: no double hold, no 500', async () => {
    const { integ, villa } = await setup(1);
    const first = await book(ctx, integ, villa, { check_in: day(ctx, 100), check_out: day(ctx, 102) });
    const [cancelled, created] = await Promise.all([
      ctx.api(integ.apiKey, 'POST', `/bookings/${first.id}/cancel`),
      postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 100), check_out: day(ctx, 102) })),
    ]);
    expect(cancelled.statusCode).toBe(200);
    expect([201, 409]).toContain(created.statusCode);
    const holders = await ctx.deps.db
      .selectFrom('unit_nights')
      .select('booking_id')
      .distinct()
      .where('unit_id', '=', villa.unitIds[0])
      .where('night', '>=', day(ctx, 100))
      .execute();
    expect(holders.length).toBeLessThanOrEqual(1);
  });
});
