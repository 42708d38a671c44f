import pg from 'pg';
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  downFleet,
  killMember,
  leaderName,
  startNode,
  stopNode,
  upFleet,
  REST_API_USER,
  waitForProxyStatus,
  type FleetState,
  type PoolMode,
} from '../../scripts/fleet.js';
import { PG_BIN, asPostgresArgv } from '../../scripts/lib.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { allEvents, api, bookingBody, day, expectServiceAnswer, newKey, seedPartner, sleep, staff, type Answer, type Partner } from './fleet.helpers.js';

/**
 * The fleet of deploy/ on this machine (npm run fleet): three nodes behind HAProxy, PgBouncer,
 * a Patroni primary with its synchronous standby. One topology for the whole file; the tests run
 * in order and each leaves it whole (a killed node is restarted).
 */

const POOL_MODE = (process.env.FLEET_POOL_MODE ?? 'transaction') as PoolMode;
/** The longest a request may take while the primary is switched (docs/operations.md). */
const SWITCH_BOUND_MS = 12_000;

let state: FleetState;
let receiver: Receiver;
let failed = false;

beforeAll(async () => {
  receiver = await startReceiver();
  state = await upFleet({ poolMode: POOL_MODE, log: (line) => console.log(`fleet: ${line}`) });
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  if (state) await downFleet(state.stateDir, { keep: failed || !!process.env.FLEET_KEEP, log: (line) => console.log(`fleet: ${line}`) });
}, 120_000);

function track(fn: () => Promise<void>) {
  return async () => {
    try {
      await fn();
    } catch (error) {
      failed = true;
      throw error;
    }
  };
}

const nodeUrl = (i: number) => `http://127.0.0.1:${state.nodes[i].port}`;

/** Waits until at least `secondsLeft` of the current fixed rate window (the wall-clock minute) remain. */
async function freshWindow(secondsLeft: number): Promise<void> {
  const into = Date.now() % 60_000;
  if (60_000 - into < secondsLeft * 1000) await sleep(60_000 - into + 500);
}

describe('safe defaults', () => {
  /** psql's exit code and its error; -w: never prompt, so a password that is needed and missing is an error. */
  const psql = (args: string[], options: { password?: string; asPostgres?: boolean } = {}) => {
    const argv = [path.join(PG_BIN, 'psql'), '-w', '-X', '-tA', '-c', 'select 1', ...args];
    const [command, ...rest] = options.asPostgres ? asPostgresArgv(argv[0], argv.slice(1)) : argv;
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
    if (options.password) env.PGPASSWORD = options.password;
    try {
      return { code: 0, output: execFileSync(command, rest, { env, cwd: '/', encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim() };
    } catch (error) {
      const e = error as { status: number; stderr: string };
      return { code: e.status, output: String(e.stderr).trim() };
    }
  };

  it(
    'PostgreSQL and PgBouncer refuse a connection without a password, over TCP and the local socket, and accept the generated one',
    track(async () => {
      const primary = state.members.find((m) => m.name === 'pg1')!;
      const tcp = ['-h', '127.0.0.1', '-p', String(primary.pgPort), '-U', 'postgres', 'postgres'];
      const socket = ['-h', path.join(state.stateDir, 'run'), '-p', String(primary.pgPort), '-U', 'postgres', 'postgres'];
      const bouncer = ['-h', '127.0.0.1', '-p', String(state.pgbouncer.port), '-U', 'doorloom', 'doorloom'];
      for (const [args, asPostgres] of [
        [tcp, false],
        [socket, true],
        [bouncer, false],
      ] as const) {
        const refused = psql([...args], { asPostgres });
        expect(refused.code, refused.output).not.toBe(0);
        expect(refused.output).toMatch(/no password supplied/);
      }
      expect(psql([...tcp], { password: 'not-the-password' }).output).toMatch(/password authentication failed/);
      expect(psql([...tcp], { password: state.secrets.postgres })).toEqual({ code: 0, output: '1' });
      expect(psql([...socket], { password: state.secrets.postgres, asPostgres: true })).toEqual({ code: 0, output: '1' });
      expect(psql([...bouncer], { password: state.secrets.doorloom })).toEqual({ code: 0, output: '1' });
    }),
  );

  it(
    "Patroni's REST API makes no change without its credentials; its health checks need none",
    track(async () => {
      const rest = `http://127.0.0.1:${state.members[0].restPort}`;
      for (const [method, route] of [
        ['POST', '/reload'],
        ['POST', '/restart'],
        ['POST', '/switchover'],
        ['PATCH', '/config'],
      ]) {
        const res = await fetch(`${rest}${route}`, { method, body: '{}', headers: { 'content-type': 'application/json' } });
        expect(res.status, `${method} ${route}`).toBe(401);
      }
      const wrong = await fetch(`${rest}/reload`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${REST_API_USER}:wrong`).toString('base64')}` },
      });
      expect(wrong.status).toBe(401);
      const reload = await fetch(`${rest}/reload`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${REST_API_USER}:${state.secrets.restApi}`).toString('base64')}` },
      });
      expect(reload.status).toBe(202);
      expect((await fetch(`${rest}/primary`)).status).toBe(200);
    }),
  );

  it(
    'the state directory is 0700 and nothing under it is open to group or others',
    track(async () => {
      expect(lstatSync(state.stateDir).mode & 0o777).toBe(0o700);
      const open: string[] = [];
      let files = 0;
      const walk = (dir: string) => {
        for (const entry of readdirSync(dir)) {
          const file = path.join(dir, entry);
          const stat = lstatSync(file);
          // sockets and symbolic links carry no data of their own; they sit in 0700 directories
          if (stat.isDirectory()) walk(file);
          else if (!stat.isFile()) continue;
          else files++;
          if (stat.mode & 0o077) open.push(`${(stat.mode & 0o777).toString(8)} ${file}`);
        }
      };
      walk(state.stateDir);
      expect(open).toEqual([]);
      expect(files).toBeGreaterThan(100);
      for (const file of ['state.json', 'pgbouncer-users.txt', 'pgbouncer.ini', 'pg1/patroni.yml', 'haproxy-nodes.cfg', 'node1.log']) {
        expect(lstatSync(path.join(state.stateDir, file)).mode & 0o777, file).toBe(0o600);
      }
    }),
  );
});

