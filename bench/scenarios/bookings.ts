/**
 * Item 1: POST /bookings on PostgreSQL, 20 concurrent
 * keep-alive clients (one connection each).
 *
 * - distinct: every request books a unit and stay no other request books. The service runs as in
 *   production, rate limits ON: each client has its own source address (127.0.0.x) and 8
 *   integrations of its own, each with its own 20-unit property, so no tier binds (60 booking
 *   writes a minute per integration, 600 calls a minute per address) and the limiter's counters
 *   stay on the measured path. Each run uses a set of integrations and addresses of its own, so
 *   two runs in the same clock minute do not add up in one window.
 * - contended: 20 clients on ONE unit of one integration's property: about 20 requests in flight
 *   for each night (request k books night k div 20), so exactly one wins and the others answer
 *   409. One integration making hundreds of writes a minute is what RATE_LIMITS=off is for.
 */
import pg from 'pg';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import { bookingBody, createProperty, idempotencyKey, inParallel, setupIntegration, staff } from '../lib/api.js';
import { commitsOf, drive, type DriveResult } from '../lib/clients.js';
import type { Service } from '../lib/processes.js';
import { cpuPer, measureHooks, SECONDS, WARMUP_SECONDS, type ProfileSession } from './common.js';

export const CLIENTS = 20;
const PER_CLIENT = 8;
const UNITS = 20;

/** Stays start three days ahead, clear of "before today" whatever the time of day. */
const firstNight = () => addDays(kolkataDate(Date.now()), 3);

interface Target {
  apiKey: string;
  property: string;
}
/** One set of integrations for one distinct run: [client][k]. */
export type DistinctSet = Target[][];

/** Creates `sets` sets of CLIENTS × PER_CLIENT integrations, each with a UNITS-unit property. */
export async function setupDistinct(service: Service, sets: number): Promise<DistinctSet[]> {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench bookings' })).body.data.id;
  const slots = Array.from({ length: sets * CLIENTS * PER_CLIENT }, (_, i) => i);
  const targets = await inParallel(slots, 4, async (i) => {
    const integration = await setupIntegration(service.base, { brandId: brand, name: `Bench booking ${i}` });
    const property = `D${i}`;
    await createProperty(service.base, integration.apiKey, property, UNITS);
    return { apiKey: integration.apiKey, property };
  });
  return Array.from({ length: sets }, (_, s) =>
    Array.from({ length: CLIENTS }, (_, c) => targets.slice((s * CLIENTS + c) * PER_CLIENT, (s * CLIENTS + c + 1) * PER_CLIENT)),
  );
}

export interface BookingOutcome {
  drive: DriveResult;
  cores: ReturnType<ReturnType<typeof measureHooks>['cores']>;
  created: number;
  refused: number;
  detail: Record<string, unknown>;
}

function outcome(result: DriveResult, cores: ReturnType<ReturnType<typeof measureHooks>['cores']>, commitsPerRequest: number | null): BookingOutcome {
  const created = Math.round((result.byStatus.get(201) ?? 0) / result.seconds);
  const refused = Math.round((result.byStatus.get(409) ?? 0) / result.seconds);
  const other = [...result.byStatus].filter(([s]) => s !== 201 && s !== 409).map(([s, c]) => `${c}×${s}`);
  if (result.failures) other.push(`${result.failures} socket errors`);
  for (const sample of result.samples) process.stderr.write(`  unexpected answer: ${sample}\n`);
  return {
    drive: result,
    cores,
    created,
    refused,
    detail: {
      requests_per_s: Math.round(result.total / result.seconds),
      other_answers: other.join(', ') || 'none',
      cores,
      ...cpuPer(cores, result.total),
      ...(commitsPerRequest === null ? {} : { commits_per_request: commitsPerRequest }),
    },
  };
}

/**
 * One distinct run with set `set` from addresses 127.0.0.(first…first+19); stays start
 * `dayOffset` days after the first night so that runs on one database never overlap.
 */
export async function distinctRun(
  service: Service,
  pgUrl: string | null,
  set: DistinctSet,
  firstAddress: number,
  dayOffset: number,
  session: ProfileSession | null,
  windowName: string,
) {
  const day0 = addDays(firstNight(), dayOffset);
  const run = Date.now().toString(36);
  const hooks = measureHooks(service.pid, session, windowName, pgUrl ?? undefined);
  let commits0 = 0;
  let commits1 = 0;
  const result = await drive({
    base: service.base,
    clients: CLIENTS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    // the stays of one property never run past dayOffset + 58 days (below the next run's offset)
    maxPerClient: PER_CLIENT * UNITS * 29,
    addressOf: (client) => `127.0.0.${firstAddress + client}`,
    next: (client, n) => {
      const target = set[client][n % PER_CLIENT];
      const m = Math.floor(n / PER_CLIENT);
      const ref = `A-${run}-${client}-${n}`;
      const checkIn = addDays(day0, 2 * Math.floor(m / UNITS));
      return {
        path: '/api/integrations/v1/bookings',
        headers: { authorization: `Bearer ${target.apiKey}`, 'idempotency-key': `k-${ref}` },
        body: bookingBody(ref, target.property, [`${target.property}-U${(m % UNITS) + 1}`], checkIn, addDays(checkIn, 2)),
      };
    },
    onMeasureStart: async () => {
      await hooks.onMeasureStart();
      if (pgUrl) commits0 = await commitsOf(pgUrl);
    },
    onMeasureEnd: async () => {
      hooks.onMeasureEnd();
      if (pgUrl) commits1 = await commitsOf(pgUrl);
    },
  });
  // pg_stat_database is updated when a backend reports (about once a second): approximate.
  return outcome(result, hooks.cores(), pgUrl ? Math.round(((commits1 - commits0) / Math.max(1, result.total)) * 10) / 10 : null);
}

