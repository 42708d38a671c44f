/**
 * Items 8–10: costs that must not grow with the data. Rows are bulk-loaded into the
 * service's database with SQL (generate_series); every figure is taken through the API. On
 * PostgreSQL the loads run beside the service (growthRun); on PGlite with the service stopped
 * (pgliteGrowthRun).
 *
 *   small   10k undelivered events, fresh            GET /me, types-filtered replay
 *   mid     100k events created 40 days ago           retention (100k)
 *   big     1M undelivered events created 40 days ago GET /me, types-filtered replay, then retention (1M)
 *
 * Each log holds 100 events of a rare kind (`property.changed`; one in 100 at 10k, one in 10,000
 * at 1M), the rest `availability.changed`, so the typed replay's first page is the same 100 events
 * at every size, with bodies of about the size the service writes (~420 B). The service
 * runs its daily jobs once at start, on the empty database, before anything is loaded; the
 * retention runs measured are the staff route's (`POST /jobs/retention/run`), each with only one
 * integration's prefix expired. BENCH_GROWTH_BIG sets the big size (default 1,000,000).
 *
 * Beside the row deletes, the same 1M rows are loaded into a scratch table range-partitioned by
 * day and the day's partition is detached and dropped: the alternative the capacity plan weighs.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openPGlite } from '../../src/db/database.js';
import { call, setupIntegration, staff } from '../lib/api.js';
import { STAFF_TOKEN, type Service } from '../lib/processes.js';

export const BIG = Number(process.env.BENCH_GROWTH_BIG ?? 1_000_000);
const SMALL = 10_000;
const MID = 100_000;
/** Events of the rare kind in every log: the typed replay's page is the same size at 10k and 1M. */
const RARE = 100;
const LOAD_BATCH = 250_000;
const DAY_MS = 86_400_000;

/** What the loaders need of a database handle: pg's Client and PGlite both answer it. */
interface Sql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** Values for the columns of `events` the loader knows; others must have defaults or be nullable. */
const KNOWN: Record<string, string> = {
  integration_id: '$1::int',
  sequence: 's',
  id: `'evt_b' || $1 || '_' || s`,
  type: `case when s % $5 = 0 then 'property.changed' else 'availability.changed' end`,
  origin: `'doorloom'`,
  property_id: 'null',
  window_from: 'null',
  window_to: 'null',
  body: `'{"id":"evt_b' || $1 || '_' || s || '","type":"' || case when s % $5 = 0 then 'property.changed' else 'availability.changed' end || '","sequence":' || s || ',"created_at":"2026-10-15T10:00:00.000+05:30","integration":{"id":' || $1 || '},"data":{"property":{"doorloom_id":1,"external_id":"bench-p1"},"window":{"from":"2026-10-15","to":"2027-10-14"},"units":[{"doorloom_id":1,"external_id":"bench-p1-U1","nights":[{"date":"2026-10-15","available":false}]}],"origin":"doorloom","padding":"' || repeat('x', 80) || '"}}'`,
  created_at: `$2::timestamptz + s * interval '1 millisecond'`,
  delivery_status: `'pending'`,
  attempts: '0',
  delivered_at: 'null',
};

async function eventColumns(client: Sql): Promise<string[]> {
  const { rows } = await client.query<{ column_name: string; is_nullable: string; column_default: string | null }>(
    `select column_name, is_nullable, column_default from information_schema.columns where table_name = 'events' and table_schema = current_schema() order by ordinal_position`,
  );
  const unknown = rows.filter((r) => !(r.column_name in KNOWN) && r.is_nullable === 'NO' && r.column_default === null);
  if (unknown.length > 0) throw new Error(`growth loader: events has required columns it does not know: ${unknown.map((r) => r.column_name).join(', ')}`);
  return rows.map((r) => r.column_name).filter((c) => c in KNOWN);
}

