import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Answer, type Receiver, type ReceivedRequest } from '../helpers/receiver.js';
import { attemptsOf, deliveryRows, eventually, recordEvents, secondsBetween, staffView } from './helpers.js';

let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker;
/** Per-path answers of the shared receiver; unknown paths answer 200. */
const routes = new Map<string, (request: ReceivedRequest) => Answer>();

beforeAll(async () => {
  ctx = await createTestContext();
  receiver = await startReceiver((request) => routes.get(request.path)?.(request) ?? { status: 200, body: '{"ok":true}' });
  worker = startDeliveryWorker(ctx.deps, { pollMs: 200 });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await ctx.close();
});

const sequences = (slug: string) => receiver.of(slug).map((r) => r.json.sequence as number | null);
const eventSequences = (slug: string) =>
  receiver
    .of(slug)
    .filter((r) => r.json.type !== 'ping')
    .map((r) => r.json.sequence as number);
const me = async (i: TestIntegration) => (await ctx.api(i.apiKey, 'GET', '/me')).json().data;

async function integrationAt(path: string, webhook: object = {}) {
  return ctx.createIntegration({ webhook: { url: `${receiver.url}${path}`, ...webhook } });
}

/** Waits for the failure counter to reach `n` (the failure is recorded just after the answer). */
async function failuresReach(integration: TestIntegration, n: number) {
  await eventually(async () => (await staffView(ctx, integration.id)).webhook.consecutive_failures === n, 10_000, `${n} consecutive failures`);
}

const LADDER = [60, 300, 900, 1800, 3600, 7200, 7200];

/**
 * Drives an always-failing event up the ladder with the test clock: attempts at 0, 1m, 6m, 21m,
 * 51m, 1h51m, 3h51m, 5h51m, then the 6-hour mark pauses the integration without a ninth attempt.
 */
async function walkToPause(integration: TestIntegration) {
  const slug = integration.slug;
  await receiver.waitFor(() => eventSequences(slug).length === 1, 10_000, 'attempt 1');
  await failuresReach(integration, 1);
  const first = (await attemptsOf(ctx, integration.id))[0];
  for (let k = 0; k < LADDER.length; k++) {
    const view = await staffView(ctx, integration.id);
    const attempts = (await attemptsOf(ctx, integration.id)).filter((a) => a.event.type !== 'ping');
    const last = attempts[attempts.length - 1];
    expect(attempts).toHaveLength(k + 1);
    expect(view.status).toBe('active');
    expect(view.delivery.attempts).toBe(attempts.length); // every attempt so far was on the head event
    // the retry is due exactly one rung later
    expect(Math.abs(secondsBetween(last.attempted_at, view.delivery.next_attempt_at) - LADDER[k])).toBeLessThanOrEqual(1);
    await ctx.advanceClock(LADDER[k]);
    await receiver.waitFor(() => eventSequences(slug).length === k + 2, 10_000, `attempt ${k + 2}`);
    await failuresReach(integration, k + 2);
  }
  // eight failures in 5h51m; the next wake is the 6-hour mark, counted from the first failure
  const view = await staffView(ctx, integration.id);
  expect(Math.abs(secondsBetween(first.attempted_at, view.delivery.next_attempt_at) - 6 * 3600)).toBeLessThanOrEqual(1);
  await ctx.advanceClock(Math.ceil(secondsBetween(ctx.deps.clock.now().toISOString(), view.delivery.next_attempt_at)) + 1);
  await eventually(async () => (await staffView(ctx, integration.id)).status === 'paused', 10_000, 'the pause');
  const paused = await staffView(ctx, integration.id);
  expect(paused.webhook.paused_reason).toBe('delivery_failures');
  expect(paused.webhook.consecutive_failures).toBe(8);
  expect(eventSequences(slug)).toHaveLength(8); // paused without a ninth attempt
  expect(Math.abs(secondsBetween(paused.webhook.paused_at, paused.delivery.next_attempt_at) - 15 * 60)).toBeLessThanOrEqual(1);
}

