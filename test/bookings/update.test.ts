import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { book, bookingBody, day, eventsOf, holdsOf, integrationWithVilla, lastSequence, postBooking } from './fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const setup = (units = 3) => integrationWithVilla(ctx, units);

const patch = (integ: TestIntegration, id: number | string, body: unknown, headers?: Record<string, string>) =>
  ctx.api(integ.apiKey, 'PATCH', `/bookings/${id}`, body, headers);
const cancel = (integ: TestIntegration, id: number | string, body?: unknown, headers?: Record<string, string>) =>
  ctx.api(integ.apiKey, 'POST', `/bookings/${id}/cancel`, body, headers);
const hostPatch = (id: number, body: unknown) => ctx.staff('PATCH', `/bookings/${id}`, body);

describe('PATCH /bookings/{id}', () => {
  it('applies any subset of the fields; revision +1, updated_at moves, ETag follows', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    await ctx.advanceClock(5);
    const res = await patch(integ, created.id, {
      guest: { mobile: '9000000000' },
      pricing: { total: 15000.5 },
      notes: 'Cot needed',
      source: { reference: 'HM-2' },
      status: 'confirmed',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    const data = res.json().data;
    expect(data).toMatchObject({
      id: created.id,
      revision: 2,
      guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9000000000' },
      pricing: { total: 15000.5, currency: 'INR' },
      notes: 'Cot needed',
      source: { channel: 'airbnb', reference: 'HM-2' },
      check_in: created.check_in,
      created_at: created.created_at,
    });
    expect(data.updated_at > created.updated_at).toBe(true);
    // null clears optional fields
    const cleared = await patch(integ, created.id, { notes: null, guest: { phone_code: null }, source: { reference: null } });
    expect(cleared.json().data).toMatchObject({ revision: 3, notes: null, guest: { phone_code: null }, source: { reference: null } });
  });

  it('a PATCH that changes nothing answers 200 with the same revision and records no event', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    const seq = await lastSequence(ctx, integ.id);
    for (const body of [{}, { notes: null, status: 'confirmed', check_in: created.check_in, guest: { name: 'Asha Rao' }, pricing: { total: 10000 } }]) {
      const res = await patch(integ, created.id, body);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.revision).toBe(1);
      expect(res.json().data.updated_at).toBe(created.updated_at);
    }
    // no body at all is not "no change": the body is required
    const none = await patch(integ, created.id, undefined);
    expect(none.statusCode).toBe(422);
    expect(none.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { body: [expect.stringMatching(/^is required/)] } });
    expect(await lastSequence(ctx, integ.id)).toBe(seq);
  });

  it('source.channel cannot be changed (422)', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    const res = await patch(integ, created.id, { source: { channel: 'direct' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
    expect(Object.keys(res.json().errors)).toEqual(['source.channel']);
  });

  it('validates present fields', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    const res = await patch(integ, created.id, {
      guest: { name: '' },
      pricing: { currency: 'EUR' },
      notes: 'n'.repeat(2001),
      status: 'gone',
      units: [],
      check_in: '2026-99-01',
      reason: 'r'.repeat(501),
    });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().errors).sort()).toEqual(['check_in', 'guest.name', 'notes', 'pricing.currency', 'reason', 'status', 'units'].sort());
    const long = await patch(integ, created.id, { check_out: day(ctx, 10 + 31) });
    expect(long.statusCode).toBe(422);
    expect(Object.keys(long.json().errors)).toEqual(['check_out']);
    expect(long.json().errors.check_out[0]).toContain('30');
    const past = await patch(integ, created.id, { check_in: day(ctx, -2) });
    expect(Object.keys(past.json().errors)).toEqual(['check_in']);
    const backwards = await patch(integ, created.id, { check_out: created.check_in });
    expect(Object.keys(backwards.json().errors)).toEqual(['check_out']);
  });

  it('If-Match: a stale revision is 412 PRECONDITION_FAILED with errors.revision; "N" and N both match', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    expect((await patch(integ, created.id, { notes: 'a' }, { 'if-match': '"1"' })).statusCode).toBe(200);
    const stale = await patch(integ, created.id, { notes: 'b' }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject(failure('PRECONDITION_FAILED'));
    expect(stale.json().errors.revision).toBe(2);
    expect((await patch(integ, created.id, { notes: 'b' }, { 'if-match': '2' })).json().data.revision).toBe(3);
    expect((await patch(integ, created.id, { notes: 'c' }, { 'if-match': 'W/"3"' })).json().data.revision).toBe(4);
    expect((await patch(integ, created.id, { notes: 'd' }, { 'if-match': 'garbage' })).statusCode).toBe(412);
    // A stale no-op PATCH is refused too; nothing changed by the refusals.
    expect((await patch(integ, created.id, {}, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await ctx.api(integ.apiKey, 'GET', `/bookings/${created.id}`)).json().data).toMatchObject({ revision: 4, notes: 'c' });
  });

  it('moves dates, re-checking availability with its own nights counting as free', async () => {
    const { integ, villa } = await setup(1);
    const created = await book(ctx, integ, villa, { check_in: day(ctx, 10), check_out: day(ctx, 13) });
    // Overlapping its own nights is fine.
    const moved = await patch(integ, created.id, { check_in: day(ctx, 11), check_out: day(ctx, 15) });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ check_in: day(ctx, 11), check_out: day(ctx, 15), nights: 4, revision: 2 });
    expect((await holdsOf(ctx, created.id)).map((h) => h.night)).toEqual([day(ctx, 11), day(ctx, 12), day(ctx, 13), day(ctx, 14)]);
    // The old nights are free again.
    expect((await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, 10), check_out: day(ctx, 11) }))).statusCode).toBe(201);
    // Onto another booking's nights: 409 UNAVAILABLE, nothing changed.
    const other = await book(ctx, integ, villa, { check_in: day(ctx, 20), check_out: day(ctx, 22) });
    const clash = await patch(integ, created.id, { check_out: day(ctx, 21) });
    expect(clash.statusCode, clash.body).toBe(409);
    expect(clash.json()).toMatchObject(failure('UNAVAILABLE'));
    expect(clash.json().errors.availability.window).toEqual({ from: day(ctx, 11), to: day(ctx, 20) });
    expect(clash.json().errors.availability.units[0].unavailable).toEqual([day(ctx, 20)]);
    expect((await holdsOf(ctx, created.id)).map((h) => h.night)).toEqual([day(ctx, 11), day(ctx, 12), day(ctx, 13), day(ctx, 14)]);
    expect(await holdsOf(ctx, other.id)).toHaveLength(2);
  });

  it('replaces units; entries naming none keep the current unit when it is free', async () => {
    const { integ, villa } = await setup(3);
    const created = await book(ctx, integ, villa, { units: [{ inventory_id: villa.unitIds[1], adults: 2 }] });
    const more = await patch(integ, created.id, { units: [{ adults: 3 }, { external_unit_id: villa.aliases[2], meal_plan: 'AP' }] });
    expect(more.statusCode, more.body).toBe(200);
    expect(more.json().data.units).toEqual([
      { inventory_id: villa.unitIds[1], external_unit_id: villa.aliases[1], adults: 3, children: 0, meal_plan: 'EP' },
      { inventory_id: villa.unitIds[2], external_unit_id: villa.aliases[2], adults: 1, children: 0, meal_plan: 'AP' },
    ]);
    expect(new Set((await holdsOf(ctx, created.id)).map((h) => h.unit_id))).toEqual(new Set([villa.unitIds[1], villa.unitIds[2]]));
    // Guests only: same units, same holds, a new revision.
    const guests = await patch(integ, created.id, {
      units: [
        { inventory_id: villa.unitIds[1], adults: 1 },
        { inventory_id: villa.unitIds[2], adults: 1, meal_plan: 'AP' },
      ],
    });
    expect(guests.json().data.revision).toBe(3);
    // Unit rules as on create.
    const unknown = await patch(integ, created.id, { units: [{ external_unit_id: 'nope' }] });
    expect(Object.keys(unknown.json().errors)).toEqual(['units.0.external_unit_id']);
    const twice = await patch(integ, created.id, { units: [{ inventory_id: villa.unitIds[0] }, { external_unit_id: villa.aliases[0] }] });
    expect(Object.keys(twice.json().errors)).toEqual(['units.1']);
    // Onto a held unit: 409.
    await book(ctx, integ, villa, { units: [{ inventory_id: villa.unitIds[0] }] });
    const taken = await patch(integ, created.id, { units: [{ inventory_id: villa.unitIds[0] }] });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject(failure('UNAVAILABLE'));
  });

  it('UNIT_INACTIVE when the new units or a kept unit on new dates are off sale', async () => {
    const { integ, villa } = await setup(3);
    const created = await book(ctx, integ, villa, { units: [{ inventory_id: villa.unitIds[2] }] });
    const put = await ctx.api(integ.apiKey, 'PUT', `/properties/${villa.externalId}`, {
      units: [
        { inventory_id: villa.unitIds[1], is_active: false },
        { inventory_id: villa.unitIds[2], is_active: false },
      ],
    });
    expect(put.statusCode, put.body).toBe(200);
    const onto = await patch(integ, created.id, { units: [{ inventory_id: villa.unitIds[0] }, { inventory_id: villa.unitIds[1] }] });
    expect(onto.statusCode).toBe(422);
    expect(onto.json()).toMatchObject(failure('UNIT_INACTIVE'));
    expect(onto.json().errors).toEqual({ 'units.1': { inventory_id: villa.unitIds[1], is_active: false } });
    const kept = await patch(integ, created.id, { check_out: day(ctx, 13) });
    expect(kept.statusCode).toBe(422);
    expect(kept.json()).toMatchObject(failure('UNIT_INACTIVE'));
    expect(kept.json().errors).toEqual({ 'units.0': { inventory_id: villa.unitIds[2], is_active: false } });
    // Other changes still work.
    expect((await patch(integ, created.id, { notes: 'fine' })).statusCode).toBe(200);
  });

  it('an archived property’s booking cannot move (PROPERTY_ARCHIVED); other changes and cancel still work', async () => {
    const { integ, villa } = await setup(2);
    const created = await book(ctx, integ, villa);
    expect((await ctx.staff('POST', `/properties/${villa.id}/archive`)).statusCode).toBe(200);
    const moved = await patch(integ, created.id, { check_out: day(ctx, 13) });
    expect(moved.statusCode).toBe(422);
    expect(moved.json()).toMatchObject(failure('PROPERTY_ARCHIVED'));
    expect((await patch(integ, created.id, { notes: 'still fine' })).json().data.revision).toBe(2);
    expect((await cancel(integ, created.id)).json().data.status).toBe('cancelled');
  });

  it('PATCH /bookings/external/{external_booking_id} does the same', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa, { external_booking_id: 'EXT/1 a' });
    const res = await ctx.api(integ.apiKey, 'PATCH', `/bookings/external/${encodeURIComponent('EXT/1 a')}`, { notes: 'by ref' }, { 'if-match': '"1"' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: created.id, notes: 'by ref', revision: 2 });
    expect((await ctx.api(integ.apiKey, 'PATCH', '/bookings/external/nope', { notes: 'x' })).statusCode).toBe(404);
    const stale = await ctx.api(integ.apiKey, 'PATCH', `/bookings/external/${encodeURIComponent('EXT/1 a')}`, { notes: 'x' }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
  });
});

