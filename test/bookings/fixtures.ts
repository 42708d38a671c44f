import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestIntegration } from '../helpers/context.js';
import { day, newKey } from '../helpers/fixtures.js';

export { day, eventsOf, lastSequence, newKey, today } from '../helpers/fixtures.js';

export const newRef = (prefix = 'BK') => `${prefix}-${randomBytes(6).toString('hex')}`;

export interface Villa {
  id: number;
  externalId: string;
  /** inventory ids in position order */
  unitIds: number[];
  /** external_unit_ids in position order */
  aliases: string[];
}

/** A fresh integration with a villa of its own (a fresh integration keeps a test far below the booking-write tier). */
export async function integrationWithVilla(ctx: TestContext, units = 3): Promise<{ integ: TestIntegration; villa: Villa }> {
  const integ = await ctx.createIntegration();
  return { integ, villa: await createVilla(ctx, integ, units) };
}

/** Creates a property through POST /properties with `units` aliased units (U1…Un of the property). */
export async function createVilla(ctx: TestContext, integration: TestIntegration, units = 3, externalId = newRef('P')): Promise<Villa> {
  const aliases = Array.from({ length: units }, (_, i) => `${externalId}-U${i + 1}`);
  const res = await ctx.api(
    integration.apiKey,
    'POST',
    '/properties',
    {
      external_id: externalId,
      name: 'Booking Villa',
      description: 'For booking tests.',
      address: { address_line_1: '1 Test Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: units, washrooms: 1 },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: aliases.map((alias, i) => ({ name: `Room ${i + 1}`, external_id: alias })),
    },
    { 'idempotency-key': newKey() },
  );
  if (res.statusCode !== 201) throw new Error(`property create failed: ${res.statusCode} ${res.body}`);
  const block = res.json().data;
  return { id: block.doorloom_id, externalId, unitIds: block.units.map((u: { inventory_id: number }) => u.inventory_id), aliases };
}

/** A POST /bookings body for the property's first unit; of `villa` only the external ids are read. */
export function bookingBody(ctx: TestContext, villa: Pick<Villa, 'externalId' | 'aliases'>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_booking_id: newRef(),
    property: { external_id: villa.externalId },
    units: [{ external_unit_id: villa.aliases[0], adults: 2 }],
    check_in: day(ctx, 10),
    check_out: day(ctx, 12),
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
    pricing: { total: 10000, currency: 'INR' },
    source: { channel: 'airbnb', reference: 'HM-1' },
    ...overrides,
  };
}

export function postBooking(ctx: TestContext, integration: TestIntegration, body: unknown, key = newKey()): Promise<LightMyRequestResponse> {
  return ctx.api(integration.apiKey, 'POST', '/bookings', body, { 'idempotency-key': key });
}

/** Creates a booking and returns it (throws unless 201). */
export async function book(ctx: TestContext, integration: TestIntegration, villa: Villa, overrides: Record<string, unknown> = {}) {
  const res = await postBooking(ctx, integration, bookingBody(ctx, villa, overrides));
  if (res.statusCode !== 201) throw new Error(`booking failed: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

/** The unit ids holding a night of a villa. */
export async function holdsOf(ctx: TestContext, bookingId: number) {
  return ctx.deps.db.selectFrom('unit_nights').select(['unit_id', 'night']).where('booking_id', '=', bookingId).orderBy('unit_id').orderBy('night').execute();
}
