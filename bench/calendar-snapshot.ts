/**
 * One-off measurement (not part of `npm run bench`, not a test): latency of a 92-night
 * availability snapshot of a 50-unit property with bookings, on PGlite and on PostgreSQL.
 *
 *   npx tsx bench/calendar-snapshot.ts                  # PGlite (in memory) and, if reachable,
 *   BENCH_PG_URL=postgres://root@127.0.0.1:5432/test npx tsx bench/calendar-snapshot.ts
 *
 * The app runs in this process and is called through app.inject (the full HTTP stack: routing,
 * auth, validation, the repeatable-read transaction, serialisation; no socket). 200 sequential
 * requests after 20 warm-up ones; p50/p99 in milliseconds. A fresh schema is used and dropped.
 * The rate limiter (120 property reads a minute) is part of the measured path; the service clock
 * is moved a minute on every 100 requests so the run stays under it.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate, openDatabase } from '../src/db/database.js';
import type { Deps } from '../src/deps.js';
import { createClock } from '../src/lib/clock.js';
import { createSecretBox } from '../src/lib/secrets.js';
import { addDays, kolkataDate } from '../src/lib/time.js';
import { ensureStaffToken } from '../src/modules/integrations/integrations.service.js';
import { readSnapshot } from '../src/modules/calendar/calendar.service.js';

const STAFF = 'dls_BenchStaffToken000000000000000000000000';
const UNITS = 50;
const NIGHTS = 92;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Deterministic pseudo-random numbers, so both engines get the same bookings. */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

