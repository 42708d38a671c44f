import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { horizonWindows, kolkataDate } from '../../src/lib/time.js';
import { startSyncRunner } from '../../src/modules/sync/sync.runner.js';
import { startDeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { cover, insertProperty } from '../calendar/fixtures.js';
import { failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { eventsOf, today } from '../helpers/fixtures.js';
import type { Receiver } from '../helpers/receiver.js';
import { closeDeliveryContext, eventually, openReceiverContext } from '../webhooks/helpers.js';

let ctx: TestContext;
let receiver: Receiver;

beforeAll(async () => {
  ({ ctx, receiver } = await openReceiverContext());
});
afterAll(() => closeDeliveryContext({ ctx, receiver }));

const sync = (i: TestIntegration, body?: unknown) => ctx.api(i.apiKey, 'POST', '/sync', body);

async function integrationWithProperties(count: number, options: { horizon_days?: number; webhook?: object } = {}) {
  const integration = await ctx.createIntegration(options);
  const properties = [];
  for (let k = 0; k < count; k++) {
    const p = await insertProperty(ctx, { brandId: integration.brandId, units: 2 });
    await cover(ctx, integration, p.id, `EXT-${integration.id}-${k}`);
    properties.push(p.id);
  }
  return { integration, properties };
}

describe('POST /sync', () => {
  it('validates, counts every call, allows one sync per 24 hours and six calls per Asia/Kolkata day', async () => {
    const { integration, properties } = await integrationWithProperties(2);
    const stranger = await insertProperty(ctx, { brandId: integration.brandId, units: 1 });

    // 1–4: refused by validation; none of them consumes the 24-hour window
    let res = await sync(integration, { property_ids: [properties[0], stranger.id] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ ...failure('PROPERTY_NOT_MAPPED'), errors: { 'property_ids.1': [expect.any(String)] } });
    // a refusal still spends one of the day's six calls, and its rate fields say so
    expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining']]).toEqual(['6', '5']);
    res = await sync(integration, { types: ['availability', 'bookings'] });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { 'types.1': expect.any(Array) } });
    expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining']]).toEqual(['6', '4']);
    res = await sync(integration, { property_ids: Array.from({ length: 501 }, (_, k) => k + 1) });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { property_ids: expect.any(Array) } });
    res = await sync(integration, { property_ids: ['1'] });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toHaveProperty(['property_ids.0']);

    // 5: accepted, types normalised to .changed names in the contract's order
    res = await sync(integration, { property_ids: properties, types: ['rates', 'availability.changed', 'rates.changed'] });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      success: true,
      message: expect.any(String),
      data: { queued_properties: 2, horizon_days: 365, types: ['availability.changed', 'rates.changed'] },
    });
    expect(res.headers['x-ratelimit-limit']).toBe('6');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');

    // 6: within 24 hours
    res = await sync(integration);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ ...failure('SYNC_TOO_SOON'), errors: { retry_after: expect.any(Number) } });
    const retryAfter = res.json().errors.retry_after;
    expect(retryAfter).toBeGreaterThan(86_400 - 60);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(res.headers['retry-after']).toBe(String(retryAfter));
    expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining']]).toEqual(['6', '0']);

    // 7: the day's sixth call was the last
    res = await sync(integration);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ ...failure('RATE_LIMITED'), errors: { retry_after: expect.any(Number) } });
    const toMidnight = res.json().errors.retry_after as number;
    expect(res.headers['retry-after']).toBe(String(toMidnight));
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-limit']).toBe('6');
    const now = today(ctx);
    expect(kolkataDate(ctx.deps.clock.nowMs() + (toMidnight - 1) * 1000)).toBe(now);
    expect(kolkataDate(ctx.deps.clock.nowMs() + toMidnight * 1000)).not.toBe(now);

    // a new Asia/Kolkata day: calls count afresh, but the 24-hour window still holds
    await ctx.advanceClock(toMidnight);
    res = await sync(integration);
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('SYNC_TOO_SOON');
    const rest = res.json().errors.retry_after as number;
    await ctx.advanceClock(rest);
    res = await sync(integration, {});
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toEqual({
      queued_properties: 2,
      horizon_days: 365,
      types: ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed'],
    });
  });

  it('accepts exactly one of two simultaneous requests', async () => {
    const { integration } = await integrationWithProperties(1);
    const answers = await Promise.all([sync(integration), sync(integration), sync(integration)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([202, 429, 429]);
    expect(answers.filter((a) => a.statusCode === 429).map((a) => a.json().code)).toEqual(['SYNC_TOO_SOON', 'SYNC_TOO_SOON']);
  });

  it('regenerates in the background, never in the request, through the normal event path by calendar month', async () => {
    const { integration, properties } = await integrationWithProperties(2, { horizon_days: 60, webhook: { url: `${receiver.url}/sync` } });
    const other = await ctx.createIntegration({ brandId: integration.brandId });
    for (const p of properties) await cover(ctx, other, p);

    const res = await sync(integration);
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toMatchObject({ queued_properties: 2, horizon_days: 60 });
    expect(await eventsOf(ctx, integration.id)).toEqual([]); // nothing was generated inside the request

    const runner = startSyncRunner(ctx.deps, { pollMs: 200 });
    const worker = startDeliveryWorker(ctx.deps, { pollMs: 200 });
    try {
      const months = horizonWindows(today(ctx), 60);
      const perProperty = 2 + 3 * months.length;
      await eventually(async () => (await eventsOf(ctx, integration.id)).length === 2 * perProperty, 20_000, 'the regenerated events');
      const events = await eventsOf(ctx, integration.id);
      for (const [k, propertyId] of properties.entries()) {
        const mine = events.slice(k * perProperty, (k + 1) * perProperty);
        expect(mine.map((e) => e.type)).toEqual([
          'property.changed',
          'inventory.changed',
          ...months.map(() => 'availability.changed'),
          ...months.map(() => 'rates.changed'),
          ...months.map(() => 'restrictions.changed'),
        ]);
        expect(mine.every((e) => e.property.doorloom_id === propertyId && e.property.external_id === `EXT-${integration.id}-${k}`)).toBe(true);
        expect(mine.slice(2, 2 + months.length).map((e) => e.window)).toEqual(months);
        for (const e of mine) {
          expect(e.origin).toBe('doorloom');
          if (e.window) expect(e.window.from.slice(0, 7)).toBe(e.window.to.slice(0, 7));
        }
      }
      expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, k) => k + 1));
      // only the requesting integration; and the webhooks go out in order
      expect(await eventsOf(ctx, other.id)).toEqual([]);
      await receiver.waitFor(() => receiver.of(integration.slug).length === events.length, 20_000);
      expect(receiver.of(integration.slug).map((r) => r.json.sequence)).toEqual(events.map((e) => e.sequence));
      const job = await ctx.deps.db.selectFrom('sync_jobs').selectAll().where('integration_id', '=', integration.id).executeTakeFirstOrThrow();
      await eventually(
        async () => (await ctx.deps.db.selectFrom('sync_jobs').select('finished_at').where('id', '=', job.id).executeTakeFirstOrThrow()).finished_at !== null,
      );
    } finally {
      await runner.stop();
      await worker.stop();
    }
  });

  it('regenerates only the requested types and properties', async () => {
    const { integration, properties } = await integrationWithProperties(3, { horizon_days: 30 });
    const res = await sync(integration, { property_ids: [properties[2], properties[0]], types: ['inventory.changed', 'property'] });
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toEqual({ queued_properties: 2, horizon_days: 30, types: ['inventory.changed', 'property.changed'] });
    const runner = startSyncRunner(ctx.deps, { pollMs: 200 });
    try {
      await eventually(async () => (await eventsOf(ctx, integration.id)).length === 4);
    } finally {
      await runner.stop();
    }
    const events = await eventsOf(ctx, integration.id);
    expect(events.map((e) => [e.property.doorloom_id, e.type])).toEqual([
      [properties[2], 'property.changed'],
      [properties[2], 'inventory.changed'],
      [properties[0], 'property.changed'],
      [properties[0], 'inventory.changed'],
    ]);
  });
});