describe('webhook delivery', () => {
  it('delivers strictly in order: a failing event blocks the later ones until its retry succeeds', async () => {
    const integration = await integrationAt('/order');
    let seen = 0;
    routes.set('/order', () => (++seen === 2 ? { status: 500, body: 'boom' } : { status: 200 }));
    await recordEvents(ctx, integration.id, 5);
    await receiver.waitFor(() => sequences(integration.slug).length === 2);
    await failuresReach(integration, 1);
    // blocked: nothing after the failed event, even with four waiting
    await new Promise((r) => setTimeout(r, 300));
    expect(sequences(integration.slug)).toEqual([1, 2]);
    const blocked = await me(integration);
    expect(blocked.webhook).toMatchObject({ undelivered_events: 4, consecutive_failures: 1, last_sequence: 5 });
    expect(blocked.webhook.last_failure_at).toMatch(/\+05:30$/);
    const view = await staffView(ctx, integration.id);
    expect(view.delivery).toMatchObject({ cursor_sequence: 1, attempts: 1 });

    await ctx.advanceClock(60);
    await receiver.waitFor(() => sequences(integration.slug).length === 6);
    expect(sequences(integration.slug)).toEqual([1, 2, 2, 3, 4, 5]);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    const after = await me(integration);
    expect(after.webhook).toMatchObject({ undelivered_events: 0, consecutive_failures: 0, paused_at: null });
    expect(after.webhook.last_success_at).toMatch(/\+05:30$/);
    expect((await staffView(ctx, integration.id)).delivery).toMatchObject({ cursor_sequence: 5, next_attempt_at: null, attempts: 0 });

    const log = await attemptsOf(ctx, integration.id);
    expect(log.map((a) => [a.event.sequence, a.attempt, a.success, a.status_code])).toEqual([
      [1, 1, true, 200],
      [2, 1, false, 500],
      [2, 2, true, 200],
      [3, 1, true, 200],
      [4, 1, true, 200],
      [5, 1, true, 200],
    ]);
    expect(log[1].response_body).toBe('boom');
  });

  it('keeps a long stream in order across a failure in the middle, one request in flight', async () => {
    const integration = await integrationAt('/stream');
    let failed = false;
    routes.set('/stream', (r) => {
      if (r.json.sequence === 150 && !failed) {
        failed = true;
        return { status: 503 };
      }
      return { status: 204 };
    });
    await recordEvents(ctx, integration.id, 300);
    await receiver.waitFor(() => sequences(integration.slug).length === 150);
    await failuresReach(integration, 1);
    await ctx.advanceClock(60);
    await receiver.waitFor(() => sequences(integration.slug).length === 301, 20_000);
    const all = sequences(integration.slug);
    expect(all).toEqual([...Array.from({ length: 150 }, (_, i) => i + 1), ...Array.from({ length: 151 }, (_, i) => i + 150)]);
    expect(receiver.maxInFlight.get(integration.slug)).toBe(1);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    const rows = await deliveryRows(ctx.deps.db, integration.id);
    expect(rows.every((r) => r.delivery_status === 'delivered')).toBe(true);
    expect(rows.reduce((n, r) => n + r.attempts, 0)).toBe(301);
  });

  it('walks the retry ladder, pauses after six hours of failures, pings every 15 minutes and drains the backlog in order on recovery', async () => {
    const integration = await integrationAt('/ladder');
    let healthy = false;
    routes.set('/ladder', () => (healthy ? { status: 200 } : { status: 500, body: 'down' }));
    await recordEvents(ctx, integration.id, 1);
    await walkToPause(integration);

    // events keep accumulating while paused; /me tells
    await recordEvents(ctx, integration.id, 3);
    const paused = await me(integration);
    expect(paused).toMatchObject({ status: 'paused', webhook: { paused_reason: 'delivery_failures', undelivered_events: 4, last_sequence: 4 } });

    // first ping after 15 minutes: still down
    await ctx.advanceClock(15 * 60);
    await receiver.waitFor(() => receiver.of(integration.slug).length === 9, 10_000, 'the first ping');
    const ping = receiver.of(integration.slug)[8];
    expect(ping.json).toMatchObject({
      type: 'ping',
      sequence: null,
      property: null,
      data: {},
      version: '2026-09',
      integration: { id: integration.id, slug: integration.slug },
    });
    expect(ping.headers['x-service-event-id']).toBe(ping.json.id);
    const t = Number(/t=(\d+)/.exec(String(ping.headers['x-service-signature']))![1]);
    expect(() =>
      new Stripe('sk_test_x').webhooks.constructEvent(
        ping.body,
        String(ping.headers['x-service-signature']),
        integration.webhookSecret,
        300,
        undefined,
        t * 1000,
      ),
    ).not.toThrow();
    await failuresReach(integration, 9);
    const stillPaused = await staffView(ctx, integration.id);
    expect(stillPaused.status).toBe('paused');
    expect(eventSequences(integration.slug)).toHaveLength(8);

    // the receiver recovers; the next ping (15 minutes on) answers 2xx and the backlog drains in order
    healthy = true;
    await ctx.advanceClock(15 * 60);
    await receiver.waitFor(() => eventSequences(integration.slug).length === 12, 10_000, 'the backlog');
    expect(receiver.of(integration.slug).map((r) => r.json.type === 'ping')).toEqual([...Array(8).fill(false), true, true, false, false, false, false]);
    expect(eventSequences(integration.slug)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4]);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    const resumed = await me(integration);
    expect(resumed).toMatchObject({ status: 'active', webhook: { consecutive_failures: 0, paused_at: null, paused_reason: null } });

    const log = await attemptsOf(ctx, integration.id);
    const pings = log.filter((a) => a.event.type === 'ping');
    expect(pings.map((p) => [p.success, p.event.sequence, p.attempt])).toEqual([
      [false, null, null],
      [true, null, null],
    ]);
  });

  it('pauses with attempts_exhausted at the 12th failure of one event, and staff resume sends it at once', async () => {
    const integration = await integrationAt('/poison');
    let eventsFail = true;
    // the endpoint is up (pings answer 2xx) but this event keeps failing
    routes.set('/poison', (r) => (r.json.type === 'ping' || !eventsFail ? { status: 200 } : { status: 422, body: 'cannot apply' }));
    await recordEvents(ctx, integration.id, 2);
    await walkToPause(integration);

    // the ping succeeds: resumed, the blocked event goes at once with a fresh ladder (1m, 5m, 15m)
    await ctx.advanceClock(15 * 60);
    await receiver.waitFor(() => eventSequences(integration.slug).length === 9, 10_000, 'attempt 9 after the ping');
    await eventually(async () => (await staffView(ctx, integration.id)).webhook.consecutive_failures === 1);
    expect((await staffView(ctx, integration.id)).status).toBe('active');
    for (const [k, wait] of [60, 300, 900].entries()) {
      await ctx.advanceClock(wait);
      await receiver.waitFor(() => eventSequences(integration.slug).length === 10 + k, 10_000, `attempt ${10 + k}`);
      await eventually(async () => (await attemptsOf(ctx, integration.id)).filter((a) => a.event.type !== 'ping').length === 10 + k);
    }
    await eventually(async () => (await staffView(ctx, integration.id)).status === 'paused');
    const exhausted = await staffView(ctx, integration.id);
    expect(exhausted.webhook.paused_reason).toBe('attempts_exhausted');
    expect(exhausted.delivery.attempts).toBe(12);
    expect(eventSequences(integration.slug)).toEqual(Array(12).fill(1));

    eventsFail = false;
    const res = await ctx.staff('POST', `/integrations/${integration.id}/webhook/resume`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: integration.id, status: 'active', webhook: { paused_at: null, paused_reason: null, consecutive_failures: 0 } });
    await receiver.waitFor(() => eventSequences(integration.slug).length === 14, 10_000, 'the resumed stream');
    expect(eventSequences(integration.slug).slice(12)).toEqual([1, 2]);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    const [head] = await deliveryRows(ctx.deps.db, integration.id);
    expect(head).toMatchObject({ sequence: 1, attempts: 13, delivery_status: 'delivered' });
  });

  it('records kinds outside event_types as skipped and never sends them', async () => {
    const integration = await integrationAt('/subscribed', { event_types: ['inventory.changed'] });
    await recordEvents(ctx, integration.id, 2, 'availability.changed');
    await recordEvents(ctx, integration.id, 1, 'inventory.changed');
    await receiver.waitFor(() => sequences(integration.slug).length === 1);
    expect(receiver.of(integration.slug)[0].json).toMatchObject({ type: 'inventory.changed', sequence: 3 });
    const rows = await deliveryRows(ctx.deps.db, integration.id);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    expect(rows.map((r) => r.delivery_status).slice(0, 2)).toEqual(['skipped', 'skipped']);
  });

  it('lets events accumulate as pending without a URL, and delivers them once one is set; a kind unsubscribed meanwhile is skipped', async () => {
    const integration = await ctx.createIntegration();
    await recordEvents(ctx, integration.id, 2, 'rates.changed');
    await recordEvents(ctx, integration.id, 2, 'availability.changed');
    expect((await me(integration)).webhook).toMatchObject({ configured: false, undelivered_events: 4, last_sequence: 4 });

    const patched = await ctx.staff('PATCH', `/integrations/${integration.id}`, {
      webhook: { url: `${receiver.url}/late`, event_types: ['availability.changed'] },
    });
    expect(patched.statusCode).toBe(200);
    await receiver.waitFor(() => sequences(integration.slug).length === 2);
    expect(sequences(integration.slug)).toEqual([3, 4]);
    await eventually(async () => (await me(integration)).webhook.undelivered_events === 0);
    const rows = await deliveryRows(ctx.deps.db, integration.id);
    expect(rows.map((r) => r.delivery_status)).toEqual(['skipped', 'skipped', 'delivered', 'delivered']);
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const integration = await integrationAt('/redirect');
    routes.set('/redirect', () => ({ status: 307, headers: { location: `${receiver.url}/elsewhere` } }));
    await recordEvents(ctx, integration.id, 1);
    await failuresReach(integration, 1);
    expect(receiver.requests.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    const [attempt] = await attemptsOf(ctx, integration.id);
    expect(attempt).toMatchObject({ success: false, status_code: 307, error: null, attempt: 1 });
    routes.set('/redirect', () => ({ status: 200 }));
  });

  it('gives up on an answer slower than timeout_seconds and logs the error', async () => {
    const integration = await integrationAt('/slow', { timeout_seconds: 1 });
    routes.set('/slow', () => ({ status: 200, delayMs: 1_600 }));
    await recordEvents(ctx, integration.id, 1);
    await failuresReach(integration, 1);
    const [attempt] = await attemptsOf(ctx, integration.id);
    expect(attempt.success).toBe(false);
    expect(attempt.status_code).toBeNull();
    expect(attempt.error).toMatch(/^RESPONSE_TIMEOUT/);
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(900);
    expect(attempt.duration_ms).toBeLessThan(1_600);
  });

  it('logs a refused connection and keeps the first 4 KB of an answer', async () => {
    const closed = await startReceiver();
    const url = `${closed.url}/gone`;
    await closed.close();
    const refused = await ctx.createIntegration({ webhook: { url } });
    await recordEvents(ctx, refused.id, 1);
    await failuresReach(refused, 1);
    expect((await attemptsOf(ctx, refused.id))[0].error).toMatch(/^ECONNREFUSED/);

    const big = await integrationAt('/big');
    routes.set('/big', () => ({ status: 500, body: 'x'.repeat(10_000) }));
    await recordEvents(ctx, big.id, 1);
    await failuresReach(big, 1);
    expect((await attemptsOf(ctx, big.id))[0].response_body).toHaveLength(4096);
  });

  it('sends nothing for a disabled integration and resumes when it is enabled again', async () => {
    const integration = await integrationAt('/disabled');
    await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: null } });
    await recordEvents(ctx, integration.id, 2);
    await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'disabled', webhook: { url: `${receiver.url}/disabled` } });
    worker.kick([integration.id]);
    await new Promise((r) => setTimeout(r, 300));
    expect(sequences(integration.slug)).toEqual([]);
    const resume = await ctx.staff('POST', `/integrations/${integration.id}/webhook/resume`);
    expect(resume.statusCode).toBe(409);
    expect(resume.json()).toMatchObject(failure('INTEGRATION_DISABLED'));

    await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'active' });
    await receiver.waitFor(() => sequences(integration.slug).length === 2);
    expect(sequences(integration.slug)).toEqual([1, 2]);
  });

  it('staff resume cuts a back-off short; unknown ids are 404', async () => {
    const integration = await integrationAt('/backoff');
    let fail = true;
    routes.set('/backoff', () => (fail ? { status: 500 } : { status: 200 }));
    await recordEvents(ctx, integration.id, 1);
    await failuresReach(integration, 1);
    fail = false;
    const res = await ctx.staff('POST', `/integrations/${integration.id}/webhook/resume`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.delivery.next_attempt_at).toBeNull();
    await receiver.waitFor(() => sequences(integration.slug).length === 2);
    expect((await ctx.staff('POST', '/integrations/999999/webhook/resume')).statusCode).toBe(404);
    expect((await ctx.staff('GET', '/integrations/999999/deliveries')).statusCode).toBe(404);
  });

  it('pages the attempt log with after and limit', async () => {
    const integration = await integrationAt('/paging');
    await recordEvents(ctx, integration.id, 5);
    await receiver.waitFor(() => sequences(integration.slug).length === 5);
    await eventually(async () => (await attemptsOf(ctx, integration.id)).length === 5);
    const first = await ctx.staff('GET', `/integrations/${integration.id}/deliveries?limit=2`);
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.data.map((a: { event: { sequence: number } }) => a.event.sequence)).toEqual([1, 2]);
    expect(page1.cursor).toEqual({ next_after: page1.data[1].id, has_more: true });
    expect(page1.data[0]).toMatchObject({ success: true, status_code: 200, attempt: 1, response_body: '{"ok":true}', error: null });
    expect(page1.data[0].attempted_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
    const rest = (await ctx.staff('GET', `/integrations/${integration.id}/deliveries?limit=10&after=${page1.cursor.next_after}`)).json();
    expect(rest.data.map((a: { event: { sequence: number } }) => a.event.sequence)).toEqual([3, 4, 5]);
    expect(rest.cursor.has_more).toBe(false);
    const bad = await ctx.staff('GET', `/integrations/${integration.id}/deliveries?limit=500`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { limit: expect.any(Array) } });
    // integration API keys cannot read it
    expect((await ctx.api(integration.apiKey, 'GET', `/integrations/${integration.id}/deliveries`)).statusCode).toBe(404);
  });
});
