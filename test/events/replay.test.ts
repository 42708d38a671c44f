import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import type { Receiver } from '../helpers/receiver.js';
import { closeDeliveryContext, eventually, openReceiverContext, recordEvents } from '../webhooks/helpers.js';

let ctx: TestContext;
let receiver: Receiver;

beforeAll(async () => {
  ({ ctx, receiver } = await openReceiverContext());
});
afterAll(() => closeDeliveryContext({ ctx, receiver }));

const replay = (i: TestIntegration, query = '') => ctx.api(i.apiKey, 'GET', `/events${query}`);

/** Walks the whole replay with the documented loop. */
async function replayAll(i: TestIntegration, query = '', limit = 200) {
  const rows = [];
  let after = 0;
  for (let pages = 0; pages < 100; pages++) {
    const res = await replay(i, `?after_sequence=${after}&limit=${limit}${query}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    rows.push(...body.data);
    after = body.cursor.next_after_sequence;
    if (!body.cursor.has_more) return rows;
  }
  throw new Error('replay did not end');
}

describe('GET /events', () => {
  it('validates its parameters', async () => {
    const i = await ctx.createIntegration();
    for (const [query, key] of [
      ['?limit=201', 'limit'],
      ['?limit=0', 'limit'],
      ['?limit=ten', 'limit'],
      ['?after_sequence=-1', 'after_sequence'],
      ['?after_sequence=1.5', 'after_sequence'],
      ['?types=booking.changed,nonsense', 'types'],
      ['?types=ping', 'types'],
    ]) {
      const res = await replay(i, query);
      expect(res.statusCode, query).toBe(422);
      expect(res.json(), query).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { [key]: expect.any(Array) } });
    }
    const empty = await replay(i);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ success: true, message: expect.any(String), data: [], cursor: { next_after_sequence: 0, has_more: false } });
    expect((await ctx.api(null, 'GET', '/events')).statusCode).toBe(401);
  });

  it('pages through the log in order with the cursor, default 100 a page, and filters by type', async () => {
    const i = await ctx.createIntegration();
    const other = await ctx.createIntegration();
    await recordEvents(ctx, i.id, 150, 'availability.changed');
    await recordEvents(ctx, i.id, 100, 'rates.changed');
    await recordEvents(ctx, other.id, 3);

    const first = await replay(i);
    const body = first.json();
    expect(body.data).toHaveLength(100);
    expect(body.cursor).toEqual({ next_after_sequence: 100, has_more: true });
    expect(body.pagination).toBeUndefined();
    const row = body.data[0];
    expect(row).toEqual({
      sequence: 1,
      event: expect.objectContaining({ sequence: 1, type: 'availability.changed', integration: { id: i.id, slug: i.slug }, version: '2026-09' }),
      delivery: { status: 'pending', attempts: 0, delivered_at: null },
    });

    const all = await replayAll(i);
    expect(all.map((r) => r.sequence)).toEqual(Array.from({ length: 250 }, (_, k) => k + 1));
    const last = await replay(i, '?after_sequence=250');
    expect(last.json()).toMatchObject({ data: [], cursor: { next_after_sequence: 250, has_more: false } });

    const rates = await replayAll(i, '&types=rates.changed', 30);
    expect(rates.map((r) => r.sequence)).toEqual(Array.from({ length: 100 }, (_, k) => k + 151));
    const short = await replay(i, '?types=rates,availability&limit=5&after_sequence=148');
    expect(short.json().data.map((r: { sequence: number }) => r.sequence)).toEqual([149, 150, 151, 152, 153]);

    // scope: the other integration's log is its own
    const theirs = await replayAll(other);
    expect(theirs.map((r) => r.event.integration.id)).toEqual([other.id, other.id, other.id]);
  });

  it('replays exactly the stream that was delivered, with delivery state', async () => {
    const i = await ctx.createIntegration({ webhook: { url: `${receiver.url}/replay`, event_types: ['availability.changed', 'inventory.changed'] } });
    const worker: DeliveryWorker = startDeliveryWorker(ctx.deps, { pollMs: 200 });
    try {
      await recordEvents(ctx, i.id, 20, 'availability.changed', (k) => ({ k, price: 1500.5 }));
      await recordEvents(ctx, i.id, 2, 'rates.changed');
      await recordEvents(ctx, i.id, 5, 'inventory.changed');
      await receiver.waitFor(() => receiver.of(i.slug).length === 25);
      await eventually(async () => (await ctx.api(i.apiKey, 'GET', '/me')).json().data.webhook.undelivered_events === 0);
    } finally {
      await worker.stop();
    }
    const rows = await replayAll(i);
    const delivered = rows.filter((r) => r.delivery.status === 'delivered');
    expect(delivered.map((r) => r.event)).toEqual(receiver.of(i.slug).map((r) => JSON.parse(r.body)));
    expect(delivered.map((r) => JSON.stringify(r.event))).toEqual(receiver.of(i.slug).map((r) => r.body));
    expect(rows.filter((r) => r.delivery.status === 'skipped').map((r) => r.sequence)).toEqual([21, 22]);
    for (const r of delivered) {
      expect(r.delivery.attempts).toBe(1);
      expect(r.delivery.delivered_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/);
    }
  });

  it('answers 410 CURSOR_EXPIRED once retention removed events after the cursor', async () => {
    const old = await ctx.createIntegration();
    const idle = await ctx.createIntegration();
    await recordEvents(ctx, old.id, 10);
    await recordEvents(ctx, idle.id, 4);
    // an idempotency record and an attempt that age out too
    const now = ctx.deps.clock.now();
    await ctx.deps.db
      .insertInto('idempotency_keys')
      .values({
        integration_id: old.id,
        key: 'retention-test-key',
        fingerprint: 'x',
        request_method: 'POST',
        request_path: '/api/integrations/v1/properties',
        state: 'completed',
        claim_token: 't',
        claimed_at: now,
        created_at: now,
        expires_at: new Date(now.getTime() + 24 * 3600 * 1000),
        response_status: 201,
        response_content_type: 'application/json',
        response_body: '{}',
      })
      .execute();
    await ctx.deps.db
      .insertInto('delivery_attempts')
      .values({
        integration_id: old.id,
        event_id: 'x',
        event_type: 'ping',
        sequence: null,
        attempt: null,
        attempted_at: now,
        duration_ms: 1,
        status_code: 200,
        error: null,
        success: true,
        response_body: '',
        worker: 'test',
      })
      .execute();

    // 29 days on nothing has expired
    await ctx.advanceClock(29 * 86400);
    let run = await ctx.staff('POST', '/jobs/retention/run');
    expect(run.statusCode).toBe(200);
    expect(run.json().data.result).toMatchObject({ events: 0, delivery_attempts: 0, idempotency_keys: 1 });

    await ctx.advanceClock(2 * 86400);
    await recordEvents(ctx, old.id, 3); // sequences 11–13, fresh
    run = await ctx.staff('POST', '/jobs/retention/run');
    expect(run.json().data).toMatchObject({ job: 'retention', result: { events: expect.any(Number), delivery_attempts: expect.any(Number) } });
    expect(run.json().data.result.events).toBeGreaterThanOrEqual(14);
    expect(await ctx.deps.db.selectFrom('delivery_attempts').select('id').where('integration_id', '=', old.id).execute()).toEqual([]);

    for (const after of [0, 9]) {
      const res = await replay(old, `?after_sequence=${after}`);
      expect(res.statusCode).toBe(410);
      expect(res.json()).toMatchObject({ ...failure('CURSOR_EXPIRED'), errors: { oldest_sequence: 11 } });
    }
    const resumed = await replay(old, '?after_sequence=10');
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().data.map((r: { sequence: number }) => r.sequence)).toEqual([11, 12, 13]);

    // nothing retained at all: only a cursor at the last sequence is still good
    const gone = await replay(idle, '?after_sequence=3');
    expect(gone.statusCode).toBe(410);
    expect(gone.json().errors).toEqual({ oldest_sequence: 5 });
    const caughtUp = await replay(idle, '?after_sequence=4');
    expect(caughtUp.json()).toMatchObject({ data: [], cursor: { next_after_sequence: 4, has_more: false } });
    expect((await ctx.deps.db.selectFrom('idempotency_keys').select('key').where('key', '=', 'retention-test-key').execute()).length).toBe(0);
  });
});
