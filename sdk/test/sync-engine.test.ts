import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext } from '../../test/helpers/context.js';
import { FileStore } from '../src/store/file.js';
import { MemoryStore } from '../src/store/memory.js';
import type { SyncApi } from '../src/sync/api.js';
import type { Change } from '../src/sync/mirror.js';
import { addDays, closeService, differences, kolkataDate, newEngine, openService, serviceApi, startReceiver, until, type Service } from './sync-helpers.js';

let ctx: TestContext;
let service: Service;
const HORIZON = 100;

beforeAll(async () => {
  ({ ctx, service } = await openService());
});
afterAll(() => closeService({ ctx, service }));

const today = () => kolkataDate(ctx.deps.clock.now());

async function createProperty(apiKey: string, externalId: string, units = 2) {
  const res = await ctx.api(
    apiKey,
    'POST',
    '/properties',
    {
      external_id: externalId,
      name: `Villa ${externalId}`,
      description: 'For sync tests.',
      address: { address_line_1: '1 Sync Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: units, washrooms: 1 },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: Array.from({ length: units }, (_, i) => ({ name: `Room ${i + 1}`, external_id: `${externalId}-U${i + 1}` })),
    },
    { 'idempotency-key': `create-${externalId}-${Date.now()}` },
  );
  if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
  return res.json().data as { doorloom_id: number; units: Array<{ inventory_id: number }> };
}

describe('SyncEngine cold start', () => {
  it('keeps each night by its own sequence when the 92-day snapshots carry different watermarks', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const property = await createProperty(integration.apiKey, 'COLD-1');
    const api = serviceApi(service, integration);

    // Between the first and second availability snapshot the host blocks nights on both sides of
    // the 92-night boundary: the first window's snapshot misses the block (its events carry
    // sequences above its watermark), the second includes it (watermark above those events).
    const blockFrom = addDays(today(), 80);
    const blockTo = addDays(today(), 100);
    // (the engine takes several snapshots at once: the availability ones are put in a row here)
    let availability: Promise<unknown> = Promise.resolve();
    const watermarks: number[] = [];
    const racing: SyncApi = {
      ...api,
      async snapshot(kind, id, from, to) {
        if (kind !== 'availability') return api.snapshot(kind, id, from, to);
        const turn = availability.then(async () => {
          const result = await api.snapshot(kind, id, from, to);
          watermarks.push(result.sequence);
          if (watermarks.length === 1) {
            const res = await ctx.staff('PUT', `/properties/${id}/calendar`, { from: blockFrom, to: blockTo, block_scope: 'everywhere' });
            expect(res.statusCode).toBe(200);
          }
          return result;
        });
        availability = turn.catch(() => {});
        return turn;
      },
    };
    const changes: Change[] = [];
    const engine = newEngine(racing, new MemoryStore(), { onChange: (c) => void changes.push(c) });
    await engine.start();

    expect(watermarks.length).toBe(2);
    expect(watermarks[1]).toBeGreaterThan(watermarks[0]);
    // a night of the first window inside the block: its snapshot said free, replay says blocked
    const night = engine.window('availability', property.doorloom_id, blockFrom, blockFrom)!;
    expect(night.dates).toEqual([expect.objectContaining({ date: blockFrom, is_blocked: true, block_scope: 'everywhere', available_units: 0 })]);
    expect(await differences(ctx, integration, engine, HORIZON)).toEqual([]);
    expect(engine.status().applied_through).toBe((await ctx.api(integration.apiKey, 'GET', '/me')).json().data.webhook.last_sequence);
    // the application was told which nights changed, and by which sequence
    const blocked = changes.filter((c) => c.kind === 'availability' && c.nights?.includes(blockFrom));
    expect(blocked.length).toBeGreaterThan(0);
    await engine.stop();
  });

  it('applies webhooks that arrive during the backfill, and converges with the receiver up first', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const store = new MemoryStore();
    const engine = newEngine(serviceApi(service, integration), store);
    await engine.load();
    const receiver = await startReceiver(ctx, integration, () => engine);
    try {
      const res = await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: receiver.url } });
      expect(res.statusCode).toBe(200);
      const first = await createProperty(integration.apiKey, 'WARM-1');
      // the receiver has applied events before the engine backfills anything
      await until(() => engine.status().applied_through > 0, 15_000, 'webhooks before the backfill');
      const backfill = engine.start();
      await createProperty(integration.apiKey, 'WARM-2');
      await backfill;
      const last = async () => (await ctx.api(integration.apiKey, 'GET', '/me')).json().data.webhook.last_sequence as number;
      await until(async () => engine.status().applied_through === (await last()), 20_000, 'the mirror to reach the last sequence');
      expect(engine.meta.above).toEqual([]);
      expect(receiver.received()).toBeGreaterThan(0);
      expect(engine.properties().map((p) => p.doorloom_id)).toContain(first.doorloom_id);
      expect(await differences(ctx, integration, engine, HORIZON)).toEqual([]);
    } finally {
      await engine.stop();
      await receiver.close();
    }
  });

  it('persists to a file store: a new engine on the same directory carries on without a backfill', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-sync-'));
    try {
      const integration = await ctx.createIntegration({ horizon_days: HORIZON });
      await createProperty(integration.apiKey, 'FILE-1');
      const api = serviceApi(service, integration);
      let store = new FileStore(dir);
      let engine = newEngine(api, store);
      await engine.start();
      await engine.stop();
      await store.close();

      let snapshots = 0;
      const counting: SyncApi = { ...api, snapshot: (...args) => (snapshots++, api.snapshot(...args)) };
      const property = await createProperty(integration.apiKey, 'FILE-2');
      store = new FileStore(dir, { compactBytes: 64 * 1024 });
      engine = newEngine(counting, store);
      await engine.start();
      expect(snapshots).toBe(0); // replay, not a new backfill
      expect(engine.properties().map((p) => p.doorloom_id)).toContain(property.doorloom_id);
      expect(await differences(ctx, integration, engine, HORIZON)).toEqual([]);
      await engine.stop();
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('drops a property whose coverage ended (no event says so) and the host bookings seen only through it', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const own = await createProperty(integration.apiKey, 'COVER-1');
    const hosted = await ctx.staff('POST', `/brands/${integration.brandId}/properties`, {
      name: 'Host Villa',
      description: 'Made by the host.',
      address: { address_line_1: '2 Host Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: 1, washrooms: 1 },
      occupancy: { max_guests: 2 },
      pricing: { weekday: { base_price: 3000 }, weekend: { base_price: 4000 } },
    });
    expect(hosted.statusCode).toBe(201);
    const hostId = hosted.json().data.doorloom_id as number;
    expect((await ctx.staff('PUT', `/integrations/${integration.id}/coverage/${hostId}`, { external_id: 'COVER-H' })).statusCode).toBeLessThan(300);
    const hostBooking = await ctx.staff('POST', `/properties/${hostId}/bookings`, {
      units: [{ adults: 2 }],
      check_in: addDays(today(), 3),
      check_out: addDays(today(), 5),
      guest: { name: 'Host Guest' },
      pricing: { total: 6000 },
    });
    expect(hostBooking.statusCode).toBe(201);

    const engine = newEngine(serviceApi(service, integration), new MemoryStore());
    await engine.start();
    expect(
      engine
        .properties()
        .map((p) => p.doorloom_id)
        .sort(),
    ).toEqual([own.doorloom_id, hostId].sort());
    expect(engine.bookings().map((b) => b.id)).toEqual([hostBooking.json().data.id]);

    expect((await ctx.staff('DELETE', `/integrations/${integration.id}/coverage/${hostId}`)).statusCode).toBe(200);
    await engine.reconcileProperties();
    expect(engine.properties().map((p) => p.doorloom_id)).toEqual([own.doorloom_id]);
    expect(engine.window('rates', hostId, today(), today())).toBeNull();
    expect(await differences(ctx, integration, engine, HORIZON)).toEqual([]);
    await engine.stop();
  });

  // Last in this file: it moves the shared clock a month ahead.
  it('rebuilds from snapshots when its replay cursor is past retention (410 CURSOR_EXPIRED)', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const property = await createProperty(integration.apiKey, 'OLD-1');
    const api = serviceApi(service, integration);
    const store = new MemoryStore();
    let engine = newEngine(api, store);
    await engine.start();
    const before = engine.status().applied_through;
    await engine.stop();

    await ctx.staff('PUT', `/properties/${property.doorloom_id}/rates`, { from: addDays(today(), 3), to: addDays(today(), 5), base_price: 9100 });
    await ctx.advanceClock(31 * 86_400);
    for (const job of ['horizon-roll', 'retention']) expect((await ctx.staff('POST', `/jobs/${job}/run`)).statusCode).toBe(200);
    await ctx.staff('PUT', `/properties/${property.doorloom_id}/calendar`, { from: addDays(today(), 1), to: addDays(today(), 2), block_scope: 'ota_only' });
    const expired = await ctx.api(integration.apiKey, 'GET', `/events?after_sequence=${before}`);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().code).toBe('CURSOR_EXPIRED');

    let snapshots = 0;
    engine = newEngine({ ...api, snapshot: (...args) => (snapshots++, api.snapshot(...args)) }, store);
    await engine.start();
    expect(snapshots).toBeGreaterThan(0);
    expect(engine.status().applied_through).toBe((await ctx.api(integration.apiKey, 'GET', '/me')).json().data.webhook.last_sequence);
    expect(await differences(ctx, integration, engine, HORIZON)).toEqual([]);
    await engine.stop();
  });
});
