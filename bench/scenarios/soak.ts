/**
 * Item 11: a mixed soak at about 105 requests/s for BENCH_SOAK_SECONDS (300), rate limits
 * on, webhook deliveries running, against one engine. Reports how fast the storage grows (PGlite:
 * the bytes under DATA_DIR, WAL included; PostgreSQL: pg_database_size of the service's database),
 * the p99 of each 15-second window, and the 5xx count.
 *
 * 21 paced clients (5 requests/s each, one keep-alive connection and loopback source address each)
 * share 63 integrations, three per client, each with a 10-unit property and a webhook to the bench
 * receiver. Per 20 requests of a client: 5 booking creates, 2 cancels of its earlier bookings,
 * 7 availability snapshots (30 nights), 2 rates snapshots, 2 GET /me, 2 GET /events pages. Per
 * integration that is about 37 booking writes, 47 property reads and 10 GET /me a minute: no tier
 * binds, so every answer should be 2xx (409 counts as expected: a stay can collide after a cancel).
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import { bookingBody, createProperty, inParallel, setupIntegration, staff } from '../lib/api.js';
import { keepAliveAgent, percentile, request, type Shot } from '../lib/clients.js';
import type { Service } from '../lib/processes.js';

export const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 300);
const CLIENTS = 21;
const PER_CLIENT = 3;
const RATE_PER_CLIENT = 5;
const UNITS = 10;
const WINDOW_S = 15;

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirBytes(full);
    else if (entry.isFile()) total += (await stat(full).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

interface Target {
  apiKey: string;
  property: string;
  propertyId: number;
}

export interface SoakResult {
  seconds: number;
  requests: number;
  perSecond: number;
  byStatus: Record<string, number>;
  fiveXx: number;
  failures: number;
  /** Paced slots not sent because the client was more than a second behind (the service was slow). */
  skipped: number;
  windows: Array<{ from_s: number; requests: number; p50: number; p99: number; max: number; five_xx: number }>;
  /** Bytes of storage at each minute mark (0 = when the load started). */
  sizes: Array<{ at_s: number; mib: number; wal_mib?: number }>;
  growthMibPerMinute: number;
  /** Growth after the first minute (setup and warm caches excluded). */
  growthMibPerMinuteAfterFirst: number;
  worstP99AfterFirstMinute: number;
  samples: string[];
}

