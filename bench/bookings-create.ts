/**
 * Booking create throughput on PostgreSQL (issue 5). Not part of `npm run bench`, not a test:
 *
 *   npx tsx bench/bookings-create.ts
 *   BENCH_SECONDS=10 BENCH_WORKERS=2 BENCH_ONLY=distinct,one-property,contended npx tsx bench/bookings-create.ts
 *
 * Builds the service, starts it (dist/main.js) on a throwaway PostgreSQL database
 * (BENCH_DATABASE_URL, default postgres://root@127.0.0.1:5432/test), drives POST /bookings with
 * 20 concurrent keep-alive clients (plain node:http, one connection each) for a warm-up and then
 * BENCH_SECONDS measured seconds, prints a table and writes bench/bookings-create.json.
 *
 * Scenarios:
 * - distinct: 20 clients on distinct units. The service runs as in production (rate limits on,
 *   no test clock): each client has its own source address (127.0.0.11…30) and 8 integrations of
 *   its own, each with its own 20-unit property, so no tier binds (60 booking writes a minute per
 *   integration, 600 calls a minute per address). Every request books a unit and stay no other
 *   request books.
 * - one-property: 20 clients on distinct units of ONE property of ONE integration (40 units;
 *   client c books units c, c+20, …). One integration cannot make hundreds of writes a minute, so
 *   this service runs with TEST_CLOCK=1 and the bench moves the clock a minute every 100 ms: every
 *   rate window starts over (the limiter still runs, it just never binds).
 * - contended: 20 clients on ONE unit, same setup as one-property: about 20 requests in flight for
 *   each stay (request k books stay k div 20), so one wins and the others answer 409 UNAVAILABLE.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { addDays, kolkataDate } from '../src/lib/time.js';
import { call, setupIntegration, staff } from './lib/api.js';
import { cleanupAll, createBenchDatabase, ROOT, startService, type Service } from './lib/processes.js';

const CLIENTS = 20;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 2);
const WORKERS = process.env.BENCH_WORKERS ?? '1';
/**
 * An already running service to drive instead (distinct scenario only; e.g. one started by hand
 * under `node --cpu-prof dist/main.js` with STAFF_TOKEN of bench/lib/processes.ts).
 */
const SERVICE_URL = process.env.BENCH_SERVICE_URL;
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);

/** CPU seconds used so far by a process (utime + stime, 100 ticks a second). */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of the service process (and its cluster workers), of PostgreSQL, and of the whole machine. */
function cpuSnapshot(servicePid: number) {
  let service = 0;
  let postgres = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.split(') ')[1].split(' ')[1]);
    if (pid === servicePid || ppid === servicePid) service += cpuOf(pid);
    else if (name === 'postgres') postgres += cpuOf(pid);
  }
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return { service, postgres, machine: (user + nice + system + irq + softirq) / 100 };
}

interface Outcome {
  scenario: string;
  workers: string;
  seconds: number;
  requests_per_s: number;
  created_per_s: number;
  refused_409_per_s: number;
  other: string;
  p50_ms: number;
  p99_ms: number;
  /** CPU cores busy during the measured seconds: the service, PostgreSQL (its backends that were
   * alive at both ends; all of them on this machine, other users included), and the whole machine. */
  cores_service: number;
  cores_postgres: number;
  cores_machine: number;
  /** Transactions committed in the service's database per request (autocommit statements count one each). */
  commits_per_request: number;
}

