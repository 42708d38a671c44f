import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import type { TestContext } from '../helpers/context.js';
import type { Receiver } from '../helpers/receiver.js';
import { closeDeliveryContext, openDeliveryContext, recordEvents } from './helpers.js';

let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker;
const stripe = new Stripe('sk_test_not_used');

beforeAll(async () => {
  ({ ctx, receiver, worker } = await openDeliveryContext());
});
afterAll(() => closeDeliveryContext({ ctx, receiver, worker }));

/** Stripe's verifier, judged at the signature's own time (the test clock may run ahead). */
function stripeVerifies(body: string, header: string, secret: string): boolean {
  const t = Number(/t=(\d+)/.exec(header)![1]);
  try {
    stripe.webhooks.constructEvent(body, header, secret, 300, undefined, t * 1000);
    return true;
  } catch {
    return false;
  }
}

function standardVerifies(body: string, headers: Record<string, unknown>, secret: string): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

describe('webhook signing', () => {
  it('sends the exact envelope with the headers of decisions §7, verified by stripe and standardwebhooks', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/a` } });
    // Several, so that the later ones go with headers signed while the one before was on the wire.
    await recordEvents(ctx, integration.id, 6, 'rates.changed', (i) => ({ price: 13000, note: `ünïcode ${i} “quotes”` }));
    await receiver.waitFor(() => receiver.of(integration.slug).length === 6);

    const stored = await ctx.deps.db
      .selectFrom('events')
      .select(['id', 'sequence', 'body'])
      .where('integration_id', '=', integration.id)
      .orderBy('sequence')
      .execute();
    const got = receiver.of(integration.slug);
    for (const [i, request] of got.entries()) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/a');
      expect(request.body).toBe(stored[i].body); // the recorded bytes, not a re-serialisation
      const h = request.headers;
      expect(h['content-type']).toBe('application/json');
      expect(h.accept).toBe('application/json');
      expect(h['user-agent']).toBe('Doorloom-Webhooks/2026-09');
      expect(h['x-service-integration']).toBe(integration.slug);
      expect(h['x-service-event-id']).toBe(stored[i].id);
      expect(h['webhook-id']).toBe(stored[i].id);
      expect(h['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const t = /^t=(\d+)/.exec(String(h['x-service-signature']))![1];
      expect(h['webhook-timestamp']).toBe(t);
      expect(Math.abs(Number(t) - Math.floor(ctx.deps.clock.nowMs() / 1000))).toBeLessThan(30); // the service clock
      expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

      expect(stripeVerifies(request.body, String(h['x-service-signature']), integration.webhookSecret)).toBe(true);
      expect(standardVerifies(request.body, h, integration.webhookSecret)).toBe(true);
      // and they do fail when they should
      expect(stripeVerifies(request.body.replace('13000', '13001'), String(h['x-service-signature']), integration.webhookSecret)).toBe(false);
      expect(standardVerifies(request.body.replace('13000', '13001'), h, integration.webhookSecret)).toBe(false);
      expect(stripeVerifies(request.body, String(h['x-service-signature']), 'whsec_' + 'x'.repeat(32))).toBe(false);
    }
    expect(got.map((r) => r.json.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('signs with both secrets during a rotation (the new one first), then with the new one alone', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/rotation` } });
    const oldSecret = integration.webhookSecret;
    const rotated = await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`);
    const newSecret = rotated.json().data.webhook_secret as string;
    expect(newSecret).toMatch(/^whsec_/);

    await recordEvents(ctx, integration.id, 1);
    await receiver.waitFor(() => receiver.of(integration.slug).length === 1);
    const during = receiver.of(integration.slug)[0];
    const header = String(during.headers['x-service-signature']);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(stripeVerifies(during.body, header, secret)).toBe(true);
      expect(standardVerifies(during.body, during.headers, secret)).toBe(true);
    }
    // the new secret's value comes first
    const firstOnly = header.split(',').slice(0, 2).join(',');
    expect(stripeVerifies(during.body, firstOnly, newSecret)).toBe(true);
    expect(stripeVerifies(during.body, firstOnly, oldSecret)).toBe(false);

    // 24 hours later the old secret no longer signs
    await ctx.advanceClock(24 * 3600 + 60);
    await recordEvents(ctx, integration.id, 1);
    await receiver.waitFor(() => receiver.of(integration.slug).length === 2);
    const after = receiver.of(integration.slug)[1];
    expect(String(after.headers['x-service-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripeVerifies(after.body, String(after.headers['x-service-signature']), newSecret)).toBe(true);
    expect(stripeVerifies(after.body, String(after.headers['x-service-signature']), oldSecret)).toBe(false);
  });

  it('a second rotation ends the oldest secret at once', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/twice` } });
    const first = integration.webhookSecret;
    const second = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret;
    const third = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret;
    await recordEvents(ctx, integration.id, 1);
    await receiver.waitFor(() => receiver.of(integration.slug).length === 1);
    const request = receiver.of(integration.slug)[0];
    const header = String(request.headers['x-service-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(stripeVerifies(request.body, header, third)).toBe(true);
    expect(stripeVerifies(request.body, header, second)).toBe(true);
    expect(stripeVerifies(request.body, header, first)).toBe(false);
    expect(standardVerifies(request.body, request.headers, first)).toBe(false);
  });
});
