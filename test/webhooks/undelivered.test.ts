import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { deliveryRows, eventually, recordEvents } from './helpers.js';

// GET /me's undelivered_events is a counter kept in the transactions that add pending events
// (append), and settle them (delivered, skipped by the worker, deleted by retention), not a
// count(*) of the pending events. After a mixed workload it must equal that count exactly.

let ctx: TestContext;
let receiver: Receiver;
let failing = true;

beforeAll(async () => {
  ctx = await createTestContext();
  receiver = await startReceiver((request) => (request.path === '/flaky' && failing ? { status: 500 } : { status: 200 }));
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

async function counted(integration: TestIntegration) {
  const state = await ctx.deps.db
    .selectFrom('webhook_delivery_state')
    .select('undelivered')
    .where('integration_id', '=', integration.id)
    .executeTakeFirstOrThrow();
  const real = { n: (await deliveryRows(ctx.deps.db, integration.id, 'pending')).length };
  const me = (await ctx.api(integration.apiKey, 'GET', '/me')).json().data.webhook.undelivered_events;
  return { counter: Number(state.undelivered), count: Number(real.n), me };
}

async function expectExact(integrations: TestIntegration[], what: string) {
  for (const i of integrations) {
    const c = await counted(i);
    expect(c, `${what}: integration ${i.id}`).toEqual({ counter: c.count, count: c.count, me: c.count });
  }
}

describe('undelivered_events', () => {
  it('stays equal to the pending events through appends, deliveries, skips, failures and retention', async () => {
    const steady = await ctx.createIntegration({ webhook: { url: `${receiver.url}/steady`, event_types: ['availability.changed', 'rates.changed'] } });
    const flaky = await ctx.createIntegration({ webhook: { url: `${receiver.url}/flaky` } });
    const silent = await ctx.createIntegration(); // no URL: everything stays pending
    const all = [steady, flaky, silent];

    // appends: subscribed kinds pending, others skipped at once
    for (const i of all) {
      await recordEvents(ctx, i.id, 30, 'availability.changed');
      await recordEvents(ctx, i.id, 10, 'restrictions.changed');
    }
    await expectExact(all, 'after the appends');
    expect((await counted(steady)).count).toBe(30);
    expect((await counted(silent)).count).toBe(40);

    const worker = startDeliveryWorker(ctx.deps, { pollMs: 100 });
    try {
      // deliveries (steady), failures (flaky, nothing leaves pending)
      await eventually(async () => (await counted(steady)).count === 0, 20_000, 'steady delivered');
      await eventually(() => receiver.of(flaky.slug).length >= 1, 10_000, 'a failed attempt');
      await expectExact(all, 'after deliveries and a failure');
      expect((await counted(flaky)).count).toBe(40);

      // more appends while the worker runs, then an unsubscribed kind that the worker skips
      await recordEvents(ctx, steady.id, 25, 'rates.changed');
      await ctx.staff('PATCH', `/integrations/${steady.id}`, { webhook: { event_types: ['availability.changed'] } });
      await recordEvents(ctx, steady.id, 5, 'availability.changed');
      await eventually(async () => (await counted(steady)).count === 0, 20_000, 'steady drained');
      await expectExact(all, 'after skips');

      // the flaky receiver recovers; a staff resume sends at once
      failing = false;
      await ctx.staff('POST', `/integrations/${flaky.id}/webhook/resume`);
      await eventually(async () => (await counted(flaky)).count === 0, 20_000, 'flaky drained');
      await expectExact(all, 'after the recovery');
    } finally {
      await worker.stop();
    }

    // retention: 31 days on, the old pending events of the silent integration are deleted
    await ctx.advanceClock(31 * 86400);
    await recordEvents(ctx, silent.id, 3, 'availability.changed');
    const res = await ctx.staff('POST', '/jobs/retention/run');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.result.events).toBeGreaterThanOrEqual(40);
    await expectExact(all, 'after retention');
    expect((await counted(silent)).count).toBe(3);
  }, 60_000);
});
