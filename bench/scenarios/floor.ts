/**
 * Item 1's ceiling: what PostgreSQL alone allows. pgbench (20 clients, 2 threads,
 * prepared statements, pipelines) runs bench/floor/create.sql, a booking create's own statements
 * as the service sends them (the rate-limit counters, the idempotency claim, then the context
 * read with the property's lock, the stay's calendar, and the booking, its events and the
 * idempotency record with the commit, in the service's round trips), against
 * bench/floor/insert.sql, the INSERT baseline's transaction, on the same database, in turn.
 * No service is in between, so no service, however fast, creates bookings faster than this on
 * the same PostgreSQL and cores.
 *
 * The targets are the distinct run's properties (setupDistinct, set 0): client c books among its
 * 8 properties, as in the service's run, on nights far ahead of the service's.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { bookingBody } from '../lib/api.js';
import { cpuOf, numberOf, procStat } from '../lib/clients.js';
import { ROOT } from '../lib/processes.js';
import { round } from '../lib/report.js';
import { CLIENTS, type DistinctSet } from './bookings.js';
import { SECONDS } from './common.js';

const run = promisify(execFile);

export interface FloorResult {
  perSecond: number;
  transactions: number;
  failed: number;
  /** PostgreSQL CPU per transaction (every PostgreSQL process, exited backends included). */
  postgres_cpu_ms_per_op: number;
  /** pgbench's own CPU per transaction. */
  client_cpu_ms_per_op: number;
  /** WAL written per transaction (the database's whole WAL over the run: nothing else writes then). */
  wal_bytes_per_op: number;
}

/** The WAL position now, as a byte count. */
const walBytes = (pgUrl: string) => numberOf(pgUrl, "select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint as n");

/** Whether pgbench is on this machine (it comes with Debian's PostgreSQL server package). */
export async function hasPgbench(): Promise<boolean> {
  try {
    await run('pgbench', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** The service's payloads of one create on a 20-unit property: sizes as the service stores them. */
export function payloadVariables(): Record<string, string> {
  const created = '2027-01-01T05:30:00+05:30';
  const property = { doorloom_id: 1, external_id: 'D0' };
  const head = (id: string, type: string) => `{"id":"${id}","type":"${type}","sequence":`;
  const booking = {
    ...(JSON.parse(JSON.stringify(bookingBody('F-1', 'D0', ['D0-U3'], '2027-01-01', '2027-01-03'))) as ReturnType<typeof bookingBody>),
    id: 1,
    revision: 1,
    status: 'confirmed',
    property,
    nights: 2,
    notes: null,
    cancellation: null,
    created_at: created,
    updated_at: created,
  };
  const tail = (window: object | null, data: object) =>
    `,${JSON.stringify({ origin: 'partner', version: '2026-09', created_at: created, integration: { id: 1, slug: 'bench-booking-0' }, property, window, data }).slice(1)}`;
  const units = Array.from({ length: 20 }, (_, n) => ({
    inventory_id: n + 1,
    external_unit_id: `D0-U${n + 1}`,
    name: `Unit ${n + 1}`,
    unavailable: n === 2 ? ['2027-01-01', '2027-01-02'] : [],
  }));
  return {
    head1: head('01M8FG3Z7S2HZ4BSV7SVWSSSEA', 'booking.changed'),
    tail1: tail(null, { booking }),
    head2: head('01M8FG3Z7SND7ABKYGKGE4D7ZG', 'availability.changed'),
    tail2: tail({ from: '2027-01-01', to: '2027-01-02' }, { total_units: 20, units }),
    resp: JSON.stringify({ success: true, message: 'Booking created.', data: { ...booking, duplicate: false } }),
    body: JSON.stringify(bookingBody('B-1-1', 'BASE', ['BASE-U1'], '2027-01-01', '2027-01-03')),
  };
}

/** The script's targets: pgbench client c books among slots c*8 … c*8+7. */
export const TARGETS_TABLE =
  'create table if not exists bench_floor_targets (slot int primary key, integration_id int not null, property_id int not null, external_id text not null, unit_ids int[] not null)';

/** The targets' ids for the script: slot c*8+k is client c's k-th property. */
async function writeTargets(pgUrl: string, set: DistinctSet): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  try {
    await client.query(TARGETS_TABLE);
    await client.query(
      'create table if not exists baseline_rows (id bigserial primary key, body jsonb not null, created_at timestamptz not null default now())',
    );
    const properties = set.flatMap((targets, c) => targets.map((t, k) => ({ slot: c * 8 + k, property: t.property })));
    await client.query(
      `insert into bench_floor_targets (slot, integration_id, property_id, external_id, unit_ids)
       select t.slot, c.integration_id, c.property_id, c.external_id,
              (select array_agg(u.id order by u.position, u.id) from units u where u.property_id = c.property_id)
       from unnest($1::int[], $2::text[]) as t(slot, external_id)
       join coverage c on c.external_id = t.external_id
       on conflict (slot) do nothing`,
      [properties.map((p) => p.slot), properties.map((p) => p.property)],
    );
  } finally {
    await client.end();
  }
}

/** CPU seconds of every PostgreSQL process: the postmaster with its exited children, and the live ones. */
function postgresSeconds(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.name !== 'postgres') continue;
    // utime stime, and for the postmaster (no postgres parent) cutime cstime: its reaped backends
    ticks += Number(stat.fields[11]) + Number(stat.fields[12]);
    if (procStat(stat.fields[1])?.name !== 'postgres') ticks += Number(stat.fields[13]) + Number(stat.fields[14]);
  }
  return ticks / 100;
}