/** Appends `count` events after the integration's last sequence, `createdAt` onwards (1 ms apart). */
async function loadEvents(client: Sql, integrationId: number, count: number, createdAt: Date, log: (line: string) => void) {
  const columns = await eventColumns(client);
  const started = Date.now();
  for (let from = 1; from <= count; from += LOAD_BATCH) {
    const to = Math.min(count, from + LOAD_BATCH - 1);
    await client.query(
      `insert into events (${columns.join(', ')}) select ${columns.map((c) => KNOWN[c]).join(', ')} from generate_series($3::bigint, $4::bigint) s`,
      [integrationId, createdAt.toISOString(), from, to, Math.max(1, Math.floor(count / RARE))],
    );
  }
  await client.query('update integrations set last_sequence = $2 where id = $1', [integrationId, count]);
  // what appends keep in the same transaction: the pending events' count (GET /me's undelivered_events)
  await client.query('update webhook_delivery_state set undelivered = undelivered + $2 where integration_id = $1', [integrationId, count]);
  await client.query('analyze events');
  log(`growth: loaded ${count} events for integration ${integrationId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * A measured retention run must delete the whole loaded prefix: the service's own daily run (once
 * a Kolkata day, so also just after 18:30 UTC) would otherwise have taken it first.
 */
function expectDeleted(deleted: number, loaded: number): void {
  if (deleted !== loaded) throw new Error(`retention deleted ${deleted} events, not the ${loaded} loaded (did the daily run take them first?)`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await task();
  return { ms: Math.round((performance.now() - t0) * 100) / 100, value };
}

/**
 * GET /me uncached: the service keeps a view 1 s; each sample waits that out. Median of `n`.
 */
async function meUncached(base: string, apiKey: string, n = 5) {
  const samples: number[] = [];
  let undelivered: number | null = null;
  for (let i = 0; i < n; i++) {
    await sleep(1100);
    const { ms, value } = await timed(() => call(base, apiKey, 'GET', '/api/integrations/v1/me'));
    if (value.status !== 200) throw new Error(`GET /me answered ${value.status}`);
    undelivered = findNumber(value.body, 'undelivered_events');
    samples.push(ms);
  }
  return { ms: median(samples), samples, undelivered };
}

/** The first number under `key` anywhere in a JSON body (the /me figures' exact place may move). */
function findNumber(body: unknown, key: string): number | null {
  if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) {
      if (k === key && typeof v === 'number') return v;
      const inner = findNumber(v, key);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/** GET /events?types=property.changed from the start of the log: median of `n` (after one warm call). */
async function typedReplay(base: string, apiKey: string, n = 7) {
  const path = '/api/integrations/v1/events?after_sequence=0&limit=100&types=property.changed';
  const first = await call(base, apiKey, 'GET', path);
  if (first.status !== 200) throw new Error(`GET /events answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push((await timed(() => call(base, apiKey, 'GET', path))).ms);
  return { ms: median(samples), samples, returned: (first.body.data as unknown[]).length };
}

async function walBytes(client: Sql): Promise<bigint> {
  const { rows } = await client.query<{ lsn: string }>(`select pg_current_wal_lsn()::text as lsn`);
  const [hi, lo] = rows[0].lsn.split('/').map((h) => BigInt(`0x${h}`));
  return (hi << 32n) + lo;
}

async function blocks(client: pg.Client): Promise<{ read: number; hit: number }> {
  const { rows } = await client.query<{ read: string; hit: string }>(
    `select blks_read::text as read, blks_hit::text as hit from pg_stat_database where datname = current_database()`,
  );
  return { read: Number(rows[0].read), hit: Number(rows[0].hit) };
}

/** POST /jobs/retention/run through the staff API, with the WAL and blocks it cost. */
async function retentionRun(base: string, client: pg.Client) {
  const wal0 = await walBytes(client);
  const b0 = await blocks(client);
  const { ms, value } = await timed(() => staff<{ result: { events: number } }>(base, 'POST', '/jobs/retention/run'));
  if (value.status !== 200) throw new Error(`retention answered ${value.status}`);
  // pg_stat_database is updated when a backend reports (at the latest when it goes idle, ~1 s)
  await sleep(1200);
  const b1 = await blocks(client);
  const wal = Number((await walBytes(client)) - wal0);
  const deleted = Number(value.body.data.result.events);
  return {
    ms,
    deleted,
    wal_bytes: wal,
    wal_bytes_per_row: deleted ? Math.round(wal / deleted) : null,
    blocks_read: b1.read - b0.read,
    blocks_hit: b1.hit - b0.hit,
  };
}

async function tableSize(client: Sql, table = 'events') {
  const { rows } = await client.query<{ bytes: string }>(`select pg_total_relation_size($1)::text as bytes`, [table]);
  return Math.round(Number(rows[0].bytes) / 2 ** 20);
}

/** The replay statement's plan on the big log: does it read events_type_sequence? */
async function replayPlan(client: Sql, integrationId: number) {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers, costs off)
     select sequence from events where integration_id = $1 and sequence > 0 and sequence in (
       select sequence from ((select sequence from events where integration_id = $1 and type = 'property.changed' and sequence > 0 order by sequence limit 101)) typed order by sequence limit 101
     ) order by sequence limit 101`,
    [integrationId],
  );
  return rows.map((r) => r['QUERY PLAN']);
}

/**
 * Daily range partitions, for comparison: the same rows in a scratch table partitioned by
 * created_at, one day's partition detached and dropped.
 */
async function partitionDrop(client: pg.Client, count: number, log: (line: string) => void) {
  const columns = await eventColumns(client);
  await client.query(`create table bench_events_by_day (like events including defaults) partition by range (created_at)`);
  await client.query(`create table bench_events_d0 partition of bench_events_by_day for values from ('2026-10-15') to ('2026-10-16')`);
  await client.query(`create table bench_events_d1 partition of bench_events_by_day for values from ('2026-10-16') to ('2026-10-17')`);
  await client.query(`alter table bench_events_by_day add primary key (integration_id, sequence, created_at)`);
  const started = Date.now();
  for (let from = 1; from <= count; from += LOAD_BATCH) {
    const to = Math.min(count, from + LOAD_BATCH - 1);
    await client.query(
      `insert into bench_events_by_day (${columns.join(', ')}) select ${columns.map((c) => KNOWN[c]).join(', ')} from generate_series($3::bigint, $4::bigint) s`,
      [-1, '2026-10-15T00:00:00Z', from, to, Math.max(1, Math.floor(count / RARE))],
    );
  }
  log(`growth: loaded ${count} rows into a day partition in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await client.query('checkpoint').catch(() => {});
  const wal0 = await walBytes(client);
  const { ms } = await timed(async () => {
    await client.query(`alter table bench_events_by_day detach partition bench_events_d0`);
    await client.query(`drop table bench_events_d0`);
  });
  const wal = Number((await walBytes(client)) - wal0);
  await client.query(`drop table bench_events_by_day`);
  return { ms, wal_bytes: wal };
}

