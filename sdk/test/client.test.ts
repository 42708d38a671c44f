import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { createTestContext, type TestContext, type TestIntegration } from '../../test/helpers/context.js';
import { createBody } from '../../test/properties/fixtures.js';
import { bookingBody, day, newRef } from '../../test/bookings/fixtures.js';
import { createDoorloomClient, DoorloomApiError, type DoorloomClient, type BookingCreateInput } from '../src/index.js';

// The client against the real service, listening on a real socket.
let ctx: TestContext;
let integration: TestIntegration;
let client: DoorloomClient;
let origin: string;

beforeAll(async () => {
  ctx = await createTestContext();
  integration = await ctx.createIntegration();
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  client = createDoorloomClient({ baseUrl: origin, apiKey: integration.apiKey, retry: { baseDelayMs: 10 } });
});
afterAll(() => ctx?.close());

const villa = (externalId = newRef('P')) =>
  createBody({
    external_id: externalId,
    units: [
      { name: 'Room 1', external_id: `${externalId}-U1` },
      { name: 'Room 2', external_id: `${externalId}-U2` },
    ],
  }) as never;

const bookingInput = (propertyExternalId: string, overrides: Partial<BookingCreateInput> = {}) =>
  bookingBody(ctx, { externalId: propertyExternalId, aliases: [`${propertyExternalId}-U1`] }, overrides) as BookingCreateInput;