/** Transactions committed so far in the database of `url`. */
async function commitsOf(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select xact_commit::bigint as n from pg_stat_database where datname = current_database()');
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// A tiny keep-alive client: one connection per client, bound to the client's source address.

interface Shot {
  path: string;
  apiKey: string;
  body: unknown;
  key: string;
}

function post(agent: http.Agent, base: URL, localAddress: string, shot: Shot): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(shot.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: 'POST',
        path: shot.path,
        agent,
        localAddress,
        headers: {
          authorization: `Bearer ${shot.apiKey}`,
          accept: 'application/json',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'idempotency-key': shot.key,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Runs CLIENTS loops for warm-up plus SECONDS; counts answers by status and latencies of the
 * measured part only. `next(client, n)` gives the client's n-th request.
 */
async function drive(service: Service, pgUrl: string, scenario: string, next: (client: number, n: number) => Shot, addressOf: (client: number) => string): Promise<Outcome> {
  const base = new URL(service.base);
  const start = performance.now();
  const measureFrom = start + WARMUP_SECONDS * 1000;
  const end = measureFrom + SECONDS * 1000;
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  const samples: string[] = [];
  let failures = 0;
  let commitsStart = 0;
  let commitsEnd = 0;
  let cpuStart: ReturnType<typeof cpuSnapshot> | null = null;
  let cpuEnd: ReturnType<typeof cpuSnapshot> | null = null;
  const servicePid = Number(process.env.BENCH_SERVICE_PID ?? service.pid);
  const sampler = (async () => {
    await sleep(Math.max(0, measureFrom - performance.now()));
    cpuStart = cpuSnapshot(servicePid);
    commitsStart = await commitsOf(pgUrl);
    await sleep(Math.max(0, end - performance.now()));
    cpuEnd = cpuSnapshot(servicePid);
    commitsEnd = await commitsOf(pgUrl);
  })();

  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let n = 0; performance.now() < end; n++) {
        const sent = performance.now();
        try {
          const res = await post(agent, base, addressOf(client), next(client, n));
          const done = performance.now();
          if (sent >= measureFrom && done <= end) {
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            latencies.push(done - sent);
          }
          if (res.status !== 201 && res.status !== 409 && samples.length < 3) samples.push(`${res.status} ${res.body.slice(0, 300)}`);
        } catch {
          failures += 1;
        }
      }
      agent.destroy();
    }),
  );
  await sampler;
  const cores = (key: 'service' | 'postgres' | 'machine') => Math.round(((cpuEnd![key] - cpuStart![key]) / SECONDS) * 100) / 100;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? 0) * 10) / 10;
  const total = latencies.length;
  const others = [...statuses].filter(([s]) => s !== 201 && s !== 409).map(([s, c]) => `${c}×${s}`);
  if (failures) others.push(`${failures} socket errors`);
  for (const sample of samples) process.stderr.write(`  ${scenario}: ${sample}\n`);
  return {
    scenario,
    workers: WORKERS,
    seconds: SECONDS,
    requests_per_s: Math.round(total / SECONDS),
    created_per_s: Math.round((statuses.get(201) ?? 0) / SECONDS),
    refused_409_per_s: Math.round((statuses.get(409) ?? 0) / SECONDS),
    other: others.join(', ') || '-',
    p50_ms: pct(50),
    p99_ms: pct(99),
    cores_service: cores('service'),
    cores_postgres: cores('postgres'),
    cores_machine: cores('machine'),
    // pg_stat_database is updated when a backend reports (at most every second or so): approximate.
    commits_per_request: Math.round(((commitsEnd - commitsStart) / Math.max(1, total)) * 10) / 10,
  };
}

// ---------------------------------------------------------------------------------------------
// Setup through the public APIs