export interface GrowthResult {
  me: { small: Awaited<ReturnType<typeof meUncached>>; big: Awaited<ReturnType<typeof meUncached>> };
  replay: { small: Awaited<ReturnType<typeof typedReplay>>; big: Awaited<ReturnType<typeof typedReplay>> };
  retention: { mid: Awaited<ReturnType<typeof retentionRun>>; big: Awaited<ReturnType<typeof retentionRun>> };
  partition: Awaited<ReturnType<typeof partitionDrop>> | null;
  sizes: { small: number; mid: number; big: number; events_mib_at_big: number };
  plan: string[];
}

/** Waits until the service's start-up run of the daily jobs has finished (it runs on the empty tables). */
async function dailyJobsDone(client: Sql) {
  for (let i = 0; i < 100; i++) {
    const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from job_runs where name = 'retention' and finished_at is not null`);
    if (rows[0].n > 0) return;
    await sleep(200);
  }
  throw new Error('the daily jobs did not run at start');
}

export async function growthRun(service: Service, dbUrl: string, log: (line: string) => void, withPartitions: boolean): Promise<GrowthResult> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await dailyJobsDone(client);
    const now = Date.now();
    const old = new Date(now - 40 * DAY_MS);
    const small = await setupIntegration(service.base, { name: 'Growth small' });
    const mid = await setupIntegration(service.base, { name: 'Growth mid', brandId: small.brandId });
    const big = await setupIntegration(service.base, { name: 'Growth big', brandId: small.brandId });

    await loadEvents(client, small.id, SMALL, new Date(now - DAY_MS), log);
    await loadEvents(client, mid.id, MID, old, log);
    const meSmall = await meUncached(service.base, small.apiKey);
    const replaySmall = await typedReplay(service.base, small.apiKey);
    log(`growth 10k: /me ${meSmall.ms} ms, typed replay ${replaySmall.ms} ms`);
    await client.query('checkpoint').catch(() => {});
    const retentionMid = await retentionRun(service.base, client);
    expectDeleted(retentionMid.deleted, MID);
    log(`growth: retention of ${retentionMid.deleted} in ${retentionMid.ms} ms`);

    await loadEvents(client, big.id, BIG, old, log);
    const eventsMib = await tableSize(client);
    const meBig = await meUncached(service.base, big.apiKey);
    const replayBig = await typedReplay(service.base, big.apiKey);
    const plan = await replayPlan(client, big.id);
    log(`growth ${BIG}: /me ${meBig.ms} ms, typed replay ${replayBig.ms} ms`);
    await client.query('checkpoint').catch(() => {});
    const retentionBig = await retentionRun(service.base, client);
    expectDeleted(retentionBig.deleted, BIG);
    log(`growth: retention of ${retentionBig.deleted} in ${retentionBig.ms} ms`);

    const partition = withPartitions ? await partitionDrop(client, BIG, log) : null;
    if (partition) log(`growth: partition detach + drop of ${BIG} rows in ${partition.ms} ms`);
    return {
      me: { small: meSmall, big: meBig },
      replay: { small: replaySmall, big: replayBig },
      retention: { mid: retentionMid, big: retentionBig },
      partition,
      sizes: { small: SMALL, mid: MID, big: BIG, events_mib_at_big: eventsMib },
      plan,
    };
  } finally {
    await client.end();
  }
}

// ---- The embedded engine ------------------------------------------------------------------------

export interface PGliteGrowthResult {
  me: GrowthResult['me'];
  replay: GrowthResult['replay'];
  retention: { mid: PGliteRetention; big: PGliteRetention };
  sizes: GrowthResult['sizes'] & { data_dir_mib_at_big: number };
  plan: string[];
  load_seconds: number;
}

type PGliteRetention = {
  ms: number;
  deleted: number;
  /** From the LSN read before the service started to the one read after it stopped (its start and shutdown checkpoints included). */
  wal_bytes: number;
  wal_bytes_per_row: number | null;
};

/** Opens the stopped service's DATA_DIR as the service opens it, runs `task`, closes it. */
async function withEmbedded<T>(dataDir: string, task: (db: Sql) => Promise<T>): Promise<T> {
  const db = await openPGlite(dataDir);
  try {
    return await task(db);
  } finally {
    await db.close();
  }
}

function dataDirMib(dataDir: string): number {
  return Math.round(Number(execFileSync('du', ['-sk', dataDir], { encoding: 'utf8' }).split('\t')[0]) / 1024);
}

/** POST /jobs/retention/run through the staff API (the embedded engine may take minutes at 1M). */
async function retentionTimed(base: string) {
  const { ms, value } = await timed(() =>
    call<{ result: { events: number } }>(base, STAFF_TOKEN, 'POST', '/api/staff/v1/jobs/retention/run', undefined, {}, 15 * 60_000),
  );
  if (value.status !== 200) throw new Error(`retention answered ${value.status}`);
  return { ms, deleted: Number(value.body.data.result.events) };
}

/**
 * Items 8–10 on the embedded engine, the same sizes and calls as growthRun. Only the service's own
 * process may open its database, so every bulk load runs with the service stopped: the bench
 * opens the DATA_DIR (openPGlite, the service's settings), loads, runs VACUUM ANALYZE, closes it,
 * and starts the service again on it. The restarts do not run the daily jobs again (one run a
 * day, claimed in job_runs): the loaded prefixes stay for the measured retention runs.
 */
export async function pgliteGrowthRun(
  startOn: (dataDir: string) => Promise<Service>,
  dataDir: string,
  log: (line: string) => void,
): Promise<PGliteGrowthResult> {
  let loadSeconds = 0;
  const load = async (task: (db: Sql) => Promise<void>) => {
    const t0 = Date.now();
    await withEmbedded(dataDir, async (db) => {
      await task(db);
      // what the service's maintenance would otherwise do while it is measured
      await db.query('vacuum analyze');
    });
    loadSeconds += (Date.now() - t0) / 1000;
  };
  const wal = () => withEmbedded(dataDir, walBytes);

  let svc = await startOn(dataDir);
  const now = Date.now();
  const old = new Date(now - 40 * DAY_MS);
  const small = await setupIntegration(svc.base, { name: 'Growth small' });
  const mid = await setupIntegration(svc.base, { name: 'Growth mid', brandId: small.brandId });
  const big = await setupIntegration(svc.base, { name: 'Growth big', brandId: small.brandId });
  await svc.stop();

  await load(async (db) => {
    await dailyJobsDone(db);
    await loadEvents(db, small.id, SMALL, new Date(now - DAY_MS), log);
    await loadEvents(db, mid.id, MID, old, log);
  });
  const walBeforeMid = await wal();
  svc = await startOn(dataDir);
  const meSmall = await meUncached(svc.base, small.apiKey);
  const replaySmall = await typedReplay(svc.base, small.apiKey);
  log(`growth pglite 10k: /me ${meSmall.ms} ms, typed replay ${replaySmall.ms} ms`);
  const retentionMid = await retentionTimed(svc.base);
  expectDeleted(retentionMid.deleted, MID);
  log(`growth pglite: retention of ${retentionMid.deleted} in ${retentionMid.ms} ms`);
  await svc.stop();
  const walAfterMid = await wal();

  let plan: string[] = [];
  let eventsMib = 0;
  await load(async (db) => {
    await loadEvents(db, big.id, BIG, old, log);
  });
  await withEmbedded(dataDir, async (db) => {
    eventsMib = await tableSize(db);
    plan = await replayPlan(db, big.id);
  });
  const dirMib = dataDirMib(dataDir);
  const walBeforeBig = await wal();
  svc = await startOn(dataDir);
  const meBig = await meUncached(svc.base, big.apiKey);
  const replayBig = await typedReplay(svc.base, big.apiKey);
  log(`growth pglite ${BIG}: /me ${meBig.ms} ms, typed replay ${replayBig.ms} ms`);
  const retentionBig = await retentionTimed(svc.base);
  expectDeleted(retentionBig.deleted, BIG);
  log(`growth pglite: retention of ${retentionBig.deleted} in ${retentionBig.ms} ms`);
  await svc.stop();
  const walAfterBig = await wal();

  const withWal = (r: { ms: number; deleted: number }, from: bigint, to: bigint): PGliteRetention => {
    const bytes = Number(to - from);
    return { ...r, wal_bytes: bytes, wal_bytes_per_row: r.deleted ? Math.round(bytes / r.deleted) : null };
  };
  return {
    me: { small: meSmall, big: meBig },
    replay: { small: replaySmall, big: replayBig },
    retention: { mid: withWal(retentionMid, walBeforeMid, walAfterMid), big: withWal(retentionBig, walBeforeBig, walAfterBig) },
    sizes: { small: SMALL, mid: MID, big: BIG, events_mib_at_big: eventsMib, data_dir_mib_at_big: dirMib },
    plan,
    load_seconds: Math.round(loadSeconds),
  };
}
