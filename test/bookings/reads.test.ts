import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../src/lib/time.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { book, createVilla, day, newRef, type Villa } from './fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const get = (integ: TestIntegration, path: string) => ctx.api(integ.apiKey, 'GET', path);
const ids = (res: { json(): { data: Array<{ id: number }> } }) => res.json().data.map((b) => b.id);

describe('GET /bookings/{id} and /bookings/external/{external_booking_id}', () => {
  let integ: TestIntegration;
  let villa: Villa;
  beforeAll(async () => {
    integ = await ctx.createIntegration();
    villa = await createVilla(ctx, integ);
  });

  it('answers the booking with ETag "<revision>"', async () => {
    const created = await book(ctx, integ, villa);
    const res = await get(integ, `/bookings/${created.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    const { duplicate: _d, ...booking } = created;
    expect(res.json()).toEqual({ success: true, message: expect.any(String), data: booking });
    const byRef = await get(integ, `/bookings/external/${encodeURIComponent(created.external_booking_id)}`);
    expect(byRef.statusCode).toBe(200);
    expect(byRef.json().data).toEqual(booking);
    expect(byRef.headers.etag).toBe('"1"');
    // The ETag follows the revision.
    await ctx.api(integ.apiKey, 'PATCH', `/bookings/${created.id}`, { notes: 'x' });
    expect((await get(integ, `/bookings/${created.id}`)).headers.etag).toBe('"2"');
  });

  it('takes a URL-encoded external id with reserved characters', async () => {
    const ref = 'OTA/2026 #1?x=é&y';
    const created = await book(ctx, integ, villa, { external_booking_id: ref, check_in: day(ctx, 40), check_out: day(ctx, 41) });
    const res = await get(integ, `/bookings/external/${encodeURIComponent(ref)}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.id).toBe(created.id);
    expect(res.json().data.external_booking_id).toBe(ref);
  });

  it('404 NOT_FOUND for unknown, non-numeric and out-of-range ids', async () => {
    for (const path of ['/bookings/999999', '/bookings/abc', '/bookings/0', '/bookings/1.5', '/bookings/99999999999', '/bookings/external/nope']) {
      const res = await get(integ, path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json()).toMatchObject(failure('NOT_FOUND'));
    }
  });
});

