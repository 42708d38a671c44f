/**
 * The README's walk-through, through a client that @hey-api/openapi-ts generates from
 * docs/openapi.json (`npm run client:generate`, into ./generated, not committed). It is compiled
 * with `tsc --strict` (test/client/tsconfig.json) and run by walkthrough.test.ts against a running
 * service: a call that the document types wrongly fails to compile, one it describes wrongly fails
 * here. Nothing below is fixed by hand: every value comes from the typed answers.
 */
import { createClient, createConfig } from './generated/client/index.js';
import {
  cancelBooking,
  createBooking,
  createProperty,
  getAvailabilitySnapshot,
  getBooking,
  getMe,
  getRatesSnapshot,
  getRestrictionsSnapshot,
  listEvents,
  staffPostBrands,
  staffPostIntegrations,
  updateBooking,
} from './generated/sdk.gen.js';

export interface WalkthroughResult {
  integrationSlug: string;
  propertyId: number;
  snapshotSequences: number[];
  bookingId: number;
  revisions: number[];
  finalStatus: string;
  eventTypes: string[];
  lastSequence: number;
}

/** `YYYY-MM-DD` in Asia/Kolkata, `days` after the service's today. */
function kolkataDate(nowMs: number, days: number): string {
  return new Date(nowMs + 5.5 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

export async function walkthrough(baseUrl: string, staffToken: string, nowMs: number, tag: string): Promise<WalkthroughResult> {
  const staff = createClient(createConfig({ baseUrl, auth: staffToken, throwOnError: true }));

  // staff: a brand, and an integration for it
  const brand = await staffPostBrands({ client: staff, throwOnError: true, body: { name: `Sunrise Stays ${tag}` } });
  const created = await staffPostIntegrations({ client: staff, throwOnError: true, body: { brand_id: brand.data.data.id, name: `Acme PMS ${tag}` } });
  const { api_key: apiKey, integration } = created.data.data;

  const partner = createClient(createConfig({ baseUrl, auth: apiKey, throwOnError: true }));

  // the partner's first call
  const me = await getMe({ client: partner, throwOnError: true });
  if (me.data.data.slug !== integration.slug) throw new Error(`GET /me answered ${me.data.data.slug}, not ${integration.slug}`);

  // a property (every create carries an Idempotency-Key)
  const property = await createProperty({
    client: partner,
    throwOnError: true,
    headers: { 'idempotency-key': `villa-${tag}-create` },
    body: {
      external_id: `VILLA-${tag}`,
      name: 'Sea Breeze Villa',
      description: 'Three bedrooms by the beach.',
      address: { address_line_1: '12 Beach Road', city: 'Candolim', state: 'Goa', pin_code: '403515' },
      space: { bedrooms: 3, washrooms: 2 },
      occupancy: { max_guests: 6 },
      pricing: { weekday: { base_price: 12000 }, weekend: { base_price: 15000 } },
      units: [{ name: 'Whole villa', external_id: `VILLA-${tag}-U1` }],
    },
  });
  const propertyId = property.data.data.doorloom_id;
  const unitAlias = property.data.data.units[0]?.external_unit_id;
  if (!unitAlias) throw new Error('the created property answered no unit alias');

  // its three snapshots over the next 30 nights
  const window = { from: kolkataDate(nowMs, 0), to: kolkataDate(nowMs, 29) };
  const path = { property: String(propertyId) };
  const availability = await getAvailabilitySnapshot({ client: partner, throwOnError: true, path, query: window });
  const rates = await getRatesSnapshot({ client: partner, throwOnError: true, path, query: window });
  const restrictions = await getRestrictionsSnapshot({ client: partner, throwOnError: true, path, query: window });
  if (availability.data.data.data.dates.length !== 30) throw new Error('the availability snapshot does not hold 30 nights');

  // a booking of two nights, ten days from now: create, read, patch with If-Match, cancel
  const booking = await createBooking({
    client: partner,
    throwOnError: true,
    headers: { 'idempotency-key': `bk-${tag}-create` },
    body: {
      external_booking_id: `BK-${tag}`,
      property: { external_id: `VILLA-${tag}` },
      units: [{ external_unit_id: unitAlias, adults: 2 }],
      check_in: kolkataDate(nowMs, 10),
      check_out: kolkataDate(nowMs, 12),
      guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
      pricing: { total: 27000, currency: 'INR' },
      source: { channel: 'direct', reference: `WEB-${tag}` },
    },
  });
  const id = booking.data.data.id;
  const createdTag = booking.response.headers.get('etag');
  if (createdTag !== `"${booking.data.data.revision}"`) throw new Error(`the create answered ETag ${createdTag}`);

  const read = await getBooking({ client: partner, throwOnError: true, path: { id } });
  const etag = read.response.headers.get('etag');
  if (!etag) throw new Error('GET /bookings/{id} answered no ETag');

  const patched = await updateBooking({
    client: partner,
    throwOnError: true,
    path: { id },
    headers: { 'if-match': etag },
    body: { guest: { name: 'Asha R. Rao' }, notes: 'Late arrival' },
  });
  const cancelled = await cancelBooking({
    client: partner,
    throwOnError: true,
    path: { id },
    headers: { 'if-match': patched.response.headers.get('etag') ?? '' },
    body: { reason: 'Guest changed plans' },
  });

  // replay every event from the start, page by page
  const eventTypes = new Set<string>();
  let after = 0;
  for (let page = 0; page < 100; page++) {
    const events = await listEvents({ client: partner, throwOnError: true, query: { after_sequence: after, limit: 200 } });
    for (const row of events.data.data) eventTypes.add(row.event.type);
    after = events.data.cursor.next_after_sequence;
    if (!events.data.cursor.has_more) break;
  }

  return {
    integrationSlug: me.data.data.slug,
    propertyId,
    snapshotSequences: [availability.data.data.sequence, rates.data.data.sequence, restrictions.data.data.sequence],
    bookingId: id,
    revisions: [booking.data.data.revision, read.data.data.revision, patched.data.data.revision, cancelled.data.data.revision],
    finalStatus: cancelled.data.data.status,
    eventTypes: [...eventTypes].sort(),
    lastSequence: after,
  };
}
