import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import * as deliveryMarksMigration from '../../src/db/migrations/2026_11_28_0501_delivery_marks.js';
import { formatTimestamp } from '../../src/lib/time.js';
import { writeOutcomes } from '../../src/modules/webhooks/webhooks.sql.js';
import { backlogByIntegration, backlogMovements } from '../../src/modules/webhooks/webhooks.stats.sql.js';
import { startDeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { attemptsOf, deliveryRows, eventually, recordEvents } from './helpers.js';

// A successful delivery leaves the event's row alone: the integration's in-order cursor says the
// event was delivered, its successful attempt says when. Every reader (replay, the staff event
// list and its filters, the backlog figures) shows the same delivery as when the row was marked.

let ctx: TestContext;
let receiver: Receiver;
let failFirst = 0;

beforeAll(async () => {
  ctx = await createTestContext();
  receiver = await startReceiver((request) => {
    if (request.path === '/cursor' && failFirst > 0) {
      failFirst -= 1;
      return { status: 503 };
    }
    return { status: 200 };
  });
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

async function replay(i: TestIntegration) {
  const res = await ctx.api(i.apiKey, 'GET', '/events?limit=200');
  expect(res.statusCode).toBe(200);
  return res.json().data as Array<{ sequence: number; delivery: { status: string; attempts: number; delivered_at: string | null } }>;
}

const rawRows = (id: number) => ctx.deps.db.selectFrom('events').selectAll().where('integration_id', '=', id).orderBy('sequence').execute();
const marksOf = (id: number) =>
  ctx.deps.db.selectFrom('delivery_marks').select(['sequence', 'skipped', 'failures']).where('integration_id', '=', id).orderBy('sequence').execute();

const cursorOf = async (id: number) =>
  Number((await ctx.deps.db.selectFrom('webhook_delivery_state').select('cursor').where('integration_id', '=', id).executeTakeFirstOrThrow()).cursor);

describe('delivery by cursor', () => {
  it('shows delivered events as delivered, with their attempts and the answer time of their successful attempt, without writing their rows', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/cursor` } });
    await recordEvents(ctx, integration.id, 5);
    const recorded = await rawRows(integration.id);
    const worker = startDeliveryWorker(ctx.deps, { pollMs: 50 });
    try {
      failFirst = 1; // the first event fails once, then everything goes
      // recorded, not only received: the retry's wait starts from the clock at the recording
      await eventually(async () => (await attemptsOf(ctx, integration.id)).length >= 1, 10_000, 'the failed attempt');
      await ctx.advanceClock(60); // past the first retry's wait
      await eventually(async () => (await cursorOf(integration.id)) === 5, 15_000, 'all delivered');
    } finally {
      await worker.stop();
    }

    // the rows: as recorded; the failure is counted on the first event's mark
    expect(await rawRows(integration.id)).toEqual(recorded);
    expect((await marksOf(integration.id)).map((m) => [Number(m.sequence), m.skipped, m.failures])).toEqual([[1, false, 1]]);

    const successes = new Map(
      (
        await ctx.deps.db
          .selectFrom('delivery_attempts')
          .select(['sequence', 'attempted_at', 'duration_ms'])
          .where('integration_id', '=', integration.id)
          .where('success', '=', true)
          .execute()
      ).map((a) => [Number(a.sequence), a]),
    );
    expect((await attemptsOf(ctx, integration.id)).map((a) => a.success)).toEqual([false, true, true, true, true, true]);
    const rows = await replay(integration);
    expect(rows.map((r) => [r.sequence, r.delivery.status, r.delivery.attempts])).toEqual([
      [1, 'delivered', 2],
      [2, 'delivered', 1],
      [3, 'delivered', 1],
      [4, 'delivered', 1],
      [5, 'delivered', 1],
    ]);
    for (const r of rows) {
      const attempt = successes.get(r.sequence)!;
      expect(r.delivery.delivered_at).toBe(formatTimestamp(new Date(attempt.attempted_at).getTime() + attempt.duration_ms));
    }
    expect(await backlogByIntegration(ctx.deps.db, [integration.id])).toEqual(new Map());
  });

  it('shows events skipped on the way as skipped, and splits the staff list by status', async () => {
    const integration = await ctx.createIntegration();
    await recordEvents(ctx, integration.id, 6);
    await ctx.deps.db
      .updateTable('events')
      .set({ created_at: new Date(ctx.deps.clock.nowMs() - 10_000) })
      .where('integration_id', '=', integration.id)
      .execute();
    const at = new Date(ctx.deps.clock.nowMs() - 5_000);
    const answered = new Date(ctx.deps.clock.nowMs() - 2_000);
    const attempt = (sequence: number, attemptedAt: Date, durationMs: number) => ({
      integration_id: integration.id,
      event_id: `e${sequence}`,
      event_type: 'availability.changed',
      sequence,
      attempt: 1,
      attempted_at: attemptedAt,
      duration_ms: durationMs,
      status_code: 200,
      error: null,
      success: true,
      response_body: null,
      worker: 'test',
    });
    // 1–2 delivered, 3 found unsubscribed when its turn came; then 4 delivered; 5–6 still to deliver
    await writeOutcomes(ctx.deps.db, {
      integrationId: integration.id,
      delivered: [1, 2],
      skipped: [3],
      attempts: [attempt(1, at, 0), attempt(2, at, 0)],
      touchSuccessAt: null,
    });
    await writeOutcomes(ctx.deps.db, {
      integrationId: integration.id,
      delivered: [4],
      skipped: [],
      attempts: [attempt(4, answered, 250)],
      touchSuccessAt: null,
    });
    expect(await cursorOf(integration.id)).toBe(4);

    const rows = await replay(integration);
    expect(rows.map((r) => r.delivery)).toEqual([
      { status: 'delivered', attempts: 1, delivered_at: formatTimestamp(at) },
      { status: 'delivered', attempts: 1, delivered_at: formatTimestamp(at) },
      { status: 'skipped', attempts: 0, delivered_at: null },
      { status: 'delivered', attempts: 1, delivered_at: formatTimestamp(answered.getTime() + 250) },
      { status: 'pending', attempts: 0, delivered_at: null },
      { status: 'pending', attempts: 0, delivered_at: null },
    ]);
    const listed = async (status: string) =>
      ((await ctx.staff('GET', `/integrations/${integration.id}/events?delivery_status=${status}`)).json().data as Array<{ sequence: number }>).map(
        (r) => r.sequence,
      );
    expect(await listed('delivered')).toEqual([1, 2, 4]);
    expect(await listed('skipped')).toEqual([3]);
    expect(await listed('pending')).toEqual([5, 6]);

    const backlog = (await backlogByIntegration(ctx.deps.db, [integration.id])).get(integration.id);
    const fifth = await ctx.deps.db
      .selectFrom('events')
      .select('created_at')
      .where('integration_id', '=', integration.id)
      .where('sequence', '=', 5)
      .executeTakeFirstOrThrow();
    expect(backlog).toEqual({ undelivered: 2, oldestAt: new Date(fifth.created_at), oldestBookingAt: null });

    // the backlog at a moment: recorded before it, not delivered by then (skipped never counts; 1 and 2 were answered 5 s ago)
    const now = ctx.deps.clock.nowMs();
    const movements = await backlogMovements(ctx.deps.db, integration.id, new Date(now - 3_000), new Date(now + 60_000));
    expect(movements.atStart).toBe(3); // 4 (answered 1.75 s before now), 5 and 6
    const later = await backlogMovements(ctx.deps.db, integration.id, new Date(now - 1_000), new Date(now + 60_000));
    expect(later.atStart).toBe(2);
    expect([...later.delivered.values()].reduce((a, b) => a + b, 0)).toBe(0);
    expect([...movements.delivered.values()].reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('takes off undelivered only the delivered events still there above the cursor', async () => {
    const integration = await ctx.createIntegration();
    await recordEvents(ctx, integration.id, 4);
    // retention removed events 1 and 2 while they were on their way (it takes them off the count)
    await ctx.deps.db.deleteFrom('events').where('integration_id', '=', integration.id).where('sequence', '<=', 2).execute();
    await ctx.deps.db.updateTable('webhook_delivery_state').set({ undelivered: 2 }).where('integration_id', '=', integration.id).execute();
    const attempt = (sequence: number) => ({
      integration_id: integration.id,
      event_id: `e${sequence}`,
      event_type: 'availability.changed',
      sequence,
      attempt: 1,
      attempted_at: new Date(ctx.deps.clock.nowMs()),
      duration_ms: 5,
      status_code: 200,
      error: null,
      success: true,
      response_body: null,
      worker: 'test',
    });
    await writeOutcomes(ctx.deps.db, {
      integrationId: integration.id,
      delivered: [1, 2, 3],
      skipped: [],
      attempts: [1, 2, 3].map(attempt),
      touchSuccessAt: null,
    });
    const state = await ctx.deps.db
      .selectFrom('webhook_delivery_state')
      .select(['undelivered', 'cursor'])
      .where('integration_id', '=', integration.id)
      .executeTakeFirstOrThrow();
    expect({ undelivered: Number(state.undelivered), cursor: Number(state.cursor) }).toEqual({ undelivered: 1, cursor: 3 });
    expect((await deliveryRows(ctx.deps.db, integration.id)).map((r) => [r.sequence, r.delivery_status])).toEqual([
      [3, 'delivered'],
      [4, 'pending'],
    ]);
  });

  it('moves the delivery facts of rows written by earlier releases into marks (the delivery_marks migration, down and up)', async () => {
    const integration = await ctx.createIntegration();
    await recordEvents(ctx, integration.id, 4);
    await writeOutcomes(ctx.deps.db, { integrationId: integration.id, delivered: [], skipped: [3], attempts: [], touchSuccessAt: null });
    await ctx.deps.db.updateTable('webhook_delivery_state').set({ cursor: 3 }).where('integration_id', '=', integration.id).execute();
    await deliveryMarksMigration.down(ctx.deps.db);
    // as an earlier release left them: 1 marked delivered after a failure, 2 delivered by cursor,
    // 3 skipped on the way, 4 pending with two failures
    await sql`update events set delivery_status = 'delivered', attempts = 2 where integration_id = ${integration.id} and sequence = 1`.execute(ctx.deps.db);
    await sql`update events set attempts = 2 where integration_id = ${integration.id} and sequence = 4`.execute(ctx.deps.db);
    expect(
      (
        await sql<{ s: string }>`select delivery_status as s from events where integration_id = ${integration.id} order by sequence`.execute(ctx.deps.db)
      ).rows.map((r) => r.s),
    ).toEqual(['delivered', 'pending', 'skipped', 'pending']);
    await deliveryMarksMigration.up(ctx.deps.db);

    expect((await rawRows(integration.id)).map((r) => r.delivery_status)).toEqual(['pending', 'pending', 'skipped', 'pending']);
    expect((await marksOf(integration.id)).map((m) => [Number(m.sequence), m.skipped, m.failures])).toEqual([
      [1, false, 1],
      [4, false, 2],
    ]);
    expect((await replay(integration)).map((r) => [r.sequence, r.delivery.status, r.delivery.attempts])).toEqual([
      [1, 'delivered', 2],
      [2, 'delivered', 1],
      [3, 'skipped', 0],
      [4, 'pending', 2],
    ]);
  });
});