describe('three nodes share one database', () => {
  it(
    'a rate tier counts across nodes',
    track(async () => {
      const partner = await seedPartner(state, 'tier', 1);
      await freshWindow(25);
      const answers: Answer[] = [];
      for (let i = 0; i < 61; i++) answers.push(await api(state, partner.key, 'GET', '/me', { headers: { 'x-forwarded-for': `203.0.113.${i + 1}` } }));
      // round robin: every node answered some of them
      expect(new Set(answers.map((a) => a.node)).size).toBe(3);
      expect(answers.slice(0, 60).map((a) => a.status)).toEqual(Array(60).fill(200));
      expect(answers[60]).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    }),
  );

  it(
    'per source address through TRUST_PROXY: each forwarded address its own bucket on every node; a client that is not the proxy cannot pick one',
    track(async () => {
      await freshWindow(10);
      const unauthenticated = (forwardedFor: string, localAddress = '127.0.0.1') =>
        new Promise<{ left: number; node?: string }>((resolve, reject) => {
          const req = http.get(
            `${state.apiUrl}/api/integrations/v1/me`,
            { headers: { 'x-forwarded-for': forwardedFor }, localAddress, agent: false },
            (res) => {
              res.resume();
              res.on('end', () => {
                expect(res.statusCode).toBe(401);
                resolve({ left: Number(res.headers['x-ratelimit-remaining']), node: /^req-(\d+)-/.exec(String(res.headers['x-request-id']))?.[1] });
              });
            },
          );
          req.on('error', reject);
        });
      const a: Array<{ left: number; node?: string }> = [];
      for (let i = 0; i < 6; i++) a.push(await unauthenticated('198.51.100.7'));
      // one bucket, counted down by whichever node answered
      expect(new Set(a.map((x) => x.node)).size).toBe(3);
      expect(a.map((x) => a[0].left - x.left)).toEqual([0, 1, 2, 3, 4, 5]);
      const b = await unauthenticated('198.51.100.8');
      expect(b.left).toBe(599);

      // From another address than the trusted one (127.0.0.2), the header it sends is not believed:
      // HAProxy appends the client's address, and that address is the bucket.
      const s1 = await unauthenticated('198.51.100.50', '127.0.0.2');
      const s2 = await unauthenticated('198.51.100.51', '127.0.0.2');
      expect(s1.left - s2.left).toBe(1);
      const s3 = await unauthenticated('198.51.100.52', '127.0.0.3');
      expect(s3.left).toBe(599);
    }),
  );

  it(
    'a rotated key is refused on every node at once; a snapshot read on any node reflects a write made on another',
    track(async () => {
      const partner = await seedPartner(state, 'rotate', 2);
      for (let i = 0; i < 3; i++) expect((await api(state, partner.key, 'GET', '/me', { base: nodeUrl(i) })).status).toBe(200);
      const rotated = await staff(state, 'POST', `/integrations/${partner.id}/api-key/rotate`);
      expect(rotated.status, rotated.text).toBe(200);
      const fresh: string = rotated.body.data.api_key;
      const old = await Promise.all([0, 1, 2].map((i) => api(state, partner.key, 'GET', '/me', { base: nodeUrl(i) })));
      expect(old.map((a) => a.status)).toEqual([401, 401, 401]);
      const now = await Promise.all([0, 1, 2].map((i) => api(state, fresh, 'GET', '/me', { base: nodeUrl(i) })));
      expect(now.map((a) => a.status)).toEqual([200, 200, 200]);

      // read the snapshot on nodes 2 and 3 (caching it), write on node 1, read again on 2 and 3
      const snapshot = (i: number) =>
        api(state, fresh, 'GET', `/properties/${partner.villa.id}/availability?from=${day(20)}&to=${day(21)}`, { base: nodeUrl(i) });
      const before = await Promise.all([1, 2].map(snapshot));
      for (const s of before) expect(s.body.data.data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([2, 2]);
      const booked = await api(state, fresh, 'POST', '/bookings', {
        base: nodeUrl(0),
        body: bookingBody(partner, 0, 20, 2),
        headers: { 'idempotency-key': newKey() },
      });
      expect(booked.status, booked.text).toBe(201);
      const after = await Promise.all([1, 2].map(snapshot));
      for (const s of after) {
        expect(s.body.data.data.dates.map((d: { available_units: number }) => d.available_units)).toEqual([1, 1]);
        expect(s.body.data.sequence).toBeGreaterThan(before[0].body.data.sequence);
      }
    }),
  );
});

interface Load {
  stop(): Promise<void>;
  answers: Answer[];
  /** Bookings answered 201: id, the nights they hold, whether a host made it. */
  created: Array<{ id: number; partner: Partner; nights: number; host: boolean }>;
}

/**
 * Partners creating bookings through HAProxy, each on units and nights of its own, retrying a
 * failed create with the same Idempotency-Key (as a partner does) until it gets an answer.
 */
function bookingLoad(partners: Partner[], options: { pauseMs: number; hostEvery?: number; allowed: number[]; retryOn: number[] }): Load {
  let running = true;
  const answers: Answer[] = [];
  const created: Load['created'] = [];
  const loops = partners.map(async (partner, p) => {
    const units = partner.villa.aliases.length;
    for (let i = 0; running; i++) {
      const host = options.hostEvery !== undefined && i % options.hostEvery === options.hostEvery - 1;
      // each request its own unit and night; host bookings on the last unit
      const unit = host ? units - 1 : i % (units - 1);
      const checkIn = 30 + Math.floor(i / (units - 1)) * 2;
      const key = newKey();
      const body = host
        ? {
            units: [{ inventory_id: partner.villa.unitIds[unit], adults: 2 }],
            check_in: day(30 + i),
            check_out: day(31 + i),
            guest: { name: 'Host Guest' },
            pricing: { total: 8000 },
          }
        : bookingBody(partner, unit, checkIn);
      for (let attempt = 0; attempt < 40; attempt++) {
        const answer = host
          ? await staff(state, 'POST', `/properties/${partner.villa.id}/bookings`, body, { headers: { 'x-forwarded-for': `192.0.2.${p + 1}` } })
          : await api(state, partner.key, 'POST', '/bookings', { body, headers: { 'idempotency-key': key, 'x-forwarded-for': `192.0.2.${p + 1}` } });
        answers.push(answer);
        if (answer.status === 201) {
          created.push({ id: answer.body.data.id, partner, nights: 1, host });
          break;
        }
        if (!options.retryOn.includes(answer.status) || host) break;
        await sleep(250);
      }
      await sleep(options.pauseMs);
    }
  });
  return {
    answers,
    created,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every booking answered 201 exists, holds its nights, and no unit holds a night twice. */
async function expectBookingsWhole(load: Load): Promise<void> {
  expect(load.created.length).toBeGreaterThan(0);
  for (const booking of load.created) {
    const read = await staff(state, 'GET', `/bookings/${booking.id}`);
    expect(read.status, `booking ${booking.id}: ${read.text}`).toBe(200);
  }
  const db = new pg.Client({ connectionString: state.adminUrl.replace(/\/postgres$/, '/doorloom') });
  await db.connect();
  try {
    const ids = load.created.map((b) => b.id);
    const held = await db.query<{ booking_id: number; n: number }>(
      'select booking_id, count(*)::int as n from unit_nights where booking_id = any($1) group by booking_id',
      [ids],
    );
    expect(held.rows.length).toBe(ids.length);
    for (const row of held.rows) expect(row.n).toBe(load.created.find((b) => b.id === row.booking_id)!.nights);
    const twice = await db.query('select unit_id, night from unit_nights group by unit_id, night having count(*) > 1');
    expect(twice.rows).toEqual([]);
  } finally {
    await db.end();
  }
}

/** GET /events has every sequence from 1, without a gap, and each booked 201 has its booking.changed. */
async function expectSequencesWhole(partner: Partner, load: Load): Promise<any[]> {
  const events = await allEvents(state, partner);
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  const booked = new Set(events.filter((e) => e.type === 'booking.changed').map((e) => e.data.booking.id));
  for (const b of load.created.filter((c) => c.partner === partner && !c.host)) expect(booked.has(b.id), `booking.changed of ${b.id}`).toBe(true);
  return events;
}

describe('losing a node', () => {
  it(
    'a node killed with -9 under load loses nothing: every 201 booking exists, sequences gap-free',
    track(async () => {
      const partners = await Promise.all(['kill-a', 'kill-b'].map((name) => seedPartner(state, name, 6)));
      // a request in flight on the killed node gets the proxy's 502/504 or a reset; the partner retries it
      const load = bookingLoad(partners, { pauseMs: 150, allowed: [201, 409], retryOn: [0, 502, 503, 504] });
      await sleep(3_000);
      process.kill(state.nodes[1].pid, 'SIGKILL');
      await sleep(4_000);
      await load.stop();
      await expectBookingsWhole(load);
      for (const partner of partners) await expectSequencesWhole(partner, load);
      for (const a of load.answers) expect(a.status, a.text.slice(0, 200)).not.toBe(500);
      await startNode(state, 'node2');
      await waitForProxyStatus(state, 'node2', 'UP');
    }),
  );

  it(
    'a rolling restart of all three nodes under steady load through HAProxy: no failed request',
    track(async () => {
      const partners = await Promise.all(Array.from({ length: 9 }, (_, i) => seedPartner(state, `roll-${i}`, 4)));
      const answers: Answer[] = [];
      let running = true;
      // well inside each partner's tiers: about 50 reads a minute of each kind, 2 bookings a minute
      const paths = ['/properties', '/bookings', `/events?after_sequence=0&limit=5`];
      const readers = [0, 1, 2].map(async (w) => {
        for (let i = 0; running; i++) {
          const partner = partners[(i + w * 3) % partners.length];
          answers.push(
            await api(state, partner.key, 'GET', paths[Math.floor(i / partners.length) % paths.length], {
              headers: { 'x-forwarded-for': `192.0.2.${100 + w}` },
            }),
          );
          await sleep(60);
        }
      });
      const writer = (async () => {
        for (let i = 0; running; i++) {
          const partner = partners[i % partners.length];
          const j = Math.floor(i / partners.length); // this partner's j-th booking: a unit and night of its own
          answers.push(
            await api(state, partner.key, 'POST', '/bookings', {
              body: bookingBody(partner, j % 4, 40 + Math.floor(j / 4)),
              headers: { 'idempotency-key': newKey(), 'x-forwarded-for': '192.0.2.200' },
            }),
          );
          await sleep(400);
        }
      })();
      try {
        for (const node of state.nodes) {
          await stopNode(state, node.name, 'SIGTERM');
          await startNode(state, node.name);
          await waitForProxyStatus(state, node.name, 'UP');
        }
        await sleep(1_000);
      } finally {
        running = false;
        await Promise.all([...readers, writer]);
      }
      const failures = answers.filter((a) => a.status < 200 || a.status >= 300);
      expect(failures.map((a) => `${a.status} ${a.text.slice(0, 120)}`)).toEqual([]);
      expect(answers.length).toBeGreaterThan(200);
      console.log(`rolling restart: ${answers.length} requests, none failed`);
    }),
  );
});

describe('losing the primary', () => {
  it(
    'the primary killed with -9 under creates, host edits and deliveries: only 503 DATABASE_UNAVAILABLE meanwhile; afterwards nothing lost, delivery whole',
    track(async () => {
      const partners = await Promise.all(['fo-a', 'fo-b', 'fo-c'].map((name) => seedPartner(state, name, 6, receiver)));
      // about one write a second per partner: within the booking-write tier whatever the window
      const load = bookingLoad(partners, { pauseMs: 800, hostEvery: 4, allowed: [201, 409], retryOn: [503] });
      await sleep(3_000);
      const leader = await leaderName(state);
      expect(leader).not.toBeNull();
      const killedAt = performance.now();
      const answersBefore = load.answers.length;
      killMember(state, leader!);
      // the first write sent after the kill that the service acknowledges
      const firstWriteAfter = () => {
        const acknowledged = load.answers.slice(answersBefore).filter((a) => a.status === 201 && a.sentAt > killedAt);
        return acknowledged.length > 0 ? Math.min(...acknowledged.map((a) => a.sentAt + a.ms)) - killedAt : 0;
      };
      let firstWrite = 0;
      while (!firstWrite && performance.now() - killedAt < 60_000) {
        await sleep(100);
        firstWrite = firstWriteAfter();
      }
      expect(firstWrite).toBeGreaterThan(0);
      await sleep(3_000);
      await load.stop();
      const newLeader = await leaderName(state);
      expect(newLeader).not.toBe(leader);
      console.log(`primary ${leader} killed: first acknowledged write ${Math.round(firstWrite)} ms later; new primary ${newLeader}`);

      for (const a of load.answers) {
        expectServiceAnswer(a, [201, 409]);
        expect(a.ms).toBeLessThan(SWITCH_BOUND_MS);
      }
      expect(load.answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
      await expectBookingsWhole(load);

      // every receiver gets every event in order, and GET /events agrees with what it got
      for (const partner of partners) {
        const events = await expectSequencesWhole(partner, load);
        const last = events.length;
        await receiver.waitFor(() => new Set(receiver.of(partner.slug).map((r) => r.json?.sequence)).size >= last, 90_000, `${partner.slug}'s ${last} events`);
        const got = receiver.of(partner.slug).map((r) => r.json);
        // in order: a redelivery repeats an event already sent, it never goes back past a later one's first delivery
        const firsts: number[] = [];
        const seen = new Set<number>();
        for (const e of got) {
          if (!seen.has(e.sequence)) firsts.push(e.sequence);
          seen.add(e.sequence);
        }
        expect(firsts).toEqual(events.map((e) => e.sequence));
        const bySequence = new Map(got.map((e) => [e.sequence, e]));
        for (const e of events) expect(bySequence.get(e.sequence)).toEqual(e);

        // each night's latest availability event carries what the snapshot shows for that night now
        const latest = new Map<string, { sequence: number; night: unknown }>();
        for (const e of events.filter((x) => x.type === 'availability.changed')) {
          for (const night of e.data.dates as Array<{ date: string }>) latest.set(night.date, { sequence: e.sequence, night });
        }
        const snapshot = await api(state, partner.key, 'GET', `/properties/${partner.villa.id}/availability?from=${day(25)}&to=${day(80)}`, {
          headers: { 'x-forwarded-for': `198.18.${partner.id % 250}.2` },
        });
        expect(snapshot.status, snapshot.text).toBe(200);
        expect(snapshot.body.data.sequence).toBeGreaterThanOrEqual(Math.max(...[...latest.values()].map((l) => l.sequence)));
        for (const night of snapshot.body.data.data.dates as Array<{ date: string }>) expect(latest.get(night.date)?.night, night.date).toEqual(night);
      }
    }),
  );
});
