import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { attemptsOf, eventually, recordEvents, staffView } from './helpers.js';

let ctx: TestContext;
let receiver: Receiver;

beforeAll(async () => {
  ctx = await createTestContext();
  // answers long after the worker's 3 s grace at shutdown
  receiver = await startReceiver(() => ({ status: 200, delayMs: 8_000 }));
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

describe('a delivery in flight when the worker stops', () => {
  it('is cut off after the grace, logged as abandoned in the attempt log, and stays pending without a failure counted', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/slow` } });
    const worker = startDeliveryWorker(ctx.deps, { pollMs: 50 });
    await recordEvents(ctx, integration.id, 1);
    await receiver.waitFor(() => receiver.of(integration.slug).length === 1, 30_000, 'the delivery to start');

    await worker.stop();

    const attempts = await attemptsOf(ctx, integration.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ success: false, attempt: 1, event: { sequence: 1 } });
    expect(attempts[0].error).toMatch(/^ABANDONED: /);
    const view = await staffView(ctx, integration.id);
    expect(view.webhook).toMatchObject({ undelivered_events: 1, consecutive_failures: 0 });

    // the next worker sends it again, as attempt 1 of a known outcome this time
    receiver.respond = () => ({ status: 200 });
    const next = startDeliveryWorker(ctx.deps, { pollMs: 50 });
    try {
      await eventually(async () => (await staffView(ctx, integration.id)).webhook.undelivered_events === 0, 30_000, 'the event to be delivered');
    } finally {
      await next.stop();
    }
    expect(receiver.of(integration.slug).map((r) => r.json.sequence)).toEqual([1, 1]);
  });
});
