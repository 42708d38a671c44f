import type { TestContext, TestIntegration } from '../helpers/context.js';
import { sql } from 'kysely';
import { touchUnitHoldsQuery } from '../../src/modules/calendar/calendar.sql.js';
import { lockProperty, touchInputsVersion } from '../../src/modules/properties/properties.lock.js';
import { unitOfWork } from '../../src/modules/events/events.log.js';

export { eventsOf, today } from '../helpers/fixtures.js';
import { addDays, dayOfWeek } from '../../src/lib/time.js';

export interface FixtureProperty {
  id: number;
  unitIds: number[];
}

export interface PropertyOptions {
  brandId: number;
  units?: number;
  weekday?: { base_price: number; per_night_occupancy?: number; extra_adult_price?: number; extra_child_price?: number };
  weekend?: { base_price: number; per_night_occupancy?: number; extra_adult_price?: number; extra_child_price?: number };
}

/**
 * Inserts a property and its units directly (the calendar tests do not depend on the properties
 * module's create endpoint).
 */
export async function insertProperty(ctx: TestContext, options: PropertyOptions): Promise<FixtureProperty> {
  const now = ctx.deps.clock.now();
  const weekday = { per_night_occupancy: 2, extra_adult_price: 500, extra_child_price: 250, ...(options.weekday ?? { base_price: 4000 }) };
  const weekend = { per_night_occupancy: 2, extra_adult_price: 700, extra_child_price: 350, ...(options.weekend ?? { base_price: 6000 }) };
  const property = await ctx.deps.db
    .insertInto('properties')
    .values({
      brand_id: options.brandId,
      name: 'Calendar Villa',
      created_at: now,
      updated_at: now,
      max_guests: 4,
      weekday_base_price: weekday.base_price,
      weekday_per_night_occupancy: weekday.per_night_occupancy,
      weekday_extra_adult_price: weekday.extra_adult_price,
      weekday_extra_child_price: weekday.extra_child_price,
      weekend_base_price: weekend.base_price,
      weekend_per_night_occupancy: weekend.per_night_occupancy,
      weekend_extra_adult_price: weekend.extra_adult_price,
      weekend_extra_child_price: weekend.extra_child_price,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const count = options.units ?? 3;
  const units = await ctx.deps.db
    .insertInto('units')
    .values(
      Array.from({ length: count }, (_, i) => ({
        property_id: property.id,
        name: `Room ${i + 1}`,
        position: i,
        is_default: i === 0,
        created_at: now,
        updated_at: now,
      })),
    )
    .returning('id')
    .execute();
  return { id: property.id, unitIds: units.map((u) => u.id).sort((a, b) => a - b) };
}

export async function cover(ctx: TestContext, integration: TestIntegration, propertyId: number, externalId: string | null = null): Promise<void> {
  await ctx.deps.db
    .insertInto('coverage')
    .values({ integration_id: integration.id, property_id: propertyId, external_id: externalId, created_at: ctx.deps.clock.now() })
    .execute();
}

export async function alias(ctx: TestContext, integration: TestIntegration, unitId: number, externalId: string): Promise<void> {
  await ctx.deps.db.insertInto('unit_aliases').values({ integration_id: integration.id, unit_id: unitId, external_id: externalId }).execute();
  await touchUnitCalendar(ctx, unitId);
}

/** What the service's writers of availability's inputs do (touchInputsVersion), for a fixture that writes them directly. */
export async function touchUnitCalendar(ctx: TestContext, unitId: number): Promise<void> {
  const unit = await ctx.deps.db.selectFrom('units').select('property_id').where('id', '=', unitId).executeTakeFirstOrThrow();
  await unitOfWork(ctx.deps, async (trx) => {
    touchInputsVersion(trx, (await lockProperty(trx, unit.property_id))!);
    await touchUnitHoldsQuery(sql`select ${unitId}::int as unit_id`).execute(trx);
  });
}

/** A bare booking row of a property (the holds tests need real booking ids for unit_nights). */
export async function makeBooking(ctx: TestContext, propertyId: number): Promise<number> {
  const now = ctx.deps.clock.now();
  // A host booking (no integration) carries its property's brand.
  const { brand_id } = await ctx.deps.db.selectFrom('properties').select('brand_id').where('id', '=', propertyId).executeTakeFirstOrThrow();
  const row = await ctx.deps.db
    .insertInto('bookings')
    .values({
      brand_id,
      external_booking_id: `cal-${Math.random().toString(36).slice(2)}`,
      property_id: propertyId,
      status: 'confirmed',
      check_in: '2030-01-01',
      check_out: '2030-01-02',
      units: JSON.stringify([]),
      guest_name: 'Guest',
      total: 0,
      source_channel: 'direct',
      created_at: now,
      updated_at: now,
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Holds a unit for nights [from, to] inclusive, under the given booking or a new one. Returns the booking id. */
export async function hold(ctx: TestContext, unitId: number, from: string, to: string, bookingId?: number): Promise<number> {
  if (bookingId === undefined) {
    const unit = await ctx.deps.db.selectFrom('units').select('property_id').where('id', '=', unitId).executeTakeFirstOrThrow();
    bookingId = await makeBooking(ctx, unit.property_id);
  }
  const rows = [];
  for (let d = from; d <= to; d = addDays(d, 1)) rows.push({ unit_id: unitId, night: d, booking_id: bookingId });
  await ctx.deps.db.insertInto('unit_nights').values(rows).execute();
  await touchUnitCalendar(ctx, unitId);
  return bookingId;
}

/** The first date on or after `from` with the given day of week (0 = Sunday). */
export function nextDow(from: string, dow: number): string {
  let d = from;
  while (dayOfWeek(d) !== dow) d = addDays(d, 1);
  return d;
}
