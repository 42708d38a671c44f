/**
 * Events applied per second by the SDK's sync engine with its file store.
 *
 * - webhook path: `engine.receive(event)` one event at a time, as a receiver does (the service
 *   sends one delivery at a time): one journal append and one fdatasync per event. Baseline: a
 *   bare loop appending the same event bytes to a file with one fdatasync each, the floor any
 *   durable per-event store has on this disk.
 * - replay path: `engine.catchUp()` over GET /events pages of 200 (one commit per page).
 *   Baseline: the same replay into the in-memory store (the engine's own CPU cost).
 *
 * The events have the service's shapes: month-windowed availability (3 units), rates and
 * restrictions of 4 properties, and booking.changed; the engine reads them from an in-process
 * SyncApi so the figures are the engine's and the disk's, not HTTP's.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileStore } from '../../sdk/src/store/file.js';
import { MemoryStore } from '../../sdk/src/store/memory.js';
import type { SyncStore } from '../../sdk/src/store/store.js';
import type { EventEnvelope, SyncApi } from '../../sdk/src/sync/api.js';
import { addDays, eachDate, lastOfMonth } from '../../sdk/src/sync/dates.js';
import { SyncEngine } from '../../sdk/src/sync/engine.js';
import { round, type Row } from '../lib/report.js';

const EVENTS = 3000;
/** The webhook path stops after this long even if events are left (a slow disk). */
const WEBHOOK_SECONDS = 6;

function buildEvents(count: number): EventEnvelope[] {
  const events: EventEnvelope[] = [];
  const start = '2027-01-01';
  let sequence = 0;
  const units = (p: number) => [1, 2, 3].map((u) => ({ inventory_id: p * 10 + u, external_unit_id: `P${p}-U${u}`, name: `Room ${u}` }));
  for (let round = 0; events.length < count; round++) {
    for (let p = 1; p <= 4 && events.length < count; p++) {
      const from = addDays(start, (round % 12) * 31);
      const window = { from: `${from.slice(0, 7)}-01`, to: lastOfMonth(from) };
      const nights = eachDate(window.from, window.to);
      const base = {
        origin: 'doorloom',
        version: '2026-09',
        created_at: '2026-11-25T10:00:00+05:30',
        integration: { id: 1, slug: 'bench' },
        property: { doorloom_id: p, external_id: `P${p}` },
        window,
      };
      const kinds: Array<[string, unknown]> = [
        [
          'availability.changed',
          {
            total_units: 3,
            units: units(p).map((u, i) => ({ ...u, unavailable: nights.filter((_, n) => (n + round + i) % 7 === 0) })),
            dates: nights.map((date, n) => ({
              date,
              available_units: 3 - ((n + round) % 2),
              total_units: 3,
              is_blocked: false,
              block_scope: null,
              units_cap: null,
            })),
          },
        ],
        [
          'rates.changed',
          {
            currency: 'INR',
            gst_applicable: true,
            price_includes_gst: false,
            meal_plans: [{ code: 'EP', name: 'Room only', adult_price: 0, child_price: 0 }],
            dates: nights.map((date) => ({
              date,
              base_price: 5000 + round,
              per_night_occupancy: 2,
              extra_adult_price: 500,
              extra_child_price: 250,
              source: 'weekday',
            })),
          },
        ],
        [
          'restrictions.changed',
          {
            rules: { min_stay: 1, max_stay: 30, min_advance_days: 0, max_advance_days: 730 },
            dates: nights.map((date) => ({
              date,
              min_stay: 1 + (round % 3),
              max_stay: 30,
              stop_sell: false,
              closed_to_arrival: false,
              closed_to_departure: false,
            })),
          },
        ],
        [
          'booking.changed',
          {
            booking: {
              id: p * 1000 + round,
              external_booking_id: `B-${p}-${round}`,
              revision: 1,
              status: 'confirmed',
              property: { doorloom_id: p, external_id: `P${p}` },
              units: [{ inventory_id: p * 10 + 1, external_unit_id: `P${p}-U1`, adults: 2, children: 0, meal_plan: 'EP' }],
              check_in: window.from,
              check_out: addDays(window.from, 2),
              updated_at: '2026-11-25T10:00:00+05:30',
            },
          },
        ],
      ];
      for (const [type, data] of kinds) {
        if (events.length >= count) break;
        events.push({
          id: `E${++sequence}`,
          type,
          sequence,
          ...base,
          property: type === 'booking.changed' ? null : base.property,
          window: type === 'booking.changed' ? null : window,
          data,
        });
      }
    }
  }
  return events;
}

