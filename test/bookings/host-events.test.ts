import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastOfMonth, addDays } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { book, bookingBody, createVilla, day, eventsOf, holdsOf, lastSequence, postBooking, today, type Villa } from './fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** An owner integration with a villa, and a second integration of the brand covering it too. */
async function shared(units = 2): Promise<{ owner: TestIntegration; other: TestIntegration; villa: Villa }> {
  const owner = await ctx.createIntegration();
  const villa = await createVilla(ctx, owner, units);
  const other = await ctx.createIntegration({ brandId: owner.brandId });
  const cover = await ctx.staff('PUT', `/integrations/${other.id}/coverage/${villa.id}`, { external_id: 'OTHER-REF' });
  expect(cover.statusCode, cover.body).toBe(201);
  return { owner, other, villa };
}

const hostBody = (overrides: Record<string, unknown> = {}) => ({
  units: [{ adults: 2 }],
  check_in: day(ctx, 4),
  check_out: day(ctx, 6),
  guest: { name: 'Host Guest' },
  pricing: { total: 8000 },
  ...overrides,
});

describe('events of partner bookings', () => {
  it('create: booking.changed (origin partner) to the writer; availability.changed for the held nights to every covering integration', async () => {
    const { owner, other, villa } = await shared();
    const [ownerSeq, otherSeq] = [await lastSequence(ctx, owner.id), await lastSequence(ctx, other.id)];
    const created = await book(ctx, owner, villa);
    const mine = await eventsOf(ctx, owner.id, ownerSeq);
    expect(mine.map((e) => e.type)).toEqual(['booking.changed', 'availability.changed']);
    expect(mine[0]).toMatchObject({ origin: 'partner', window: null, property: { doorloom_id: villa.id, external_id: villa.externalId } });
    const { duplicate: _d, ...booking } = created;
    expect(mine[0].data).toEqual({ booking });
    expect(mine[1]).toMatchObject({ origin: 'partner', window: { from: day(ctx, 10), to: day(ctx, 11) } });
    expect(mine[1].data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([1, 1]);
    expect(mine[1].data.units[0]).toMatchObject({ inventory_id: villa.unitIds[0], unavailable: [day(ctx, 10), day(ctx, 11)] });
    // The other integration sees only availability, with its own ids and origin doorloom.
    const theirs = await eventsOf(ctx, other.id, otherSeq);
    expect(theirs.map((e) => e.type)).toEqual(['availability.changed']);
    expect(theirs[0]).toMatchObject({ origin: 'doorloom', property: { external_id: 'OTHER-REF' }, window: { from: day(ctx, 10), to: day(ctx, 11) } });
    expect(theirs[0].data.units[0].external_unit_id).toBeNull();
  });

  it('each availability event carries exactly what the snapshot shows for its window', async () => {
    const { owner, other, villa } = await shared(3);
    await book(ctx, owner, villa, { check_in: day(ctx, 10), check_out: day(ctx, 13), units: [{ adults: 1 }] });
    const blocked = await ctx.staff('PUT', `/properties/${villa.id}/calendar`, {
      from: day(ctx, 11),
      to: day(ctx, 11),
      inventory_ids: [villa.unitIds[2]],
      block_scope: 'everywhere',
    });
    expect(blocked.statusCode, blocked.body).toBe(200);
    for (const [integ, ref] of [
      [owner, villa.externalId],
      [other, 'OTHER-REF'],
    ] as const) {
      const seq = await lastSequence(ctx, integ.id);
      const created = integ === owner ? await book(ctx, owner, villa, { check_in: day(ctx, 9), check_out: day(ctx, 12), units: [{ adults: 1 }] }) : null;
      if (created === null) {
        // The other integration sees a booking of the owner as availability only.
        await book(ctx, owner, villa, { check_in: day(ctx, 12), check_out: day(ctx, 14), units: [{ adults: 1 }] });
      }
      const events = (await eventsOf(ctx, integ.id, seq)).filter((e) => e.type === 'availability.changed');
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) {
        const snap = await ctx.api(
          integ.apiKey,
          'GET',
          `/properties/${encodeURIComponent(ref)}/availability?from=${event.window!.from}&to=${event.window!.to}`,
        );
        expect(snap.statusCode, snap.body).toBe(200);
        expect(event.data).toEqual(snap.json().data.data);
      }
    }
  });

  it('ids beyond the integer range are refused, not a 500', async () => {
    const { owner, villa } = await shared(1);
    const res = await postBooking(ctx, owner, bookingBody(ctx, villa, { property: { doorloom_id: 99999999999 }, units: [{ inventory_id: 99999999999 }] }));
    expect(res.statusCode, res.body).toBe(422);
    expect(Object.keys(res.json().errors).sort()).toEqual(['property.doorloom_id', 'units.0.inventory_id']);
    expect((await ctx.api(owner.apiKey, 'GET', '/bookings?property_id=99999999999')).statusCode).toBe(422);
  });

  it('a stay across a month end emits one availability event per month, windowed to the stay', async () => {
    const { owner, villa } = await shared();
    // The last two nights of the month after next and the first two of the next one.
    const monthEnd = lastOfMonth(addDays(lastOfMonth(today(ctx)), 1));
    const seq = await lastSequence(ctx, owner.id);
    await book(ctx, owner, villa, { check_in: addDays(monthEnd, -1), check_out: addDays(monthEnd, 3) });
    const events = (await eventsOf(ctx, owner.id, seq)).filter((e) => e.type === 'availability.changed');
    expect(events.map((e) => e.window)).toEqual([
      { from: addDays(monthEnd, -1), to: monthEnd },
      { from: addDays(monthEnd, 1), to: addDays(monthEnd, 2) },
    ]);
  });

  it('a date change covers the old and the new nights; a guest change emits booking.changed only', async () => {
    const { owner, other, villa } = await shared();
    const created = await book(ctx, owner, villa, { check_in: day(ctx, 10), check_out: day(ctx, 12) });
    let seq = await lastSequence(ctx, owner.id);
    const otherSeq = await lastSequence(ctx, other.id);
    const moved = await ctx.api(owner.apiKey, 'PATCH', `/bookings/${created.id}`, { check_in: day(ctx, 14), check_out: day(ctx, 15) });
    expect(moved.statusCode, moved.body).toBe(200);
    const events = await eventsOf(ctx, owner.id, seq);
    expect(events.map((e) => e.type)).toEqual(['booking.changed', ...events.slice(1).map(() => 'availability.changed')]);
    const nights = events.slice(1).flatMap((e) => e.data.dates.map((d: { date: string; available_units: number }) => [d.date, d.available_units]));
    const byNight = Object.fromEntries(nights);
    expect(byNight[day(ctx, 10)]).toBe(2);
    expect(byNight[day(ctx, 11)]).toBe(2);
    expect(byNight[day(ctx, 14)]).toBe(1);
    expect(events[0].data.booking).toMatchObject({ revision: 2, check_in: day(ctx, 14) });
    expect((await eventsOf(ctx, other.id, otherSeq)).every((e) => e.type === 'availability.changed')).toBe(true);

    seq = await lastSequence(ctx, owner.id);
    await ctx.api(owner.apiKey, 'PATCH', `/bookings/${created.id}`, { guest: { name: 'New Name' } });
    const guestOnly = await eventsOf(ctx, owner.id, seq);
    expect(guestOnly.map((e) => e.type)).toEqual(['booking.changed']);
    expect(guestOnly[0].data.booking.guest.name).toBe('New Name');
  });

  it('a refused write records nothing', async () => {
    const { owner, villa } = await shared(1);
    await book(ctx, owner, villa);
    const seq = await lastSequence(ctx, owner.id);
    expect((await postBooking(ctx, owner, bookingBody(ctx, villa))).statusCode).toBe(409);
    expect(await lastSequence(ctx, owner.id)).toBe(seq);
  });

  it('nights beyond an integration’s horizon emit no availability event for it', async () => {
    const owner = await ctx.createIntegration({ horizon_days: 30 });
    const villa = await createVilla(ctx, owner, 1);
    const seq = await lastSequence(ctx, owner.id);
    const far = lastOfMonth(day(ctx, 29));
    await book(ctx, owner, villa, { check_in: addDays(far, 5), check_out: addDays(far, 7) });
    const events = await eventsOf(ctx, owner.id, seq);
    expect(events.map((e) => e.type)).toEqual(['booking.changed']);
  });
});