async function createProperty(service: Service, apiKey: string, units: number, externalId: string) {
  const res = await call(
    service.base,
    apiKey,
    'POST',
    '/api/integrations/v1/properties',
    {
      external_id: externalId,
      name: `Bench ${externalId}`,
      description: 'Benchmark property.',
      address: { address_line_1: '1 Bench Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: units, washrooms: units },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: Array.from({ length: units }, (_, i) => ({ name: `Room ${i + 1}`, external_id: `${externalId}-U${i + 1}` })),
    },
    { 'idempotency-key': `prop-${externalId}-${Date.now()}` },
  );
  if (res.status !== 201) throw new Error(`property create failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Stays start three days ahead: the moving test clock cannot make them "before today" mid-run. */
const firstNight = () => addDays(kolkataDate(Date.now()), 3);

function booking(ref: string, propertyExternalId: string, unitAlias: string, checkIn: string, nights = 2) {
  return {
    external_booking_id: ref,
    property: { external_id: propertyExternalId },
    units: [{ external_unit_id: unitAlias, adults: 2 }],
    check_in: checkIn,
    check_out: addDays(checkIn, nights),
    guest: { name: 'Bench Guest', phone_code: '+91', mobile: '9000000000' },
    pricing: { total: 10000, currency: 'INR' },
    source: { channel: 'airbnb', reference: ref },
  };
}

const clientAddress = (client: number) => `127.0.0.${11 + client}`;

// ---------------------------------------------------------------------------------------------
// Scenarios

async function distinct(pgUrl: string): Promise<Outcome> {
  const service: Service = SERVICE_URL
    ? { base: SERVICE_URL, pid: 0, stop: async () => {}, rssMb: async () => NaN }
    : await startService({ DATABASE_URL: pgUrl, WORKERS });
  try {
    const PER_CLIENT = 8;
    const UNITS = 20;
    const brand = (await staff(service.base, 'POST', '/brands', { name: 'Bench Brand' })).body.data.id;
    const integrations: Array<Array<{ apiKey: string; property: string }>> = [];
    for (let c = 0; c < CLIENTS; c++) {
      const mine = [];
      for (let k = 0; k < PER_CLIENT; k++) {
        const integration = await setupIntegration(service.base, { brandId: brand, name: `Bench ${c}-${k}` });
        const property = `D${c}-${k}`;
        await createProperty(service, integration.apiKey, UNITS, property);
        mine.push({ apiKey: integration.apiKey, property });
      }
      integrations.push(mine);
    }
    const day0 = firstNight();
    const run = Date.now().toString(36);
    return await drive(
      service,
      SERVICE_URL ? (process.env.BENCH_SERVICE_DATABASE_URL ?? pgUrl) : pgUrl,
      'distinct units (20 clients × 8 integrations, a property each)',
      (client, n) => {
        const target = integrations[client][n % PER_CLIENT];
        const m = Math.floor(n / PER_CLIENT);
        const ref = `A-${run}-${client}-${n}`;
        return {
          path: '/api/integrations/v1/bookings',
          apiKey: target.apiKey,
          key: `k-${ref}`,
          body: booking(ref, target.property, `${target.property}-U${(m % UNITS) + 1}`, addDays(day0, 2 * Math.floor(m / UNITS))),
        };
      },
      clientAddress,
    );
  } finally {
    await service.stop();
  }
}

/** One integration, one property; the test clock moves a minute every 100 ms so no rate window binds. */
async function onePropertyService(pgUrl: string, units: number) {
  const service = await startService({ DATABASE_URL: pgUrl, WORKERS, TEST_CLOCK: '1' });
  const integration = await setupIntegration(service.base, { name: 'Bench one property' });
  await createProperty(service, integration.apiKey, units, 'ONE');
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await staff(service.base, 'POST', '/clock', { advance_seconds: 60 });
      await sleep(100);
    }
  })();
  return {
    service,
    apiKey: integration.apiKey,
    async stop() {
      ticking = false;
      await ticker;
      await service.stop();
    },
  };
}

async function oneProperty(pgUrl: string): Promise<Outcome> {
  const UNITS = 40;
  const setup = await onePropertyService(pgUrl, UNITS);
  try {
    const day0 = firstNight();
    const run = Date.now().toString(36);
    const perClient = UNITS / CLIENTS;
    return await drive(
      setup.service,
      pgUrl,
      'distinct units of one property (20 clients, 1 integration)',
      (client, n) => {
        const unit = client + CLIENTS * (n % perClient);
        const ref = `B-${run}-${client}-${n}`;
        return {
          path: '/api/integrations/v1/bookings',
          apiKey: setup.apiKey,
          key: `k-${ref}`,
          body: booking(ref, 'ONE', `ONE-U${unit + 1}`, addDays(day0, 2 * Math.floor(n / perClient))),
        };
      },
      clientAddress,
    );
  } finally {
    await setup.stop();
  }
}

async function contended(pgUrl: string): Promise<Outcome> {
  const setup = await onePropertyService(pgUrl, 5);
  try {
    const day0 = firstNight();
    const run = Date.now().toString(36);
    let counter = 0;
    return await drive(
      setup.service,
      pgUrl,
      'one unit, contended (20 clients, ~20 requests per stay)',
      (client, n) => {
        const k = counter++;
        const ref = `C-${run}-${client}-${n}`;
        return {
          path: '/api/integrations/v1/bookings',
          apiKey: setup.apiKey,
          key: `k-${ref}`,
          body: booking(ref, 'ONE', 'ONE-U1', addDays(day0, 2 * Math.floor(k / CLIENTS))),
        };
      },
      clientAddress,
    );
  } finally {
    await setup.stop();
  }
}

async function main() {
  process.stdout.write('building…\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  const results: Outcome[] = [];
  for (const [name, scenario] of [
    ['distinct', distinct],
    ['one-property', oneProperty],
    ['contended', contended],
  ] as const) {
    if (!wanted(name)) continue;
    const pgUrl = await createBenchDatabase();
    process.stdout.write(`${name}…\n`);
    results.push(await scenario(pgUrl));
  }
  console.table(results);
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    clients: CLIENTS,
    warmup_seconds: WARMUP_SECONDS,
    results,
  };
  await writeFile(path.join(ROOT, 'bench/bookings-create.json'), JSON.stringify(report, null, 2) + '\n');
  process.stdout.write('written bench/bookings-create.json\n');
}

main()
  .catch((error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