/** pgbench's arguments for `script` of bench/floor: prepared statements, no vacuum, the payload variables. */
export function pgbenchArgs(script: string, clients: number, length: ['-T' | '-t', number], pgUrl: string): string[] {
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(clients),
    '-j',
    String(Math.min(2, clients)),
    length[0],
    String(length[1]),
    '-f',
    path.join(ROOT, 'bench/floor', script),
  ];
  for (const [name, value] of Object.entries(payloadVariables())) args.push('-D', `${name}=${value}`);
  return [...args, pgUrl];
}

/** One pgbench run of `script` for SECONDS; its rate and CPU per transaction. */
async function pgbench(pgUrl: string, script: string): Promise<FloorResult> {
  const wal0 = await walBytes(pgUrl);
  const postgres0 = postgresSeconds();
  const child = run('pgbench', pgbenchArgs(script, CLIENTS, ['-T', SECONDS], pgUrl), { maxBuffer: 1 << 22 });
  const pid = child.child.pid!;
  let clientSeconds = 0;
  // pgbench's own CPU, read just before it exits (sampled: it is gone by the time it answers)
  const sampler = setInterval(() => (clientSeconds = Math.max(clientSeconds, cpuOf(pid))), 200);
  const { stdout } = await child.finally(() => clearInterval(sampler));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the postmaster reaps the backends
  const postgres1 = postgresSeconds();
  const wal1 = await walBytes(pgUrl);
  const transactions = Number(/actually processed: (\d+)/.exec(stdout)?.[1] ?? 0);
  const failed = Number(/failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const per = (amount: number, places: number) => (transactions > 0 ? round(amount / transactions, places) : NaN);
  return {
    perSecond: Math.round(tps),
    transactions,
    failed,
    postgres_cpu_ms_per_op: per((postgres1 - postgres0) * 1000, 3),
    client_cpu_ms_per_op: per(clientSeconds * 1000, 3),
    wal_bytes_per_op: per(wal1 - wal0, 0),
  };
}

/** The create script and the INSERT script in turn (create, insert, create, insert); the faster run of each. */
export async function floorRun(pgUrl: string, set: DistinctSet) {
  await writeTargets(pgUrl, set);
  const creates: FloorResult[] = [];
  const inserts: FloorResult[] = [];
  for (let round = 0; round < 2; round++) {
    creates.push(await pgbench(pgUrl, 'create.sql'));
    inserts.push(await pgbench(pgUrl, 'insert.sql'));
  }
  const best = (list: FloorResult[]) => list.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
  return { create: best(creates), insert: best(inserts), creates, inserts };
}
