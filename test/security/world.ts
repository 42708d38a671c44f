import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestContext, TestIntegration } from '../helpers/context.js';
import { day, newKey } from '../helpers/fixtures.js';

export { day, newKey, today } from '../helpers/fixtures.js';

/**
 * A small world of several integrations with properties and bookings of their own and shared,
 * for the security tests (scope, mass assignment, fuzzing):
 *
 * - brand X: integrations A and C; brand Y: integration B; a disabled integration.
 * - A's villa (created by A, aliased units), A's archived villa, B's villa (created by B).
 * - a host property of brand X covered by both A and C ("shared"), and one covered by nobody.
 * - bookings: A's and C's own on the shared property, A's on its villa, B's on its villa, the
 *   host's on the shared property (visible to A and C) and on the uncovered one (visible to none).
 */

export const newRef = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

export interface Villa {
  id: number;
  externalId: string;
  unitIds: number[];
  aliases: string[];
}

export interface BookingRef {
  id: number;
  externalId: string;
}

export interface World {
  a: TestIntegration;
  b: TestIntegration;
  c: TestIntegration;
  disabled: TestIntegration;
  villaA: Villa;
  archivedA: Villa;
  villaB: Villa;
  /** Host property of brand X covered by A (external id sharedExternalA) and C. */
  shared: { id: number; unitIds: number[]; externalIdA: string; externalIdC: string };
  /** Host property of brand X that no integration covers. */
  uncovered: { id: number; unitIds: number[] };
  bookingA: BookingRef;
  bookingB: BookingRef;
  /** A's booking on the shared property (C covers the property but must not see it). */
  bookingASharedProperty: BookingRef;
  /** C's booking on the shared property. */
  bookingC: BookingRef;
  /** Host booking on the shared property: visible to A and C. */
  hostBookingShared: BookingRef;
  /** Host booking on the uncovered property: visible to nobody. */
  hostBookingUncovered: BookingRef;
}

/** A complete property create body: every group and optional field, `units` aliased units. */
export function propertyBody(externalId: string | null, units = 2, name = 'Security Villa'): Record<string, unknown> {
  return {
    ...(externalId !== null ? { external_id: externalId } : {}),
    name,
    property_type: 'villa',
    property_category: 'vacation_rental',
    description: 'A villa for the security tests.',
    address: {
      address_line_1: '1 Test Road',
      address_line_2: 'Block B',
      landmark: 'Near the church',
      city: 'Panaji',
      state: 'Goa',
      country: 'India',
      pin_code: '403001',
      latitude: 15.49,
      longitude: 73.82,
    },
    space: { bedrooms: 3, washrooms: 2 },
    occupancy: { min_guests: 1, max_guests: 6 },
    pricing: {
      weekday: { base_price: 5000, per_night_occupancy: 4, extra_adult_price: 500, extra_child_price: 250 },
      weekend: { base_price: 7000, per_night_occupancy: 4, extra_adult_price: 600, extra_child_price: 300 },
    },
    features: { is_private: true, is_pet_friendly: true, max_pets: 2, pet_charges: 300, is_veg: false, is_smoking_in_rooms: false },
    units: Array.from({ length: units }, (_, i) => ({
      name: `Room ${i + 1}`,
      ...(externalId !== null ? { external_id: `${externalId}-U${i + 1}` } : {}),
      code: `R${i + 1}`,
      max_occupancy: 2,
    })),
  };
}

/** A complete booking create body for a villa: the first alias, two nights from `offset` days ahead. */
export function bookingBody(ctx: TestContext, villa: { externalId: string; aliases: string[] }, offset = 10): Record<string, unknown> {
  return {
    external_booking_id: newRef('BK'),
    property: { external_id: villa.externalId },
    units: [{ external_unit_id: villa.aliases[0], adults: 2, children: 1, meal_plan: 'CP' }],
    check_in: day(ctx, offset),
    check_out: day(ctx, offset + 2),
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
    pricing: { total: 10000, currency: 'INR' },
    status: 'confirmed',
    notes: 'Late arrival.',
    source: { channel: 'airbnb', reference: 'HM-1' },
  };
}

export function expectStatus(res: LightMyRequestResponse, status: number): void {
  expect(res.statusCode, `${res.statusCode} ${res.body.slice(0, 500)}`).toBe(status);
}

