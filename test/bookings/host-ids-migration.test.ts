import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as hostIds from '../../src/db/migrations/2026_11_29_0101_host_ids_per_brand.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('host booking ids per brand (migration 2026_11_29_0101)', () => {
  it('keeps existing bookings, gives host bookings their brand, and starts each brand’s DL-<n> after its highest', async () => {
    const db = ctx.database.db;
    // The schema as it was before: one platform-wide space of host ids.
    await hostIds.down(db);
    const now = new Date();
    const brand = async (name: string) =>
      (
        await sql<{ id: number }>`insert into brands (name, plan_active, created_at, updated_at) values (${name}, true, ${now}, ${now}) returning id`.execute(
          db,
        )
      ).rows[0].id;
    const property = async (brandId: number) =>
      (
        await sql<{
          id: number;
        }>`insert into properties (brand_id, name, created_at, updated_at) values (${brandId}, 'Old villa', ${now}, ${now}) returning id`.execute(db)
      ).rows[0].id;
    const [a, b] = [await brand('Old A'), await brand('Old B')];
    const [pa, pb] = [await property(a), await property(b)];
    const booking = (propertyId: number, externalId: string) =>
      sql`insert into bookings (integration_id, external_booking_id, property_id, status, check_in, check_out, units, guest_name, total, source_channel, created_at, updated_at)
          values (null, ${externalId}, ${propertyId}, 'confirmed', '2026-12-01', '2026-12-02', '[]', 'Guest', 0, 'direct', ${now}, ${now})`.execute(db);
    const brandBooking = (brandId: number, propertyId: number, externalId: string) =>
      sql`insert into bookings (integration_id, brand_id, external_booking_id, property_id, status, check_in, check_out, units, guest_name, total, source_channel, created_at, updated_at)
          values (null, ${brandId}, ${externalId}, ${propertyId}, 'confirmed', '2026-12-01', '2026-12-02', '[]', 'Guest', 0, 'direct', ${now}, ${now})`.execute(
        db,
      );
    await booking(pa, 'DL-3');
    await booking(pa, 'DL-12');
    await booking(pa, 'PHONE-1');
    await booking(pb, 'DL-5');

    await hostIds.up(db);

    const rows = await db.selectFrom('bookings').select(['external_booking_id', 'brand_id']).where('property_id', 'in', [pa, pb]).orderBy('id').execute();
    expect(rows).toEqual([
      { external_booking_id: 'DL-3', brand_id: a },
      { external_booking_id: 'DL-12', brand_id: a },
      { external_booking_id: 'PHONE-1', brand_id: a },
      { external_booking_id: 'DL-5', brand_id: b },
    ]);
    const counters = await db
      .selectFrom('host_booking_names')
      .select(['brand_id', 'last_number'])
      .where('brand_id', 'in', [a, b])
      .orderBy('brand_id')
      .execute();
    expect(counters.map((c) => [c.brand_id, Number(c.last_number)])).toEqual([
      [a, 12],
      [b, 5],
    ]);
    // The same id in another brand is now allowed; within the brand it is still refused.
    await brandBooking(b, pb, 'PHONE-1');
    await expect(brandBooking(a, pa, 'PHONE-1')).rejects.toThrow();
    // A host booking without its brand is refused.
    await expect(booking(pa, 'PHONE-2')).rejects.toThrow();
  });
});
