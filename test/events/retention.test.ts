import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_DAYS } from '../../src/modules/events/events.retention.js';
import { runRetention } from '../../src/modules/jobs/jobs.daily.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { recordEvents } from '../webhooks/helpers.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

const DAY_MS = 86_400_000;
const sequencesOf = async (integrationId: number) =>
  (await ctx.deps.db.selectFrom('events').select('sequence').where('integration_id', '=', integrationId).orderBy('sequence').execute()).map((r) =>
    Number(r.sequence),
  );
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

describe('retention in bounded chunks', () => {
  it('deletes each expired prefix over many chunks, keeps the log a gap-free suffix, and only expired attempts go', async () => {
    const straddled = await ctx.createIntegration();
    const fresh = await ctx.createIntegration();
    const gone = await ctx.createIntegration();
    await recordEvents(ctx, straddled.id, 50);
    await recordEvents(ctx, fresh.id, 20);
    await recordEvents(ctx, gone.id, 14);

    const now = ctx.deps.clock.nowMs();
    const cutoff = now - RETENTION_DAYS * DAY_MS;
    const old = new Date(cutoff - DAY_MS);
    // 1–40 expired, except 38, recorded a millisecond after the cutoff (its created_at was read
    // before 37's sequence was allocated); 41–50 are fresh
    await ctx.deps.db.updateTable('events').set({ created_at: old }).where('integration_id', '=', straddled.id).where('sequence', '<=', 40).execute();
    await ctx.deps.db
      .updateTable('events')
      .set({ created_at: new Date(cutoff + 1) })
      .where('integration_id', '=', straddled.id)
      .where('sequence', '=', 38)
      .execute();
    await ctx.deps.db.updateTable('events').set({ created_at: old }).where('integration_id', '=', gone.id).execute();

    // attempts: 25 in id order, the first 20 expired except the 5th
    const attempt = (at: Date, n: number) => ({
      integration_id: straddled.id,
      event_id: `evt_${n}`,
      event_type: 'availability.changed',
      sequence: n,
      attempt: 1,
      attempted_at: at,
      duration_ms: 1,
      status_code: 200,
      error: null,
      success: true,
      response_body: '',
      worker: 'test',
    });
    await ctx.deps.db
      .insertInto('delivery_attempts')
      .values(range(1, 25).map((n) => attempt(n <= 20 && n !== 5 ? old : new Date(now), n)))
      .execute();

    // delivery marks: one made before the cutoff, one after
    await ctx.deps.db
      .insertInto('delivery_marks')
      .values([
        { integration_id: straddled.id, sequence: 2, failures: 1, marked_at: old },
        { integration_id: straddled.id, sequence: 45, failures: 1, marked_at: new Date(now) },
      ])
      .execute();

    // chunks of 7 rows: 40 expired rows of one integration take six chunks, the last one partly
    const result = await runRetention(ctx.deps, 7);
    expect(result.events).toBe(40 + 14);
    expect(result.delivery_attempts).toBe(19);
    expect(result.delivery_marks).toBe(1);
    expect(
      (await ctx.deps.db.selectFrom('delivery_marks').select('sequence').where('integration_id', '=', straddled.id).execute()).map((m) => Number(m.sequence)),
    ).toEqual([45]);
    expect(await sequencesOf(straddled.id)).toEqual(range(41, 50));
    expect(await sequencesOf(fresh.id)).toEqual(range(1, 20));
    expect(await sequencesOf(gone.id)).toEqual([]);
    const attempts = await ctx.deps.db.selectFrom('delivery_attempts').select('sequence').where('integration_id', '=', straddled.id).orderBy('id').execute();
    expect(attempts.map((a) => a.sequence)).toEqual([5, 21, 22, 23, 24, 25]);

    // a second run finds nothing more
    expect(await runRetention(ctx.deps, 7)).toMatchObject({ events: 0, delivery_attempts: 0 });
  });

  it('stops at a chunk that keeps unexpired events, even when an expired one follows', async () => {
    const i = await ctx.createIntegration();
    await recordEvents(ctx, i.id, 30);
    const cutoff = ctx.deps.clock.nowMs() - RETENTION_DAYS * DAY_MS;
    // 1–9 expired, 10 not, 11 expired again (a straggler): the retained log must stay a suffix
    await ctx.deps.db
      .updateTable('events')
      .set({ created_at: new Date(cutoff - 1000) })
      .where('integration_id', '=', i.id)
      .where('sequence', 'in', [...range(1, 9), 11])
      .execute();
    const result = await runRetention(ctx.deps, 5);
    // chunk 1–5: all gone; chunk 6–10: 6–9 gone, 10 kept, so the run stops there
    expect(result.events).toBe(9);
    expect(await sequencesOf(i.id)).toEqual(range(10, 30));
  });
});