describe('visibility', () => {
  it('another integration’s booking is 404 on every path and absent from its list', async () => {
    const owner = await ctx.createIntegration();
    const villa = await createVilla(ctx, owner);
    // The other integration covers the same property.
    const other = await ctx.createIntegration({ brandId: owner.brandId });
    expect((await ctx.staff('PUT', `/integrations/${other.id}/coverage/${villa.id}`, {})).statusCode).toBe(201);
    const booking = await book(ctx, owner, villa);
    const ref = encodeURIComponent(booking.external_booking_id);
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/bookings/${booking.id}`],
      ['GET', `/bookings/external/${ref}`],
      ['PATCH', `/bookings/${booking.id}`, { notes: 'mine now' }],
      ['PATCH', `/bookings/external/${ref}`, { notes: 'mine now' }],
      ['POST', `/bookings/${booking.id}/cancel`, {}],
      ['POST', `/bookings/external/${ref}/cancel`, {}],
    ];
    for (const [method, path, body] of attempts) {
      const res = await ctx.api(other.apiKey, method as 'GET', path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json()).toMatchObject(failure('NOT_FOUND'));
    }
    const list = await get(other, '/bookings');
    expect(list.json().data).toEqual([]);
    expect(list.json().pagination.total).toBe(0);
    // Untouched by the attempts.
    const mine = await get(owner, `/bookings/${booking.id}`);
    expect(mine.json().data).toMatchObject({ revision: 1, status: 'confirmed', notes: null });
  });

  it('host bookings are seen by the integrations covering the property, each with its own ids', async () => {
    const a = await ctx.createIntegration();
    const villa = await createVilla(ctx, a, 2);
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const outsider = await ctx.createIntegration({ brandId: a.brandId });
    expect((await ctx.staff('PUT', `/integrations/${b.id}/coverage/${villa.id}`, { external_id: 'B-VILLA' })).statusCode).toBe(201);
    const host = await ctx.staff('POST', `/properties/${villa.id}/bookings`, {
      units: [{ inventory_id: villa.unitIds[1], adults: 2 }],
      check_in: day(ctx, 3),
      check_out: day(ctx, 5),
      guest: { name: 'Walk In' },
      pricing: { total: 9000 },
    });
    expect(host.statusCode, host.body).toBe(201);
    const id = host.json().data.id;
    const seenByA = await get(a, `/bookings/${id}`);
    expect(seenByA.statusCode).toBe(200);
    expect(seenByA.json().data).toMatchObject({
      property: { doorloom_id: villa.id, external_id: villa.externalId },
      units: [{ inventory_id: villa.unitIds[1], external_unit_id: villa.aliases[1] }],
      source: { channel: 'direct' },
    });
    const seenByB = await get(b, `/bookings/external/${encodeURIComponent(host.json().data.external_booking_id)}`);
    expect(seenByB.statusCode).toBe(200);
    expect(seenByB.json().data).toMatchObject({ property: { external_id: 'B-VILLA' }, units: [{ external_unit_id: null }] });
    expect(ids(await get(b, '/bookings'))).toEqual([id]);
    expect((await get(outsider, `/bookings/${id}`)).statusCode).toBe(404);
    // Coverage removed: the host booking is out of sight.
    expect((await ctx.staff('DELETE', `/integrations/${b.id}/coverage/${villa.id}`)).statusCode).toBe(200);
    expect((await get(b, `/bookings/${id}`)).statusCode).toBe(404);
    expect(ids(await get(b, '/bookings'))).toEqual([]);
  });
});

describe('GET /bookings', () => {
  let integ: TestIntegration;
  let villa: Villa;
  let second: Villa;
  const made: Array<{ id: number; check_in: string; property: number }> = [];

  beforeAll(async () => {
    integ = await ctx.createIntegration();
    villa = await createVilla(ctx, integ, 3);
    second = await createVilla(ctx, integ, 1);
    for (const [i, v] of [villa, villa, second, villa, second].entries()) {
      const b = await book(ctx, integ, v, { check_in: day(ctx, 5 + i * 3), check_out: day(ctx, 6 + i * 3), status: i === 1 ? 'pending' : 'confirmed' });
      made.push({ id: b.id, check_in: b.check_in, property: v.id });
      await ctx.advanceClock(2);
    }
  });

  it('lists oldest change first with top-level pagination', async () => {
    const res = await get(integ, '/bookings');
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual(made.map((m) => m.id));
    expect(res.json().pagination).toEqual({ page: 1, per_page: 50, total: 5, last_page: 1 });
    expect(res.json().data.pagination).toBeUndefined();
    // A change moves a booking to the end.
    await ctx.api(integ.apiKey, 'PATCH', `/bookings/${made[0].id}`, { notes: 'touched' });
    const after = await get(integ, '/bookings');
    expect(ids(after)).toEqual([...made.slice(1).map((m) => m.id), made[0].id]);
    made.push(made.shift()!);
  });

  it('pages with per_page 1-200', async () => {
    const p1 = await get(integ, '/bookings?per_page=2&page=1');
    const p3 = await get(integ, '/bookings?per_page=2&page=3');
    expect(ids(p1)).toEqual(made.slice(0, 2).map((m) => m.id));
    expect(ids(p3)).toEqual([made[4].id]);
    expect(p3.json().pagination).toEqual({ page: 3, per_page: 2, total: 5, last_page: 3 });
    expect(ids(await get(integ, '/bookings?per_page=2&page=9'))).toEqual([]);
    expect((await get(integ, '/bookings?per_page=200')).statusCode).toBe(200);
    for (const q of ['per_page=0', 'per_page=201', 'page=0', 'per_page=x', 'page=-1']) {
      const res = await get(integ, `/bookings?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
      expect(Object.keys(res.json().errors)).toEqual([q.split('=')[0]]);
    }
  });

  it('filters by status, property_id and check-in range (inclusive)', async () => {
    expect(ids(await get(integ, '/bookings?status=pending'))).toEqual(made.filter((m) => m.check_in === day(ctx, 8)).map((m) => m.id));
    expect(ids(await get(integ, `/bookings?property_id=${second.id}`)).sort()).toEqual(
      made
        .filter((m) => m.property === second.id)
        .map((m) => m.id)
        .sort(),
    );
    const range = await get(integ, `/bookings?check_in_from=${day(ctx, 8)}&check_in_to=${day(ctx, 11)}`);
    expect(ids(range).sort()).toEqual(
      made
        .filter((m) => m.check_in >= day(ctx, 8) && m.check_in <= day(ctx, 11))
        .map((m) => m.id)
        .sort(),
    );
    expect(ids(range)).toHaveLength(2);
    for (const q of ['status=done', 'check_in_from=2026-13-01', 'check_in_to=soon', 'property_id=abc']) {
      const res = await get(integ, `/bookings?${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(Object.keys(res.json().errors)).toEqual([q.split('=')[0]]);
    }
  });

  it('updated_since is inclusive and takes any parseable date or timestamp', async () => {
    const all = (await get(integ, '/bookings')).json().data as Array<{ id: number; updated_at: string }>;
    const third = all[2];
    // Its own updated_at (second precision, +05:30) includes it: inclusive.
    const since = await get(integ, `/bookings?updated_since=${encodeURIComponent(third.updated_at)}`);
    expect(ids(since)).toEqual(all.slice(2).map((b) => b.id));
    // Unencoded "+" arrives as a space; still understood.
    expect(ids(await get(integ, `/bookings?updated_since=${third.updated_at}`))).toEqual(all.slice(2).map((b) => b.id));
    // The same instant in UTC, and as Unix seconds.
    const instant = new Date(third.updated_at);
    expect(ids(await get(integ, `/bookings?updated_since=${instant.toISOString()}`))).toEqual(all.slice(2).map((b) => b.id));
    expect(ids(await get(integ, `/bookings?updated_since=${instant.getTime() / 1000}`))).toEqual(all.slice(2).map((b) => b.id));
    // Local time without an offset is Asia/Kolkata.
    expect(ids(await get(integ, `/bookings?updated_since=${third.updated_at.slice(0, 19)}`))).toEqual(all.slice(2).map((b) => b.id));
    // A date: from the start of that day; a date in the future: nothing.
    expect(ids(await get(integ, `/bookings?updated_since=${day(ctx, -1)}`))).toEqual(all.map((b) => b.id));
    expect(ids(await get(integ, `/bookings?updated_since=${day(ctx, 2)}`))).toEqual([]);
    expect(formatTimestamp(instant)).toBe(third.updated_at);
    for (const bad of ['yesterday', '2026-02-30', '2026-11-22T25:00:00', 'abc']) {
      const res = await get(integ, `/bookings?updated_since=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
      expect(Object.keys(res.json().errors)).toEqual(['updated_since']);
    }
  });

  it('external id lookups are per integration', async () => {
    const other = await ctx.createIntegration();
    const theirs = await createVilla(ctx, other, 1);
    const ref = newRef('SAME');
    const mine = await book(ctx, integ, second, { external_booking_id: ref, check_in: day(ctx, 60), check_out: day(ctx, 61) });
    const yours = await book(ctx, other, theirs, { external_booking_id: ref });
    expect((await get(integ, `/bookings/external/${ref}`)).json().data.id).toBe(mine.id);
    expect((await get(other, `/bookings/external/${ref}`)).json().data.id).toBe(yours.id);
  });
});
