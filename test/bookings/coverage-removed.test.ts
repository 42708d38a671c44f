import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';
import { book, createVilla, day, holdsOf, newKey } from './fixtures.js';

// Coverage removed (docs/decisions.md, "Coverage"): on a property the integration no longer covers,
// its own bookings stay readable and cancellable; any other change is 422 PROPERTY_NOT_MAPPED and
// holds nothing.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('bookings on a property whose coverage was removed', () => {
  it('stay readable and cancellable; every other change is refused and holds nothing', async () => {
    const integration = await ctx.createIntegration();
    const villa = await createVilla(ctx, integration, 3);
    const first = await book(ctx, integration, villa);
    const second = await book(ctx, integration, villa, { units: [{ external_unit_id: villa.aliases[1], adults: 2 }] });
    const holdsBefore = await holdsOf(ctx, first.id);
    expect(holdsBefore.length).toBeGreaterThan(0);

    // still covered: a change goes through
    const patch = (id: number, body: unknown) => ctx.api(integration.apiKey, 'PATCH', `/bookings/${id}`, body, { 'idempotency-key': newKey() });
    expect((await patch(first.id, { notes: 'late arrival' })).statusCode).toBe(200);

    const removed = await ctx.staff('DELETE', `/integrations/${integration.id}/coverage/${villa.id}`);
    expect(removed.statusCode, removed.body).toBe(200);

    // readable, by id and by external id
    let res = await ctx.api(integration.apiKey, 'GET', `/bookings/${first.id}`);
    expect(res.statusCode).toBe(200);
    const revision = res.json().data.revision;
    res = await ctx.api(integration.apiKey, 'GET', `/bookings/external/${encodeURIComponent(first.external_booking_id)}`);
    expect(res.statusCode).toBe(200);

    // any other change: 422 PROPERTY_NOT_MAPPED, the booking and its holds as they were
    const refused: unknown[] = [
      { check_in: day(ctx, 20), check_out: day(ctx, 22) },
      { units: [{ external_unit_id: villa.aliases[2], adults: 2 }] },
      {
        units: [
          { inventory_id: villa.unitIds[2], adults: 1 },
          { inventory_id: villa.unitIds[0], adults: 1 },
        ],
      },
      { guest: { name: 'Someone Else' } },
      { notes: 'another note' },
      { pricing: { total: 12000, currency: 'INR' } },
      { status: 'cancelled', check_out: day(ctx, 13) },
    ];
    for (const body of refused) {
      res = await patch(first.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json()).toMatchObject(failure('PROPERTY_NOT_MAPPED'));
    }
    res = await ctx.api(integration.apiKey, 'GET', `/bookings/${first.id}`);
    expect(res.json().data.revision).toBe(revision);
    expect(await holdsOf(ctx, first.id)).toEqual(holdsBefore);
    expect((await ctx.deps.db.selectFrom('unit_nights').select('unit_id').where('unit_id', '=', villa.unitIds[2]).execute()).length).toBe(0);

    // cancellable: through the cancel route, and by a PATCH to cancelled with its reason
    res = await ctx.api(integration.apiKey, 'POST', `/bookings/${first.id}/cancel`, { reason: 'guest left' }, { 'idempotency-key': newKey() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('cancelled');
    expect(await holdsOf(ctx, first.id)).toEqual([]);
    res = await patch(second.id, { status: 'cancelled', reason: 'moved elsewhere' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('cancelled');
    expect(await holdsOf(ctx, second.id)).toEqual([]);

    // and a new booking there is refused as before
    res = await ctx.api(
      integration.apiKey,
      'POST',
      '/bookings',
      {
        external_booking_id: `BK-${newKey()}`,
        property: { doorloom_id: villa.id },
        units: [{ adults: 1 }],
        check_in: day(ctx, 10),
        check_out: day(ctx, 11),
        guest: { name: 'Asha Rao' },
        pricing: { total: 5000, currency: 'INR' },
        source: { channel: 'airbnb' },
      },
      { 'idempotency-key': newKey() },
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject(failure('PROPERTY_NOT_MAPPED'));
  });
});
