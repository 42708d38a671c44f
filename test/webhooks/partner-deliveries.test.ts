import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { attemptsOf, eventually, recordEvents, staffView } from './helpers.js';

let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  ctx = await createTestContext();
  // /fail/… answers 500 with a body; everything else 200.
  receiver = await startReceiver((request) =>
    request.path.startsWith('/fail') ? { status: 500, body: 'receiver broke: ' + 'x'.repeat(5000) } : { status: 200, body: '{"ok":true}' },
  );
  worker = startDeliveryWorker(ctx.deps, { pollMs: 200 });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await ctx.close();
});

const deliveries = (i: TestIntegration, query = '') => ctx.api(i.apiKey, 'GET', `/deliveries${query}`);

describe('GET /deliveries', () => {
  it('lists the integration’s own attempts newest first, with the scheduled retry; an answer from a non-public address is for staff only', async () => {
    const ok = await ctx.createIntegration({ webhook: { url: `${receiver.url}/ok`, event_types: ['availability.changed', 'rates.changed'] } });
    await recordEvents(ctx, ok.id, 3);
    await eventually(async () => (await attemptsOf(ctx, ok.id)).filter((a) => a.success).length === 3, 15_000, 'three deliveries');

    const res = await deliveries(ok);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    expect(res.headers['ratelimit-policy']).toContain('"deliveries";q=60;w=60');
    const body = res.json();
    expect(body.data.map((a: { sequence: number }) => a.sequence)).toEqual([3, 2, 1]);
    expect(body.data[0]).toMatchObject({
      type: 'availability.changed',
      attempt: 1,
      success: true,
      status_code: 200,
      error: null,
      // The receiver listens on loopback: its answer is the service's network's, shown to staff only.
      response_body: null,
      next_attempt_at: null,
      event_id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      attempted_at: expect.stringMatching(/\+05:30$/),
    });
    expect(body.data[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(body.cursor).toEqual({ next_before: body.data[2].id, has_more: false });

    // A failing integration: its failed attempt carries its retry time and the answer's first 4 KB.
    const failing = await ctx.createIntegration({ webhook: { url: `${receiver.url}/fail` } });
    await recordEvents(ctx, failing.id, 2);
    await eventually(async () => (await staffView(ctx, failing.id)).delivery.next_attempt_at !== null, 15_000, 'a retry scheduled');
    const view = await staffView(ctx, failing.id);
    const failed = (await deliveries(failing)).json().data;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ sequence: 1, attempt: 1, success: false, status_code: 500, next_attempt_at: view.delivery.next_attempt_at });
    expect(failed[0].response_body).toBeNull();
    const staffLog = (await ctx.staff('GET', `/integrations/${failing.id}/deliveries`)).json().data;
    expect(staffLog[0].response_body.startsWith('receiver broke: xxx')).toBe(true);
    expect(staffLog[0].response_body.length).toBeLessThanOrEqual(4096);
    expect(staffLog[0].response_body.length).toBeGreaterThan(4000);
    expect((await ctx.staff('GET', `/integrations/${ok.id}/deliveries`)).json().data[0].response_body).toBe('{"ok":true}');

    // The retry, once due, is attempt 2; the first attempt no longer shows a due time.
    await ctx.advanceClock(61);
    await eventually(async () => (await deliveries(failing)).json().data.length === 2, 15_000, 'the second attempt');
    const [second, first] = (await deliveries(failing)).json().data;
    expect(second).toMatchObject({ sequence: 1, attempt: 2, success: false });
    expect(first.next_attempt_at).toBeNull();
    await eventually(async () => (await deliveries(failing)).json().data[0].next_attempt_at !== null, 15_000, 'the next retry scheduled');

    // Scope: neither integration ever sees the other's attempts.
    const mine = new Set((await deliveries(ok)).json().data.map((a: { id: number }) => a.id));
    for (const a of (await deliveries(failing)).json().data) expect(mine.has(a.id)).toBe(false);
    const foreignIds = (await attemptsOf(ctx, failing.id)).map((a) => a.id);
    const okPage = (await deliveries(ok, `?before=${Math.max(...foreignIds) + 1}&limit=200`)).json().data;
    expect(okPage.every((a: { id: number }) => !foreignIds.includes(a.id))).toBe(true);
    expect(okPage).toHaveLength(3);
  });

  it('pages with before and limit; pings are left out', async () => {
    const i = await ctx.createIntegration({ webhook: { url: `${receiver.url}/ok` } });
    await recordEvents(ctx, i.id, 5);
    await eventually(async () => (await attemptsOf(ctx, i.id)).filter((a) => a.success).length === 5, 15_000, 'five deliveries');
    // A ping in the log (as a paused integration's probe would leave) is not the partner's event.
    await ctx.deps.db
      .insertInto('delivery_attempts')
      .values({
        integration_id: i.id,
        event_id: '01PING0000000000000000000A',
        event_type: 'ping',
        sequence: null,
        attempt: null,
        attempted_at: ctx.deps.clock.now(),
        duration_ms: 1,
        status_code: 200,
        error: null,
        success: true,
        response_body: '',
        worker: 'test',
      })
      .execute();
    const seen: number[] = [];
    let query = '?limit=2';
    for (let pages = 0; pages < 5; pages++) {
      const page = (await deliveries(i, query)).json();
      seen.push(...page.data.map((a: { sequence: number }) => a.sequence));
      if (!page.cursor.has_more) break;
      query = `?limit=2&before=${page.cursor.next_before}`;
    }
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    // An integration without attempts: an empty page.
    const quiet = await ctx.createIntegration();
    expect((await deliveries(quiet)).json()).toMatchObject({ success: true, data: [], cursor: { next_before: null, has_more: false } });
  });

  it('refuses bad paging with 422 and wrong credentials as every route does', async () => {
    const i = await ctx.createIntegration();
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?before=0', '?before=-1']) {
      const res = await deliveries(i, query);
      expect(res.statusCode, query).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
    }
    expect((await ctx.api(null, 'GET', '/deliveries')).json()).toMatchObject(failure('UNAUTHENTICATED'));
  });
});