export async function createVilla(ctx: TestContext, integration: TestIntegration, externalId: string, units = 3): Promise<Villa> {
  const res = await ctx.api(integration.apiKey, 'POST', '/properties', propertyBody(externalId, units), { 'idempotency-key': newKey() });
  expectStatus(res, 201);
  const block = res.json().data;
  return {
    id: block.doorloom_id,
    externalId,
    unitIds: block.units.map((u: { inventory_id: number }) => u.inventory_id),
    aliases: block.units.map((u: { external_unit_id: string }) => u.external_unit_id),
  };
}

async function hostProperty(ctx: TestContext, brandId: number, units = 3) {
  const res = await ctx.staff('POST', `/brands/${brandId}/properties`, propertyBody(null, units, 'Host Villa'));
  expectStatus(res, 201);
  const data = res.json().data;
  return { id: data.doorloom_id as number, unitIds: data.units.map((u: { inventory_id: number }) => u.inventory_id) as number[] };
}

async function partnerBooking(ctx: TestContext, integration: TestIntegration, body: Record<string, unknown>): Promise<BookingRef> {
  const res = await ctx.api(integration.apiKey, 'POST', '/bookings', body, { 'idempotency-key': newKey() });
  expectStatus(res, 201);
  return { id: res.json().data.id, externalId: res.json().data.external_booking_id };
}

async function hostBooking(ctx: TestContext, propertyId: number, offset: number): Promise<BookingRef> {
  const res = await ctx.staff('POST', `/properties/${propertyId}/bookings`, {
    external_booking_id: newRef('HOST'),
    units: [{ adults: 1 }],
    check_in: day(ctx, offset),
    check_out: day(ctx, offset + 1),
    guest: { name: 'Host Guest' },
    pricing: { total: 100 },
  });
  expectStatus(res, 201);
  return { id: res.json().data.id, externalId: res.json().data.external_booking_id };
}

export async function buildWorld(ctx: TestContext, options: { horizonDays?: number } = {}): Promise<World> {
  const horizon_days = options.horizonDays ?? 30;
  const brandX = await ctx.createBrand('Brand X');
  const a = await ctx.createIntegration({ brandId: brandX, name: 'Integration A', horizon_days });
  const c = await ctx.createIntegration({ brandId: brandX, name: 'Integration C', horizon_days });
  const b = await ctx.createIntegration({ name: 'Integration B', horizon_days });
  const disabled = await ctx.createIntegration({ brandId: brandX, name: 'Disabled', horizon_days });
  expectStatus(await ctx.staff('PATCH', `/integrations/${disabled.id}`, { status: 'disabled' }), 200);

  const villaA = await createVilla(ctx, a, newRef('A'));
  const archivedA = await createVilla(ctx, a, newRef('AR'), 1);
  const villaB = await createVilla(ctx, b, newRef('B'));

  const shared = await hostProperty(ctx, brandX);
  const externalIdA = newRef('SA');
  const externalIdC = newRef('SC');
  expect((await ctx.staff('PUT', `/integrations/${a.id}/coverage/${shared.id}`, { external_id: externalIdA })).statusCode).toBe(201);
  expect((await ctx.staff('PUT', `/integrations/${c.id}/coverage/${shared.id}`, { external_id: externalIdC })).statusCode).toBe(201);
  const uncovered = await hostProperty(ctx, brandX);

  const bookingA = await partnerBooking(ctx, a, bookingBody(ctx, villaA, 10));
  const bookingB = await partnerBooking(ctx, b, bookingBody(ctx, villaB, 10));
  const sharedRef = (externalId: string, offset: number) => ({
    ...bookingBody(ctx, { externalId, aliases: [] }, offset),
    units: [{ adults: 1 }],
  });
  const bookingASharedProperty = await partnerBooking(ctx, a, sharedRef(externalIdA, 20));
  const bookingC = await partnerBooking(ctx, c, sharedRef(externalIdC, 24));
  const hostBookingShared = await hostBooking(ctx, shared.id, 30);
  const hostBookingUncovered = await hostBooking(ctx, uncovered.id, 30);

  expectStatus(await ctx.staff('POST', `/properties/${archivedA.id}/archive`), 200);

  return {
    a,
    b,
    c,
    disabled,
    villaA,
    archivedA,
    villaB,
    shared: { ...shared, externalIdA, externalIdC },
    uncovered,
    bookingA,
    bookingB,
    bookingASharedProperty,
    bookingC,
    hostBookingShared,
    hostBookingUncovered,
  };
}