/** An in-process SyncApi whose GET /events pages the given events. */
function replayApi(events: EventEnvelope[]): SyncApi {
  const fail = () => Promise.reject(new Error('not used by the bench'));
  return {
    me: fail,
    listProperties: fail,
    snapshot: fail,
    listBookings: fail,
    sync: fail,
    async events(after, limit) {
      const page = events.slice(after, after + limit);
      return { events: page, nextAfterSequence: after + page.length, hasMore: after + page.length < events.length };
    },
  };
}

async function webhookPath(store: SyncStore, events: EventEnvelope[]) {
  const engine = new SyncEngine({ api: replayApi(events), store, pollIntervalMs: 0 });
  await engine.load();
  const end = performance.now() + WEBHOOK_SECONDS * 1000;
  const started = performance.now();
  let applied = 0;
  for (const event of events) {
    await engine.receive(event);
    applied++;
    if (performance.now() > end) break;
  }
  const seconds = (performance.now() - started) / 1000;
  await engine.stop();
  return { applied, rate: round(applied / seconds, 0) };
}

async function replayPath(store: SyncStore, events: EventEnvelope[]) {
  const engine = new SyncEngine({ api: replayApi(events), store, pollIntervalMs: 0 });
  await engine.load();
  const started = performance.now();
  await engine.catchUp();
  const seconds = (performance.now() - started) / 1000;
  if (engine.status().applied_through !== events.length) throw new Error(`replay applied ${engine.status().applied_through} of ${events.length}`);
  await engine.stop();
  return { applied: events.length, rate: round(events.length / seconds, 0) };
}

/** The disk's floor: one append and one fdatasync per event, nothing else. */
async function bareFsync(dir: string, events: EventEnvelope[]) {
  const file = await open(path.join(dir, 'bare.log'), 'a');
  const lines = events.map((e) => `${JSON.stringify(e)}\n`);
  const end = performance.now() + WEBHOOK_SECONDS * 1000;
  const started = performance.now();
  let written = 0;
  for (const line of lines) {
    await file.write(line);
    await file.datasync();
    written++;
    if (performance.now() > end) break;
  }
  const seconds = (performance.now() - started) / 1000;
  await file.close();
  return { written, rate: round(written / seconds, 0) };
}

export async function sdkRows(log: (line: string) => void): Promise<Row[]> {
  const events = buildEvents(EVENTS);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-bench-sdk-'));
  try {
    const bare = await bareFsync(dir, events);
    const fileStore = new FileStore(path.join(dir, 'webhook'));
    const webhook = await webhookPath(fileStore, events);
    await fileStore.close();
    const replayStore = new FileStore(path.join(dir, 'replay'));
    const replay = await replayPath(replayStore, events);
    await replayStore.close();
    const memory = await replayPath(new MemoryStore(), events);
    log(`sdk: webhook ${webhook.rate}/s (bare fsync ${bare.rate}/s), replay ${replay.rate}/s (memory ${memory.rate}/s)`);
    const bytes = Math.round(events.reduce((n, e) => n + JSON.stringify(e).length, 0) / events.length);
    return [
      {
        item: 15,
        scenario: 'sync engine: webhook events applied, file store',
        engine: 'sdk',
        value: webhook.rate,
        unit: 'events/s',
        baseline: bare.rate,
        ratio: round(webhook.rate / bare.rate),
        note: `one journal append + fdatasync per event; baseline: bare append + fdatasync of the same bytes; ${webhook.applied} events of ~${bytes} B`,
        detail: { webhook, bare },
      },
      {
        item: 15,
        scenario: 'sync engine: replayed events applied, file store',
        engine: 'sdk',
        value: replay.rate,
        unit: 'events/s',
        baseline: memory.rate,
        ratio: round(replay.rate / memory.rate),
        note: `GET /events pages of 200, one commit per page; baseline: the same replay into the memory store; ${events.length} events`,
        detail: { replay, memory },
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
