import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyncRunner } from '../../src/modules/sync/sync.runner.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { eventually } from '../webhooks/helpers.js';
import { book, bookingBody, createVilla, day, newKey, postBooking } from './fixtures.js';

/**
 * Every kind of writer of one property at once: partner creates, updates and cancels, host
 * bookings, host calendar edits, a partner property update, coverage changes and a sync. All take
 * the property's lock first (lockProperty's lock order), so on PostgreSQL none of them may fail
 * with a deadlock (40P01, which would surface as a 500), and afterwards every hold belongs to a
 * holding booking, each unit holds a night once, and every integration's sequences are gap-free.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('concurrent writers of every kind on one property', () => {
  it('finish without a deadlock, and leave holds and sequences whole', async () => {
    const owner = await ctx.createIntegration({ horizon_days: 60 });
    const other = await ctx.createIntegration({ brandId: owner.brandId, horizon_days: 60 });
    const villa = await createVilla(ctx, owner, 6);
    expect((await ctx.staff('PUT', `/integrations/${other.id}/coverage/${villa.id}`, {})).statusCode).toBe(201);
    const existing = [];
    for (let i = 0; i < 6; i++)
      existing.push(await book(ctx, owner, villa, { units: [{ adults: 1 }], check_in: day(ctx, 2 + 3 * i), check_out: day(ctx, 4 + 3 * i) }));

    const runner = startSyncRunner(ctx.deps, { pollMs: 50 });
    try {
      const writers: Array<Promise<{ kind: string; status: number; body: string }>> = [];
      const run = (kind: string, request: Promise<{ statusCode: number; body: string }>) =>
        writers.push(request.then((r) => ({ kind, status: r.statusCode, body: r.body })));
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 3; i++) {
          run(
            'create',
            postBooking(ctx, owner, bookingBody(ctx, villa, { units: [{ adults: 1 }], check_in: day(ctx, 5 + i + round), check_out: day(ctx, 7 + i + round) })),
          );
        }
        const moving = existing[round];
        run('update', ctx.api(owner.apiKey, 'PATCH', `/bookings/${moving.id}`, { check_in: day(ctx, 30 + 3 * round), check_out: day(ctx, 32 + 3 * round) }));
        run('cancel', ctx.api(owner.apiKey, 'POST', `/bookings/${existing[3 + round].id}/cancel`, { reason: 'plans changed' }));
        run(
          'host booking',
          ctx.staff('POST', `/properties/${villa.id}/bookings`, {
            units: [{ adults: 1 }],
            check_in: day(ctx, 8 + round),
            check_out: day(ctx, 9 + round),
            guest: { name: 'Host Guest' },
            pricing: { total: 100 },
          }),
        );
        run('host calendar edit', ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 40 + round), to: day(ctx, 41 + round), units_cap: 4 }));
        run(
          'property update',
          ctx.api(
            owner.apiKey,
            'PUT',
            `/properties/${villa.externalId}`,
            { pricing: { weekday: { base_price: 5000 + round } } },
            { 'idempotency-key': newKey() },
          ),
        );
        run(
          'coverage change',
          ctx.staff(round % 2 === 0 ? 'DELETE' : 'PUT', `/integrations/${other.id}/coverage/${villa.id}`, round % 2 === 0 ? undefined : {}),
        );
        if (round === 0) run('sync', ctx.api(owner.apiKey, 'POST', '/sync', {}));
      }
      const outcomes = await Promise.all(writers);
      const failed = outcomes.filter((o) => o.status >= 500 || o.body.includes('40P01'));
      expect(failed, JSON.stringify(failed)).toEqual([]);
      for (const o of outcomes) {
        // a create may find the nights taken; a coverage change may find the coverage already as asked
        const allowed =
          o.kind === 'create' || o.kind === 'host booking'
            ? [201, 409]
            : o.kind === 'sync'
              ? [202]
              : o.kind === 'coverage change'
                ? [200, 201, 404]
                : [200, 201];
        expect(allowed, `${o.kind}: ${o.status} ${o.body}`).toContain(o.status);
      }
      await eventually(
        async () =>
          (await ctx.deps.db.selectFrom('sync_jobs').select('id').where('integration_id', '=', owner.id).where('finished_at', 'is', null).execute()).length ===
          0,
        30_000,
        'the sync job',
      );
    } finally {
      await runner.stop();
    }

    // Every pending or confirmed booking holds exactly its units × nights, and nothing else holds.
    const { rows: mismatched } = await sql<{ id: number }>`
      select b.id from bookings b
      where b.property_id = ${villa.id}
        and (select count(*) from unit_nights h where h.booking_id = b.id)
          <> case when b.status in ('pending', 'confirmed') then jsonb_array_length(b.units::jsonb) * (b.check_out - b.check_in) else 0 end
    `.execute(ctx.deps.db);
    expect(mismatched).toEqual([]);
    // Gap-free sequences for both integrations.
    for (const integration of [owner, other]) {
      const { rows } = await sql<{ n: number; max: number | null; last: number }>`
        select count(*)::int as n, max(e.sequence)::int as max, (select last_sequence::int from integrations where id = ${integration.id}) as last
        from events e where e.integration_id = ${integration.id}
      `.execute(ctx.deps.db);
      expect(rows[0].n).toBe(rows[0].last);
      expect(rows[0].max ?? 0).toBe(rows[0].last);
    }
  });
});