async function measure(engine: 'pglite' | 'postgres', url: string | null) {
  const schema = `bench_cal_${randomBytes(3).toString('hex')}`;
  const config = loadConfig({ DATABASE_URL: url ?? 'memory:', STAFF_TOKEN: STAFF, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE: '1' });
  const database = await openDatabase({ url, dataDir: '', schema });
  try {
    await migrate(database.db, schema);
    const deps: Deps = {
      config,
      db: database.db,
      engine: database.engine,
      clock: createClock(0),
      secrets: createSecretBox(randomBytes(32)),
      log: pino({ level: 'silent' }),
      signals: new EventEmitter(),
    };
    await ensureStaffToken(deps);
    const app = await buildApp(deps);
    await app.ready();
    const staff = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
      const res = await app.inject({ method, url: `/api/staff/v1${path}`, headers: { authorization: `Bearer ${STAFF}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      if (res.statusCode >= 300) throw new Error(`${path}: ${res.body}`);
      return res.json().data;
    };
    const brand = await staff('POST', '/brands', { name: 'Bench' });
    const created = await staff('POST', '/integrations', { brand_id: brand.id, name: 'Bench PMS' });
    const apiKey: string = created.api_key;
    const integrationId: number = created.integration.id;

    const now = deps.clock.now();
    const today = kolkataDate(now);
    const property = await deps.db
      .insertInto('properties')
      .values({ brand_id: brand.id, name: 'Bench Resort', created_at: now, updated_at: now, weekday_base_price: 5000, weekend_base_price: 7000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const units = await deps.db
      .insertInto('units')
      .values(Array.from({ length: UNITS }, (_, i) => ({ property_id: property.id, name: `Room ${i + 1}`, position: i, is_default: i === 0, created_at: now, updated_at: now })))
      .returning('id')
      .execute();
    await deps.db.insertInto('coverage').values({ integration_id: integrationId, property_id: property.id, external_id: 'BENCH', created_at: now }).execute();
    await deps.db
      .insertInto('unit_aliases')
      .values(units.map((u, i) => ({ integration_id: integrationId, unit_id: u.id, external_id: `R-${i + 1}` })))
      .execute();

    // Bookings: each unit alternates stays of 1–5 nights and gaps of 0–3 nights over the window.
    const random = rng(42);
    const holds: Array<{ unit_id: number; night: string; booking_id: number }> = [];
    let bookingId = 0;
    for (const unit of units) {
      let night = 0;
      while (night < NIGHTS) {
        night += Math.floor(random() * 4);
        const length = 1 + Math.floor(random() * 5);
        bookingId += 1;
        for (let n = night; n < Math.min(NIGHTS, night + length); n++) holds.push({ unit_id: unit.id, night: addDays(today, n), booking_id: bookingId });
        night += length;
      }
    }
    // Booking rows for the holds (unit_nights.booking_id references bookings); ids 1…bookingId.
    const bookingRows = Array.from({ length: bookingId }, (_, i) => ({
      external_booking_id: `bench-${i + 1}`,
      property_id: property.id,
      status: 'confirmed',
      check_in: today,
      check_out: addDays(today, 1),
      units: JSON.stringify([]),
      guest_name: 'Guest',
      total: 0,
      source_channel: 'direct',
      created_at: now,
      updated_at: now,
    }));
    const ids: number[] = [];
    for (let i = 0; i < bookingRows.length; i += 500) {
      ids.push(...(await deps.db.insertInto('bookings').values(bookingRows.slice(i, i + 500) as never).returning('id').execute()).map((r) => r.id));
    }
    for (const h of holds) h.booking_id = ids[h.booking_id - 1];
    for (let i = 0; i < holds.length; i += 1000) await deps.db.insertInto('unit_nights').values(holds.slice(i, i + 1000)).execute();
    // Some host settings too: a blocked week, a capped week, two blocked units.
    await staff('PUT', `/properties/${property.id}/calendar`, { from: addDays(today, 10), to: addDays(today, 16), block_scope: 'ota_only' });
    await staff('PUT', `/properties/${property.id}/calendar`, { from: addDays(today, 30), to: addDays(today, 36), units_cap: 20 });
    await staff('PUT', `/properties/${property.id}/calendar`, { from: addDays(today, 40), to: addDays(today, 60), inventory_ids: [units[0].id, units[1].id], block_scope: 'everywhere' });

    const url = `/api/integrations/v1/properties/${property.id}/availability?from=${today}&to=${addDays(today, NIGHTS - 1)}`;
    const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      // Property reads are limited to 120 a minute: move the service clock a minute on, untimed.
      if (i % 100 === 99) deps.clock.setOffsetSeconds(deps.clock.offsetSeconds() + 60);
      const started = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      const elapsed = performance.now() - started;
      if (res.statusCode !== 200) throw new Error(`snapshot answered ${res.statusCode}: ${res.body}`);
      if (i >= WARMUP) times.push(elapsed);
      bytes = res.body.length;
    }
    times.sort((a, b) => a - b);

    // The calendar part alone (no HTTP stack, auth or rate limiting): readSnapshot + JSON.stringify.
    const direct: number[] = [];
    let cpuStart = process.cpuUsage();
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      if (i === WARMUP) cpuStart = process.cpuUsage();
      const started = performance.now();
      const snap = await readSnapshot(deps, integrationId, String(property.id), 'availability', { from: today, to: addDays(today, NIGHTS - 1) });
      JSON.stringify(snap);
      if (i >= WARMUP) direct.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuStart);
    direct.sort((a, b) => a - b);
    await app.close();
    const r = (n: number) => Math.round(n * 100) / 100;
    return {
      engine,
      requests: REQUESTS,
      holds: holds.length,
      response_bytes: bytes,
      p50_ms: r(percentile(times, 50)),
      p99_ms: r(percentile(times, 99)),
      max_ms: r(times[times.length - 1]),
      snapshot_only_p50_ms: r(percentile(direct, 50)),
      snapshot_only_p99_ms: r(percentile(direct, 99)),
      // CPU of this process per snapshot (on PGlite that includes the database itself): the
      // latency floor when the machine is not shared.
      snapshot_only_cpu_ms: r((cpu.user + cpu.system) / 1000 / REQUESTS),
    };
  } finally {
    await database.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => {});
    await database.close();
  }
}

async function main() {
  const results = [await measure('pglite', null)];
  const pgUrl = process.env.BENCH_PG_URL ?? process.env.DATABASE_URL;
  if (pgUrl?.startsWith('postgres')) results.push(await measure('postgres', pgUrl));
  else process.stdout.write('(set BENCH_PG_URL=postgres://… to measure PostgreSQL too)\n');
  console.table(results);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