export async function soakRun(
  service: Service,
  engine: 'pglite' | 'postgres',
  receiverBase: string,
  pgUrl: string | null,
  log: (line: string) => void,
): Promise<SoakResult> {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench soak' })).body.data.id;
  const slots = Array.from({ length: CLIENTS * PER_CLIENT }, (_, i) => i);
  const targets: Target[] = await inParallel(slots, 4, async (i) => {
    const integration = await setupIntegration(service.base, { brandId: brand, name: `Bench soak ${i}`, webhook: { url: `${receiverBase}/soak/${i}/` } });
    const property = `S${i}`;
    const created = await createProperty(service.base, integration.apiKey, property, UNITS);
    return { apiKey: integration.apiKey, property, propertyId: created.doorloom_id };
  });
  log(`soak ${engine}: ${targets.length} integrations set up`);

  const size = async () => {
    if (engine === 'pglite') return dirBytes(service.dataDir);
    const client = new pg.Client({ connectionString: pgUrl! });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(`select pg_database_size(current_database())::text as n`)).rows[0].n);
    } finally {
      await client.end();
    }
  };

  const base = new URL(service.base);
  const day0 = addDays(kolkataDate(Date.now()), 3);
  const run = Date.now().toString(36);
  const start = performance.now();
  const end = start + SOAK_SECONDS * 1000;
  const windows = new Map<number, { latencies: number[]; fiveXx: number }>();
  const byStatus: Record<string, number> = {};
  const samples: string[] = [];
  let failures = 0;
  let skipped = 0;
  // PGlite's pg_wal, counted in DATA_DIR: its segments are kept and recycled up to min_wal_size
  const walMib = async () => (engine === 'pglite' ? Math.round((await dirBytes(path.join(service.dataDir, 'pglite', 'pg_wal'))) / 2 ** 20) : undefined);
  const sizes: Array<{ at_s: number; mib: number; wal_mib?: number }> = [{ at_s: 0, mib: (await size()) / 2 ** 20, wal_mib: await walMib() }];

  const sizer = (async () => {
    for (let minute = 1; minute * 60_000 <= SOAK_SECONDS * 1000; minute++) {
      await sleep(Math.max(0, start + minute * 60_000 - performance.now()));
      const mib = (await size()) / 2 ** 20;
      const wal = await walMib();
      sizes.push({ at_s: minute * 60, mib: Math.round(mib * 10) / 10, wal_mib: wal });
      log(`soak ${engine}: minute ${minute}, ${Math.round(mib)} MiB${wal === undefined ? '' : ` (pg_wal ${wal} MiB)`}`);
    }
  })();

  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const agent = keepAliveAgent();
      const mine = targets.slice(client * PER_CLIENT, (client + 1) * PER_CLIENT);
      const booked: Array<{ id: number; apiKey: string }> = [];
      const nextNight = mine.map(() => 0);
      const offset = (client / CLIENTS) * (1000 / RATE_PER_CLIENT);
      for (let n = 0; ; n++) {
        const due = start + offset + (n * 1000) / RATE_PER_CLIENT;
        if (due >= end || performance.now() >= end) break;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        // a client held up by a slow answer does not catch up in a burst: slots more than a
        // second overdue are not sent (counted), so the offered load stays about 105/s
        else if (wait < -1000) {
          skipped += 1;
          continue;
        }
        const k = n % PER_CLIENT;
        const t = mine[k];
        const auth = { authorization: `Bearer ${t.apiKey}` };
        const slot = n % 20;
        let shot: Shot;
        let cancelled: { id: number; apiKey: string } | undefined;
        if (slot < 5) {
          // each unit booked for 2 nights, units in turn, so creates never collide
          const m = nextNight[k]++;
          const checkIn = addDays(day0, 2 * Math.floor(m / UNITS));
          const ref = `S-${run}-${client}-${n}`;
          shot = {
            path: '/api/integrations/v1/bookings',
            headers: { ...auth, 'idempotency-key': `k-${ref}` },
            body: bookingBody(ref, t.property, [`${t.property}-U${(m % UNITS) + 1}`], checkIn, addDays(checkIn, 2)),
            tag: k,
          };
        } else if (slot < 7 && booked.length > 0) {
          cancelled = booked.shift()!;
          shot = { path: `/api/integrations/v1/bookings/${cancelled.id}/cancel`, headers: { authorization: `Bearer ${cancelled.apiKey}` }, body: {} };
        } else if (slot < 14) {
          shot = { path: `/api/integrations/v1/properties/${t.propertyId}/availability?from=${day0}&to=${addDays(day0, 29)}`, headers: auth };
        } else if (slot < 16) {
          shot = { path: `/api/integrations/v1/properties/${t.propertyId}/rates?from=${day0}&to=${addDays(day0, 29)}`, headers: auth };
        } else if (slot < 18) {
          shot = { path: '/api/integrations/v1/me', headers: auth };
        } else {
          shot = { path: '/api/integrations/v1/events?limit=50', headers: auth };
        }
        const sent = performance.now();
        try {
          const answer = await request(agent, base, shot, `127.0.0.${130 + client}`);
          const done = performance.now();
          const w = Math.floor((done - start) / (WINDOW_S * 1000));
          let bucket = windows.get(w);
          if (!bucket) windows.set(w, (bucket = { latencies: [], fiveXx: 0 }));
          bucket.latencies.push(done - sent);
          byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
          if (answer.status >= 500) bucket.fiveXx += 1;
          if (answer.status === 201 && shot.tag !== undefined)
            booked.push({ id: (JSON.parse(answer.body) as { data: { id: number } }).data.id, apiKey: t.apiKey });
          if (answer.status >= 400 && answer.status !== 409 && samples.length < 5)
            samples.push(`${answer.status} ${shot.path.slice(0, 60)} ${answer.body.slice(0, 200)}`);
        } catch (error) {
          failures += 1;
          if (samples.length < 5) samples.push(String(error));
        }
      }
      agent.destroy();
    }),
  );
  await sizer;
  const elapsed = (performance.now() - start) / 1000;
  const windowRows = [...windows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([w, b]) => {
      const sorted = b.latencies.sort((x, y) => x - y);
      return {
        from_s: w * WINDOW_S,
        requests: sorted.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: Math.round(sorted[sorted.length - 1] ?? 0),
        five_xx: b.fiveXx,
      };
    });
  const requests = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const fiveXx = windowRows.reduce((a, w) => a + w.five_xx, 0);
  const first = sizes[0].mib;
  const last = sizes[sizes.length - 1];
  const afterFirst = sizes.find((s) => s.at_s === 60);
  return {
    seconds: Math.round(elapsed),
    requests,
    perSecond: Math.round(requests / elapsed),
    byStatus,
    fiveXx,
    failures,
    skipped,
    windows: windowRows,
    sizes,
    growthMibPerMinute: Math.round(((last.mib - first) / Math.max(1, last.at_s / 60)) * 10) / 10,
    growthMibPerMinuteAfterFirst: afterFirst && last.at_s > 60 ? Math.round(((last.mib - afterFirst.mib) / ((last.at_s - 60) / 60)) * 10) / 10 : NaN,
    worstP99AfterFirstMinute: Math.max(0, ...windowRows.filter((w) => w.from_s >= 60).map((w) => w.p99)),
    samples,
  };
}