describe('status transitions', () => {
  it('partner: pending→confirmed, pending→cancelled, confirmed→cancelled, cancelled→refunded', async () => {
    const { integ, villa } = await setup(3);
    const a = await book(ctx, integ, villa, { status: 'pending' });
    expect((await patch(integ, a.id, { status: 'confirmed' })).json().data.status).toBe('confirmed');
    const cancelled = await patch(integ, a.id, { status: 'cancelled', reason: 'guest asked' });
    expect(cancelled.json().data).toMatchObject({ status: 'cancelled', cancellation: { reason: 'guest asked', refund_note: null } });
    expect(cancelled.json().data.cancellation.cancelled_at).toMatch(/\+05:30$/);
    expect(await holdsOf(ctx, a.id)).toEqual([]);
    const refunded = await patch(integ, a.id, { status: 'refunded', refund_note: 'full refund' });
    expect(refunded.json().data).toMatchObject({ status: 'refunded', cancellation: { reason: 'guest asked', refund_note: 'full refund' } });
    const b = await book(ctx, integ, villa, { status: 'pending', units: [{ adults: 1 }] });
    expect((await patch(integ, b.id, { status: 'cancelled' })).json().data.status).toBe('cancelled');
  });

  it('anything else is 422 INVALID_STATUS_TRANSITION; completed is for the host only', async () => {
    const { integ, villa } = await setup(3);
    const pending = await book(ctx, integ, villa, { status: 'pending' });
    for (const status of ['completed', 'refunded']) {
      const res = await patch(integ, pending.id, { status });
      expect(res.statusCode, status).toBe(422);
      expect(res.json()).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    }
    const confirmed = await book(ctx, integ, villa, { units: [{ adults: 1 }] });
    for (const status of ['pending', 'completed', 'refunded']) {
      const res = await patch(integ, confirmed.id, { status });
      expect(res.statusCode, status).toBe(422);
      expect(res.json()).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    }
    await cancel(integ, confirmed.id);
    for (const status of ['pending', 'confirmed', 'completed']) {
      expect((await patch(integ, confirmed.id, { status })).json(), status).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    }
    await patch(integ, confirmed.id, { status: 'refunded' });
    for (const status of ['pending', 'confirmed', 'cancelled', 'completed']) {
      expect((await patch(integ, confirmed.id, { status })).json(), status).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    }
    const res = await ctx.api(integ.apiKey, 'GET', `/bookings/${confirmed.id}`);
    expect(res.json().data).toMatchObject({ status: 'refunded', revision: 3 });
  });

  it('dates or units of a cancelled, completed or refunded booking: 422 BOOKING_NOT_MODIFIABLE', async () => {
    const { integ, villa } = await setup(2);
    const created = await book(ctx, integ, villa);
    await cancel(integ, created.id);
    for (const body of [{ check_in: day(ctx, 15), check_out: day(ctx, 16) }, { check_out: day(ctx, 13) }, { units: [{ inventory_id: villa.unitIds[1] }] }]) {
      const res = await patch(integ, created.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json()).toMatchObject(failure('BOOKING_NOT_MODIFIABLE'));
    }
    // Other fields can still change; the same dates are no change at all.
    expect((await patch(integ, created.id, { notes: 'after cancel', check_in: created.check_in })).json().data).toMatchObject({
      notes: 'after cancel',
      revision: 3,
    });
    // refunded too
    await patch(integ, created.id, { status: 'refunded' });
    expect((await patch(integ, created.id, { check_out: day(ctx, 14) })).json()).toMatchObject(failure('BOOKING_NOT_MODIFIABLE'));
  });
});