describe('typed client against the service', () => {
  it('reads the integration, accepting the API base as well as the origin', async () => {
    const me = await client.me();
    expect(me.id).toBe(integration.id);
    expect(me.api_version).toBe('2026-09');
    const viaBase = createDoorloomClient({ baseUrl: `${origin}/api/integrations/v1/`, apiKey: integration.apiKey });
    expect((await viaBase.me()).slug).toBe(integration.slug);
  });

  it('creates, reads, updates and lists properties; snapshots carry a watermark', async () => {
    const externalId = newRef('P');
    const created = await client.createProperty(villa(externalId));
    expect(created.external_id).toBe(externalId);
    expect(created.units.map((u) => u.external_unit_id)).toEqual([`${externalId}-U1`, `${externalId}-U2`]);

    expect((await client.getProperty(created.doorloom_id)).doorloom_id).toBe(created.doorloom_id);
    const detail = await client.getProperty(externalId);
    expect(detail.address.city).toBe('Candolim');

    const updated = await client.updateProperty(externalId, { name: 'Renamed Villa' });
    expect(updated.name).toBe('Renamed Villa');

    const page = await client.listProperties({ per_page: 1 });
    expect(page.pagination.per_page).toBe(1);
    expect(page.data.sequence).toBeGreaterThan(0);

    const window = { from: day(ctx, 1), to: day(ctx, 30) };
    const availability = await client.getAvailability(created.doorloom_id, window);
    expect(availability.window).toEqual(window);
    expect(availability.data.dates).toHaveLength(30);
    expect(availability.sequence).toBeGreaterThan(0);
    const rates = await client.getRates(externalId, window);
    expect(rates.property.doorloom_id).toBe(created.doorloom_id);
    const restrictions = await client.getRestrictions(externalId, window);
    expect(restrictions.window).toEqual(window);
  });

  it('iterates every property across pages', async () => {
    await client.createProperty(villa());
    await client.createProperty(villa());
    const all = [];
    for await (const property of client.iterateProperties({ per_page: 1 })) all.push(property.doorloom_id);
    const listed = await client.listProperties({ per_page: 200 });
    expect(all).toEqual(listed.data.properties.map((p) => p.doorloom_id));
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(3);
  });

  it('bulk-creates and bulk-updates', async () => {
    const ids = [newRef('P'), newRef('P')];
    const created = await client.bulkCreateProperties({ properties: ids.map((id) => villa(id)) });
    expect(created.summary).toEqual({ requested: 2, succeeded: 2, failed: 0 });
    const updated = await client.bulkUpdateProperties({ properties: ids.map((external_id) => ({ external_id, name: `Bulk ${external_id}` })) });
    expect(updated.results.map((r) => r.status)).toEqual(['updated', 'updated']);
  });

  it('creates, reads, updates and cancels bookings by either id', async () => {
    const externalId = newRef('P');
    await client.createProperty(villa(externalId));
    const input = bookingInput(externalId);
    const booking = await client.createBooking(input);
    expect(booking.external_booking_id).toBe(input.external_booking_id);
    expect(booking.revision).toBe(1);

    // The same booking again (a new key): the service answers the existing one as a duplicate.
    const again = await client.createBooking(input);
    expect(again).toMatchObject({ id: booking.id, duplicate: true });

    expect((await client.getBooking(booking.id)).id).toBe(booking.id);
    expect((await client.getBooking({ external: input.external_booking_id })).id).toBe(booking.id);

    const patched = await client.updateBooking(booking.id, { notes: 'Late arrival' }, { ifMatch: booking.revision });
    expect(patched.notes).toBe('Late arrival');
    expect(patched.revision).toBe(2);

    const stale = await client.updateBooking(booking.id, { notes: 'Stale' }, { ifMatch: 1 }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(DoorloomApiError);
    expect((stale as DoorloomApiError).status).toBe(412);

    const cancelled = await client.cancelBooking({ external: input.external_booking_id });
    expect(cancelled.status).toBe('cancelled');
    // Cancel is idempotent, and takes a body.
    expect((await client.cancelBooking(booking.id, { reason: 'Guest changed plans' })).status).toBe('cancelled');
  });

  it('iterates bookings changed since a time, each revision once, oldest change first', async () => {
    const externalId = newRef('P');
    await client.createProperty(villa(externalId));
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await client.createBooking(bookingInput(externalId, { check_in: day(ctx, 20 + i * 3), check_out: day(ctx, 21 + i * 3) })));
    const seen = [];
    for await (const booking of client.iterateBookings({ property_id: made[0].property.doorloom_id, per_page: 2 })) seen.push(booking.id);
    expect(seen).toEqual(made.map((b) => b.id));
  });

  it('replays events page by page and queues a sync', async () => {
    const me = await client.me();
    const rows = [];
    for await (const row of client.iterateEvents({ after_sequence: 0, limit: 50 })) rows.push(row);
    expect(rows.length).toBe(me.webhook.last_sequence);
    expect(rows.map((r) => r.sequence)).toEqual(rows.map((_, i) => i + 1));
    expect(rows[0].event.sequence).toBe(1);

    const page = await client.listEvents({ after_sequence: 0, limit: 5 });
    expect(page.cursor).toEqual({ next_after_sequence: 5, has_more: true });

    const sync = await client.sync();
    expect(sync.queued_properties).toBeGreaterThan(0);
    // A second one within 24 hours is refused at once, not waited out.
    const refused = await client.sync().catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, code: 'SYNC_TOO_SOON', attempts: 1 });
    expect((refused as DoorloomApiError).retryAfter).toBeGreaterThan(3600);
  });

  it('throws typed errors: validation, not found, an external id in use, a bad key', async () => {
    const invalid = await client.createProperty({ name: 'x' } as never).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(DoorloomApiError);
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_FAILED', attempts: 1 });
    expect((invalid as DoorloomApiError).errors).toHaveProperty(['address.city']);
    expect((invalid as DoorloomApiError).requestId).toBeTruthy();

    const missing = await client.getBooking(987654321).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });

    const externalId = newRef('P');
    const first = await client.createProperty(villa(externalId));
    const taken = await client.createProperty(villa(externalId)).catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 409, code: 'PROPERTY_EXTERNAL_ID_EXISTS', attempts: 1 });
    expect((taken as DoorloomApiError).errors).toMatchObject({ doorloom_id: first.doorloom_id });

    const stranger = createDoorloomClient({ baseUrl: origin, apiKey: 'dlk_not_a_key' });
    await expect(stranger.me()).rejects.toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it('replays a create sent again with the same Idempotency-Key', async () => {
    const body = villa();
    const first = await client.createProperty(body, { idempotencyKey: 'sdk-same-key-1' });
    const second = await client.createProperty(body, { idempotencyKey: 'sdk-same-key-1' });
    expect(second.doorloom_id).toBe(first.doorloom_id);
  });
});
