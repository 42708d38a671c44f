/**
 * The rolling-upgrade rule, checked: a database migrated by this release still serves the previous
 * release. Migrates a scratch PostgreSQL database with this tree, then runs the previous release
 * (`git archive` of REF, sharing this tree's node_modules) beside this one on it, and drives a
 * partner's work through both: a property and a booking created on the previous release are read
 * on this one, and the other way round.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npx tsx scripts/check-previous-release.ts [REF]
 *
 * REF defaults to HEAD~1; use the tag of the release being replaced.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT, freePort, sleep } from './lib.js';

const STAFF_TOKEN = `dls_${'C'.repeat(40)}`;

interface Node {
  url: string;
  child: ChildProcess;
  output(): string;
}

async function startNode(tree: string, databaseUrl: string, secretsKey: string): Promise<Node> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(tree, 'src/main.ts')], {
    cwd: tree,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      STAFF_TOKEN,
      SECRETS_KEY: secretsKey,
      WEBHOOK_ALLOW_INSECURE: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  for (let waited = 0; ; waited += 200) {
    if (child.exitCode !== null) throw new Error(`the node of ${tree} exited (${child.exitCode}): ${out}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child, output: () => out };
    if (waited > 180_000) throw new Error(`the node of ${tree} did not start: ${out}`);
    await sleep(200);
  }
}

async function stopNode(node: Node): Promise<void> {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGTERM');
  await exited;
}

/** The answer's `data`, of the shape the caller names for the route. */
async function call<T>(base: string, token: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json().catch(() => null)) as { data: T } | null;
  if (res.status >= 300) throw new Error(`${method} ${route} on ${base}: ${res.status} ${JSON.stringify(json)}`);
  return json!.data;
}

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** A partner's round of work on `writer`, read back on `reader`. */
async function roundTrip(writer: string, reader: string, label: string): Promise<void> {
  const brand = await call<{ id: number }>(writer, STAFF_TOKEN, 'POST', '/api/staff/v1/brands', { name: `${label} brand` });
  const created = await call<{ api_key: string }>(writer, STAFF_TOKEN, 'POST', '/api/staff/v1/integrations', { brand_id: brand.id, name: `${label} partner` });
  const key = created.api_key;
  const api = '/api/integrations/v1';
  const property = await call<{ doorloom_id: number }>(writer, key, 'POST', `${api}/properties`, {
    external_id: `${label}-villa`,
    name: `${label} villa`,
    description: 'Rolling-upgrade check.',
    address: { address_line_1: '1 Test Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
    space: { bedrooms: 1, washrooms: 1 },
    occupancy: { max_guests: 4 },
    pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
    units: [{ name: 'Room 1', external_id: `${label}-U1` }],
  });
  const booking = await call<{ id: number }>(writer, key, 'POST', `${api}/bookings`, {
    external_booking_id: `${label}-BK`,
    property: { external_id: `${label}-villa` },
    units: [{ external_unit_id: `${label}-U1`, adults: 2 }],
    check_in: day(10),
    check_out: day(12),
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
    pricing: { total: 10000, currency: 'INR' },
    source: { channel: 'airbnb', reference: 'HM-1' },
  });
  const read = await call<{ external_booking_id: string }>(reader, key, 'GET', `${api}/bookings/${booking.id}`);
  if (read.external_booking_id !== `${label}-BK`) throw new Error(`${label}: the booking read back differs`);
  const snapshot = await call<{ data: { dates: Array<{ available_units: number }> } }>(
    reader,
    key,
    'GET',
    `${api}/properties/${property.doorloom_id}/availability?from=${day(10)}&to=${day(11)}`,
  );
  if (snapshot.data.dates.some((d) => d.available_units !== 0)) throw new Error(`${label}: the hold is not seen`);
  const events = await call<Array<{ event: { type: string } }>>(reader, key, 'GET', `${api}/events?after_sequence=0&limit=200`);
  if (!events.some((row) => row.event.type === 'booking.changed')) throw new Error(`${label}: no booking.changed event`);
}

async function main(): Promise<void> {
  const ref = process.argv[2] ?? 'HEAD~1';
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl?.startsWith('postgres')) throw new Error('set DATABASE_URL to a PostgreSQL where a scratch database may be created');
  const previous = await mkdtemp(path.join(os.tmpdir(), 'doorloom-previous-'));
  const name = `doorloom_upgrade_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const secretsKey = randomBytes(32).toString('hex');
  const nodes: Node[] = [];
  try {
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${ref}" | tar -x -C "${previous}"`]);
    await symlink(path.join(ROOT, 'node_modules'), path.join(previous, 'node_modules'));
    console.log(`previous release: ${ref} (${execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', ref]).toString().trim()})`);

    const current = await startNode(ROOT, url.toString(), secretsKey);
    nodes.push(current);
    console.log('this release migrated the database and serves it');
    const old = await startNode(previous, url.toString(), secretsKey);
    nodes.push(old);
    console.log('the previous release starts on the migrated database');
    await roundTrip(old.url, current.url, 'previous-then-current');
    await roundTrip(current.url, old.url, 'current-then-previous');
    console.log('both releases serve side by side: writes of each are read by the other');
  } finally {
    for (const node of nodes) await stopNode(node);
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
    await rm(previous, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`check-previous-release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