describe('POST /bookings/{id}/cancel', () => {
  it('cancels, releases the holds, records reason and refund_note; repeats answer 200 unchanged', async () => {
    const { integ, villa } = await setup(1);
    const created = await book(ctx, integ, villa);
    const res = await cancel(integ, created.id, { reason: 'changed plans', refund_note: '50% back' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.json().data).toMatchObject({ status: 'cancelled', revision: 2, cancellation: { reason: 'changed plans', refund_note: '50% back' } });
    expect(await holdsOf(ctx, created.id)).toEqual([]);
    // The nights are free again.
    expect((await postBooking(ctx, integ, bookingBody(ctx, villa))).statusCode).toBe(201);
    const seq = await lastSequence(ctx, integ.id);
    const again = await cancel(integ, created.id, { reason: 'other' });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(res.json().data);
    // Even with a stale If-Match: the retry of a cancel that went through.
    expect((await cancel(integ, created.id, undefined, { 'if-match': '"1"' })).statusCode).toBe(200);
    expect(await lastSequence(ctx, integ.id)).toBe(seq);
    // refunded: still 200 unchanged
    await patch(integ, created.id, { status: 'refunded' });
    const refunded = await cancel(integ, created.id);
    expect(refunded.statusCode).toBe(200);
    expect(refunded.json().data).toMatchObject({ status: 'refunded', revision: 3 });
  });

  it('takes no body, an empty body, or {}; validates reason and refund_note', async () => {
    const { integ, villa } = await setup(3);
    const a = await book(ctx, integ, villa, { units: [{ adults: 1 }] });
    const b = await book(ctx, integ, villa, { units: [{ adults: 1 }] });
    const c = await book(ctx, integ, villa, { units: [{ adults: 1 }] });
    expect((await cancel(integ, a.id)).statusCode).toBe(200);
    expect((await ctx.api(integ.apiKey, 'POST', `/bookings/${b.id}/cancel`, '', { 'content-type': 'application/json' })).statusCode).toBe(200);
    const bad = await cancel(integ, c.id, { reason: 'r'.repeat(501), refund_note: 5 });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['reason', 'refund_note']);
    expect((await cancel(integ, c.id, {})).statusCode).toBe(200);
  });

  it('If-Match on cancel: stale → 412', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    await patch(integ, created.id, { notes: 'x' });
    const stale = await cancel(integ, created.id, {}, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().errors.revision).toBe(2);
    expect((await cancel(integ, created.id, {}, { 'if-match': '"2"' })).statusCode).toBe(200);
  });

  it('a completed booking cannot be cancelled', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa, { check_in: day(ctx, 1), check_out: day(ctx, 2) });
    await ctx.advanceClock(3 * 24 * 3600);
    expect((await hostPatch(created.id, { status: 'completed' })).statusCode).toBe(200);
    const res = await cancel(integ, created.id);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
  });

  it('cancel by external id, and 404 for an unknown one', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa, { external_booking_id: 'cancel me/1' });
    const res = await ctx.api(integ.apiKey, 'POST', `/bookings/external/${encodeURIComponent('cancel me/1')}/cancel`, { reason: 'x' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: created.id, status: 'cancelled' });
    expect((await ctx.api(integ.apiKey, 'POST', '/bookings/external/unknown/cancel')).statusCode).toBe(404);
    expect((await ctx.api(integ.apiKey, 'POST', '/bookings/abc/cancel')).statusCode).toBe(404);
  });

  it('records booking.changed and availability.changed for the released nights', async () => {
    const { integ, villa } = await setup();
    const created = await book(ctx, integ, villa);
    const seq = await lastSequence(ctx, integ.id);
    await cancel(integ, created.id);
    const events = await eventsOf(ctx, integ.id, seq);
    expect(events.map((e) => e.type)).toEqual(['booking.changed', 'availability.changed']);
    expect(events[0].data.booking).toMatchObject({ id: created.id, status: 'cancelled', revision: 2 });
    expect(events[1].window).toEqual({ from: created.check_in, to: day(ctx, 11) });
    expect(events[1].data.dates.every((d: { available_units: number }) => d.available_units === 3)).toBe(true);
  });
});
