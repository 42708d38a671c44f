import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingInsert, newBookingRow } from '../../src/modules/bookings/bookings.sql.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { bookingBody, day, eventsOf, integrationWithVilla, lastSequence, newKey, postBooking } from './fixtures.js';

/**
 * A partner's create takes its booking's id in its first statement and, when only the acting
 * integration gets its events, leaves the booking's write for the commit: its answer and its
 * events are built from newBookingRow, the row the insert would answer.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const ROLLBACK = new Error('rolled back on purpose');

/** The last id the bookings' sequence gave out. */
async function lastBookingId(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select last_value::int as n from bookings_id_seq`.execute(ctx.deps.db);
  return rows[0].n;
}

describe('newBookingRow', () => {
  const LONE = 'Asha \ud800 Rao';
  const cases = [
    { total: 10000, notes: null, guest_phone_code: null, guest_mobile: null, source_reference: null },
    { total: 1.005, notes: 'Late arrival', guest_phone_code: '+91', guest_mobile: '9876543210', source_reference: 'HM-1' },
    { total: 12999.999, notes: `note ${LONE}`, guest_phone_code: '+1', guest_mobile: '55501', source_reference: `ref ${LONE}` },
    { total: 9_999_999_999.99, notes: 'emoji 🏖️ and \u00e9', guest_phone_code: null, guest_mobile: null, source_reference: null },
    { total: 0.1 + 0.2, notes: '', guest_phone_code: '', guest_mobile: '', source_reference: '' },
  ];

  it.each(cases)('is the row the insert answers, column by column (total %s)', async (c) => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const now = ctx.deps.clock.now();
    let compared = false;
    await ctx.deps.db
      .transaction()
      .execute(async (trx) => {
        // what the create's context statement answers: the id and the total as the column holds it
        const { rows } = await sql<{ id: number; total: string }>`select nextval(pg_get_serial_sequence('bookings', 'id'))::int as id, ${c.total}::numeric(12, 2) as total`.execute(trx);
        const units = [{ unit_id: villa.unitIds[0], adults: 2, children: 1, meal_plan: 'CP' as const }];
        const values = {
          id: rows[0].id,
          external_booking_id: `X-${LONE}-${rows[0].id}`,
          integration_id: integ.id,
          property_id: villa.id,
          status: 'confirmed' as const,
          check_in: day(ctx, 5),
          check_out: day(ctx, 7),
          units: JSON.stringify(units),
          guest_name: LONE,
          guest_phone_code: c.guest_phone_code,
          guest_mobile: c.guest_mobile,
          total: c.total,
          currency: 'INR',
          notes: c.notes,
          source_channel: 'airbnb',
          source_reference: c.source_reference,
          reason: null,
          refund_note: null,
          cancelled_at: null,
          created_at: now,
          updated_at: now,
        };
        const written = await bookingInsert(trx, values).executeTakeFirstOrThrow();
        expect(newBookingRow(values, Number(rows[0].total), units)).toStrictEqual(written);
        compared = true;
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    expect(compared).toBe(true);
  });
});

describe('POST /bookings with the write at the commit', () => {
  it('answers, records and stores the same booking: the answer, GET, and the booking.changed event agree', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 2);
    const before = await lastSequence(ctx, integ.id);
    const body = bookingBody(ctx, villa, {
      guest: { name: 'Lone \ud800 surrogate', phone_code: '+91', mobile: '98765' },
      notes: 'tab\there \udfff',
      pricing: { total: 1.005, currency: 'INR' },
    });
    const res = await postBooking(ctx, integ, body);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json().data;
    expect(created.guest.name).toBe('Lone \ufffd surrogate');
    expect(created.pricing.total).toBe(1.01);
    const read = await ctx.api(integ.apiKey, 'GET', `/bookings/${created.id}`);
    expect(read.statusCode).toBe(200);
    const { duplicate: _duplicate, ...answered } = created;
    expect(read.json().data).toMatchObject(answered);
    const events = await eventsOf(ctx, integ.id, before);
    const changed = events.find((e) => e.type === 'booking.changed');
    expect(changed?.data.booking).toStrictEqual(read.json().data);
    // the holds and the availability event went with the commit
    const holds = await ctx.deps.db.selectFrom('unit_nights').select('night').where('booking_id', '=', created.id).execute();
    expect(holds.map((h) => h.night).sort()).toEqual([day(ctx, 10), day(ctx, 11)]);
    const availability = events.find((e) => e.type === 'availability.changed');
    expect(availability?.data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([1, 1]);
  });

  it('with other integrations covering the property, each one’s availability event shows the new hold with its own unit aliases', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 2);
    const other = await ctx.createIntegration({ brandId: integ.brandId });
    const third = await ctx.createIntegration({ brandId: integ.brandId });
    for (const i of [other, third]) expect((await ctx.staff('PUT', `/integrations/${i.id}/coverage/${villa.id}`, { external_id: `THEIRS-${i.id}` })).statusCode).toBe(201);
    await ctx.deps.db.insertInto('unit_aliases').values({ integration_id: other.id, unit_id: villa.unitIds[1], external_id: 'OTHER-ROOM-2' }).execute();
    const before = { other: await lastSequence(ctx, other.id), third: await lastSequence(ctx, third.id) };
    const res = await postBooking(ctx, integ, bookingBody(ctx, villa));
    expect(res.statusCode, res.body).toBe(201);
    const nights = [day(ctx, 10), day(ctx, 11)];
    const expected = (aliases: Array<string | null>) => [
      { inventory_id: villa.unitIds[0], external_unit_id: aliases[0], name: 'Room 1', unavailable: nights },
      { inventory_id: villa.unitIds[1], external_unit_id: aliases[1], name: 'Room 2', unavailable: [] },
    ];
    for (const [integration, aliases] of [
      [integ, villa.aliases],
      [other, [null, 'OTHER-ROOM-2']],
      [third, [null, null]],
    ] as const) {
      const after = integration === integ ? 0 : integration === other ? before.other : before.third;
      const availability = (await eventsOf(ctx, integration.id, after)).filter((e) => e.type === 'availability.changed').at(-1);
      expect(availability?.data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([1, 1]);
      expect(availability?.data.units).toEqual(expected([...aliases]));
      // the same as a snapshot read now
      const snapshot = await ctx.api(integration.apiKey, 'GET', `/properties/${villa.id}/availability?from=${nights[0]}&to=${nights[1]}`);
      expect(snapshot.statusCode, snapshot.body).toBe(200);
      expect(snapshot.json().data.data).toEqual(availability?.data);
    }
  });

  it('takes no id for a create refused before any booking could follow: check_in before today, or a duplicate', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const first = bookingBody(ctx, villa);
    expect((await postBooking(ctx, integ, first)).statusCode).toBe(201);
    const last = await lastBookingId();
    expect((await postBooking(ctx, integ, bookingBody(ctx, villa, { check_in: day(ctx, -1), check_out: day(ctx, 1) }))).statusCode).toBe(422);
    expect((await postBooking(ctx, integ, first)).statusCode).toBe(200);
    expect(await lastBookingId()).toBe(last);
  });
});

describe('POST /bookings: the idempotency record completed by the booking’s commit', () => {
  it('a 201 is stored by the commit that made the booking; a refusal by the answer’s own statement', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const complete = ctx.deps.state.idempotency.complete;
    const run = complete.run.bind(complete);
    let separate = 0;
    complete.run = (item) => {
      separate++;
      return run(item);
    };
    try {
      const key = newKey();
      const body = bookingBody(ctx, villa);
      const res = await postBooking(ctx, integ, body, key);
      expect(res.statusCode, res.body).toBe(201);
      expect(separate).toBe(0);
      const record = await ctx.deps.db.selectFrom('idempotency_keys').selectAll().where('integration_id', '=', integ.id).where('key', '=', key).executeTakeFirstOrThrow();
      expect(record).toMatchObject({ state: 'completed', response_status: 201, response_content_type: 'application/json; charset=utf-8', response_body: res.body });
      const replay = await postBooking(ctx, integ, body, key);
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(res.body);
      // the same stay again: refused, and that answer stored on its own
      const refused = await postBooking(ctx, integ, bookingBody(ctx, villa));
      expect(refused.statusCode).toBe(409);
      expect(separate).toBe(1);
    } finally {
      complete.run = run;
    }
  });
});
