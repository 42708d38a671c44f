import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, eachDate } from '../../src/lib/time.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { cover, eventsOf, insertProperty, today, type FixtureProperty } from './fixtures.js';

let ctx: TestContext;
let partner: TestIntegration;
let property: FixtureProperty;

beforeAll(async () => {
  ctx = await createTestContext();
  partner = await ctx.createIntegration();
  property = await insertProperty(ctx, { brandId: partner.brandId, units: 2 });
  await cover(ctx, partner, property.id);
});
afterAll(() => ctx.close());

describe('snapshot watermark under concurrent writes', () => {
  it('every snapshot equals the initial state plus exactly the events at or below its sequence', async () => {
    const from = addDays(today(ctx), 3);
    const to = addDays(from, 9);
    const nights = eachDate(from, to);
    const scopes = ['everywhere', null, 'ota_only'] as const;

    // 24 host edits over overlapping sub-windows, interleaved with 24 snapshots, all at once
    const edits = Array.from({ length: 24 }, (_, i) => {
      const start = nights[(i * 7) % nights.length];
      const end = nights[Math.min(nights.length - 1, nights.indexOf(start) + 1 + (i % 4))];
      return ctx.staff('PUT', `/properties/${property.id}/calendar`, { from: start, to: end, block_scope: scopes[i % 3], units_cap: i % 3 });
    });
    const snapshots = Array.from({ length: 24 }, () => ctx.api(partner.apiKey, 'GET', `/properties/${property.id}/availability?from=${from}&to=${to}`));
    const [editResults, snapshotResults] = await Promise.all([Promise.all(edits), Promise.all(snapshots)]);
    expect(editResults.every((r) => r.statusCode === 200)).toBe(true);

    const events = (await eventsOf(ctx, partner.id)).filter((e) => e.type === 'availability.changed');
    expect(events.length).toBeGreaterThanOrEqual(24); // an edit across a month end emits two

    // Replays events as a receiver would: each night takes the row of the latest event covering it.
    const stateAt = (sequence: number) => {
      const rows = new Map<string, unknown>(
        nights.map((date) => [date, { date, available_units: 2, total_units: 2, is_blocked: false, block_scope: null, units_cap: null }]),
      );
      for (const event of events) {
        if (event.sequence > sequence) break;
        for (const row of event.data.dates) if (rows.has(row.date)) rows.set(row.date, row);
      }
      return nights.map((date) => rows.get(date));
    };

    const seen = new Set<number>();
    for (const res of snapshotResults) {
      expect(res.statusCode).toBe(200);
      const snap = res.json().data;
      seen.add(snap.sequence);
      expect(snap.data.dates).toEqual(stateAt(snap.sequence));
    }
    const final = (await ctx.api(partner.apiKey, 'GET', `/properties/${property.id}/availability?from=${from}&to=${to}`)).json().data;
    expect(final.sequence).toBe(events[events.length - 1].sequence);
    expect(final.data.dates).toEqual(stateAt(final.sequence));
  });
});