describe('host bookings (staff API)', () => {
  it('POST /properties/{id}/bookings creates a host booking seen by every covering integration with origin doorloom', async () => {
    const { owner, other, villa } = await shared();
    const [ownerSeq, otherSeq] = [await lastSequence(ctx, owner.id), await lastSequence(ctx, other.id)];
    const res = await ctx.staff('POST', `/properties/${villa.id}/bookings`, hostBody({ notes: 'phone booking' }));
    expect(res.statusCode, res.body).toBe(201);
    const booking = res.json().data;
    expect(booking).toMatchObject({
      external_booking_id: expect.stringMatching(/^DL-[1-9][0-9]*$/),
      revision: 1,
      status: 'confirmed',
      property: { doorloom_id: villa.id, external_id: null },
      units: [{ inventory_id: villa.unitIds[0], external_unit_id: null, adults: 2 }],
      source: { channel: 'direct', reference: null },
    });
    for (const [integ, seq, externalId] of [
      [owner, ownerSeq, villa.externalId],
      [other, otherSeq, 'OTHER-REF'],
    ] as const) {
      const events = await eventsOf(ctx, integ.id, seq);
      // one availability.changed per calendar month the stay's nights touch (windows never cross a month)
      const months = new Set([day(ctx, 4), day(ctx, 5)].map((night) => night.slice(0, 7))).size;
      expect(events.map((e) => e.type)).toEqual(['booking.changed', ...Array(months).fill('availability.changed')]);
      expect(events.every((e) => e.origin === 'doorloom')).toBe(true);
      expect(events[0].data.booking).toMatchObject({ id: booking.id, property: { external_id: externalId } });
    }
    expect((await ctx.staff('GET', `/bookings/${booking.id}`)).json().data.id).toBe(booking.id);
  });

  it('host bookings occupy availability, refuse as partner creates do, and need no Idempotency-Key', async () => {
    const { owner, villa } = await shared(1);
    expect((await ctx.staff('POST', `/properties/${villa.id}/bookings`, hostBody({ external_booking_id: 'HOST-1' }))).statusCode).toBe(201);
    const clash = await ctx.staff('POST', `/properties/${villa.id}/bookings`, hostBody());
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject(failure('UNAVAILABLE'));
    const partner = await postBooking(ctx, owner, bookingBody(ctx, villa, { check_in: day(ctx, 5), check_out: day(ctx, 7) }));
    expect(partner.statusCode).toBe(409);
    const reused = await ctx.staff(
      'POST',
      `/properties/${villa.id}/bookings`,
      hostBody({ external_booking_id: 'HOST-1', check_in: day(ctx, 40), check_out: day(ctx, 41) }),
    );
    expect(reused.statusCode).toBe(422);
    const invalid = await ctx.staff('POST', `/properties/${villa.id}/bookings`, { check_in: day(ctx, -1), check_out: day(ctx, 50) });
    expect(invalid.statusCode).toBe(422);
    expect(Object.keys(invalid.json().errors).sort()).toEqual(['check_out', 'guest.name', 'pricing.total', 'units']);
    expect((await ctx.staff('POST', '/properties/999999/bookings', hostBody())).statusCode).toBe(404);
    expect((await ctx.staff('POST', `/properties/${villa.id}/bookings`, hostBody({ units: [{ external_unit_id: villa.aliases[0] }] }))).statusCode).toBe(422);
  });

  it('host changes a partner booking: revision +1, origin doorloom to the owner', async () => {
    const { owner, villa } = await shared();
    const created = await book(ctx, owner, villa);
    const seq = await lastSequence(ctx, owner.id);
    const res = await ctx.staff('PATCH', `/bookings/${created.id}`, { notes: 'host note' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ revision: 2, notes: 'host note', property: { external_id: null } });
    const events = await eventsOf(ctx, owner.id, seq);
    expect(events.map((e) => [e.type, e.origin])).toEqual([['booking.changed', 'doorloom']]);
    expect(events[0].data.booking).toMatchObject({ revision: 2, property: { external_id: villa.externalId }, units: [{ external_unit_id: villa.aliases[0] }] });
    // The partner sees the host's change and its revision.
    expect((await ctx.api(owner.apiKey, 'GET', `/bookings/${created.id}`)).json().data).toMatchObject({ revision: 2, notes: 'host note' });
    // Host cancel: origin doorloom, holds released.
    const cancelled = await ctx.staff('POST', `/bookings/${created.id}/cancel`, { reason: 'overbooked' });
    expect(cancelled.json().data).toMatchObject({ status: 'cancelled', revision: 3, cancellation: { reason: 'overbooked' } });
    expect(await holdsOf(ctx, created.id)).toEqual([]);
    expect((await eventsOf(ctx, owner.id, seq)).slice(1).every((e) => e.origin === 'doorloom')).toBe(true);
    expect((await ctx.staff('PATCH', '/bookings/999999', { notes: 'x' })).statusCode).toBe(404);
  });

  it('host-only transitions: confirmed→completed not before check_out; completed→refunded', async () => {
    const { owner, villa } = await shared();
    const created = await book(ctx, owner, villa, { check_in: day(ctx, 1), check_out: day(ctx, 3) });
    const early = await ctx.staff('PATCH', `/bookings/${created.id}`, { status: 'completed' });
    expect(early.statusCode).toBe(422);
    expect(early.json()).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    await ctx.advanceClock(3 * 24 * 3600); // today = check_out
    const completed = await ctx.staff('PATCH', `/bookings/${created.id}`, { status: 'completed' });
    expect(completed.statusCode, completed.body).toBe(200);
    expect(completed.json().data).toMatchObject({ status: 'completed', revision: 2, cancellation: null });
    // The partner cannot refund a completed booking; the host can.
    expect((await ctx.api(owner.apiKey, 'PATCH', `/bookings/${created.id}`, { status: 'refunded' })).json()).toMatchObject(
      failure('INVALID_STATUS_TRANSITION'),
    );
    const refunded = await ctx.staff('PATCH', `/bookings/${created.id}`, { status: 'refunded', refund_note: 'goodwill' });
    expect(refunded.json().data).toMatchObject({ status: 'refunded', revision: 3, cancellation: { refund_note: 'goodwill', cancelled_at: null } });
    // Dates of a completed/refunded booking cannot move, for the host either.
    expect((await ctx.staff('PATCH', `/bookings/${created.id}`, { check_out: day(ctx, 9) })).json()).toMatchObject(failure('BOOKING_NOT_MODIFIABLE'));
    // Host pending→confirmed and the invalid ones
    const pending = await book(ctx, owner, villa, { status: 'pending' });
    expect((await ctx.staff('PATCH', `/bookings/${pending.id}`, { status: 'refunded' })).json()).toMatchObject(failure('INVALID_STATUS_TRANSITION'));
    expect((await ctx.staff('PATCH', `/bookings/${pending.id}`, { status: 'confirmed' })).json().data.status).toBe('confirmed');
  });

  it('a partner may change a host booking it sees; origin partner to it, doorloom to the others', async () => {
    const { owner, other, villa } = await shared();
    const host = await ctx.staff('POST', `/properties/${villa.id}/bookings`, hostBody());
    const id = host.json().data.id;
    const [ownerSeq, otherSeq] = [await lastSequence(ctx, owner.id), await lastSequence(ctx, other.id)];
    const res = await ctx.api(other.apiKey, 'PATCH', `/bookings/${id}`, { notes: 'from other' });
    expect(res.statusCode, res.body).toBe(200);
    expect((await eventsOf(ctx, other.id, otherSeq)).map((e) => e.origin)).toEqual(['partner']);
    expect((await eventsOf(ctx, owner.id, ownerSeq)).map((e) => e.origin)).toEqual(['doorloom']);
  });
});