/** The contended run, with its check: exactly one winner per night, and the database agrees. */
export async function contendedRun(service: Service, pgUrl: string, session: ProfileSession | null, windowName: string) {
  const integration = await setupIntegration(service.base, { name: 'Bench contended' });
  const property = await createProperty(service.base, integration.apiKey, 'CONTENDED', 1);
  const day0 = firstNight();
  const run = Date.now().toString(36);
  const winners = new Map<number, number>();
  const asked = new Set<number>();
  let counter = 0;
  const hooks = measureHooks(service.pid, session, windowName, pgUrl);
  const result = await drive({
    base: service.base,
    clients: CLIENTS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    // at most 600 nights ahead
    maxPerClient: 600,
    addressOf: (client) => `127.0.0.${11 + client}`,
    next: (client, n) => {
      const night = Math.floor(counter++ / CLIENTS);
      asked.add(night);
      const ref = `C-${run}-${client}-${n}`;
      const checkIn = addDays(day0, night);
      return {
        path: '/api/integrations/v1/bookings',
        headers: { authorization: `Bearer ${integration.apiKey}`, 'idempotency-key': idempotencyKey(ref) },
        body: bookingBody(ref, 'CONTENDED', ['CONTENDED-U1'], checkIn, addDays(checkIn, 1)),
        tag: night,
      };
    },
    onAnswer: (shot, answer) => {
      if (answer.status === 201) winners.set(shot.tag!, (winners.get(shot.tag!) ?? 0) + 1);
    },
    ...hooks,
  });
  // The check: every night asked for has exactly one winner, and the database holds exactly
  // those bookings, one per night.
  const wrong = [...asked].filter((night) => winners.get(night) !== 1);
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  let database: { bookings: number; nights_held_twice: number };
  try {
    const { rows } = await client.query<{ bookings: number; nights_held_twice: number }>(
      `select (select count(*)::int from bookings where property_id = $1 and status = 'confirmed') as bookings,
              (select count(*)::int from (select check_in from bookings where property_id = $1 and status = 'confirmed' group by check_in having count(*) > 1) t) as nights_held_twice`,
      [property.doorloom_id],
    );
    database = rows[0];
  } finally {
    await client.end();
  }
  const totalWinners = [...winners.values()].reduce((a, b) => a + b, 0);
  const correct = wrong.length === 0 && database.bookings === totalWinners && database.nights_held_twice === 0;
  const out = outcome(result, hooks.cores(), null);
  out.detail.check = {
    nights_asked: asked.size,
    nights_without_exactly_one_winner: wrong.length,
    winners: totalWinners,
    confirmed_bookings_in_database: database.bookings,
    nights_booked_twice_in_database: database.nights_held_twice,
    correct,
  };
  return { ...out, correct, nights: asked.size };
}

/**
 * Item 1's baseline: the same 20 clients posting the same booking bodies, from their own
 * source addresses, to a bare Fastify route that runs one single-row INSERT transaction on the
 * same PostgreSQL (bench/lib/baseline-server.mjs with DATABASE_URL). CPU per insert: the baseline
 * process and its PostgreSQL backends.
 */
export async function insertBaselineRun(baselineBase: string, baselinePid: number, pgUrl: string, firstAddress: number) {
  const day0 = firstNight();
  const hooks = measureHooks(baselinePid, null, 'insert baseline', pgUrl);
  const result = await drive({
    base: baselineBase,
    clients: CLIENTS,
    warmupSeconds: WARMUP_SECONDS,
    seconds: SECONDS,
    maxPerClient: 200_000,
    addressOf: (client) => `127.0.0.${firstAddress + client}`,
    next: (client, n) => ({ path: '/insert', body: bookingBody(`B-${client}-${n}`, 'BASE', ['BASE-U1'], day0, addDays(day0, 2)) }),
    ...hooks,
  });
  const cores = hooks.cores();
  return { perSecond: Math.round((result.byStatus.get(201) ?? 0) / result.seconds), drive: result, cores, ...cpuPer(cores, result.total) };
}
