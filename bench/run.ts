/**
 * `npm run bench`: every measurement in one run, each against a baseline measured in
 * the same run on the same machine. Prints a table and writes bench/results.json. Loopback only;
 * every load run and wait is bounded in count and time; every process and database it starts is
 * stopped at the end (bench/lib/processes.ts).
 *
 *   BENCH_SECONDS=8        measured seconds of each load run (warm-up BENCH_WARMUP=1 before it)
 *   BENCH_ONLY=me,bookings,contended,workers,delivery,fanout,sync,snapshots,pglite,growth,soak,wakeup,network,floor
 *                          a subset (workers and floor need the WORKERS=1 figures, so they run them too)
 *   BENCH_PROFILE=1        run the PostgreSQL services of /me, booking creates and delivery under
 *                          node --cpu-prof; print the top self-time functions of each measured
 *                          window and write bench/profile.json (the figures of such a run are
 *                          marked "profiled": the profiler costs a little)
 *   BENCH_KEEP_PROFILE=1   with BENCH_PROFILE, keep the raw .cpuprofile files (their directory,
 *                          doorloom-bench-prof-* under the system's temporary directory, is
 *                          otherwise removed at the end)
 *   BENCH_DEADLINE=570     seconds after which the run gives up (cleaning up)
 *   BENCH_DATABASE_URL     PostgreSQL to create the throwaway databases in
 *                          (default postgres://root@127.0.0.1:5432/test)
 *   BENCH_AGAINST=<ref>    instead of the scenarios above: four figures of this checkout against
 *                          an earlier commit's build, alternating for BENCH_AGAINST_ROUNDS rounds
 *                          (3) and written to bench/compare.json (bench/compare.ts; deadline 900 s)
 *
 * Processes, in order (each service stopped before the next starts):
 *   baseline   bench/lib/baseline-server.mjs, a bare Fastify app (the /me and snapshot baselines),
 *              measured right before and after each GET /me run (the machine may be shared)
 *   pg-off     PostgreSQL, WORKERS=1, RATE_LIMITS=off: GET /me, snapshots, contended booking
 *   pg-off-w2  same database, WORKERS=2: GET /me; then pg-off again (WORKERS=1): GET /me
 *   pg-on      PostgreSQL, WORKERS=1, rate limits on: distinct-unit booking creates; then, with
 *              no service, pgbench runs a create's own statements against the INSERT baseline's
 *              transaction on the same database (the floor, bench/scenarios/floor.ts)
 *   pg-on-w2   same database, WORKERS=2: the same; then pg-on again (WORKERS=1): the same
 *   pg-hooks   PostgreSQL, WORKERS=1, rate limits on, and the receiver (bench/lib/receiver.mjs):
 *              webhook delivery and bulk fan-out
 *   pg-growth  PostgreSQL, RATE_LIMITS=off: bulk-loaded logs for GET /me, typed replay, retention
 *              and the daily-partition comparison (BENCH_ONLY=growth)
 *   pglite-growth  the same on PGlite, stopped for each bulk load and started again on its
 *              DATA_DIR (BENCH_GROWTH_PGLITE=0 skips it)
 *   pglite     embedded PGlite, RATE_LIMITS=off: GET /me, snapshots, distinct booking creates; then
 *              bench/lib/pglite-memory.mjs on its DATA_DIR
 *   soak-*     PGlite, then PostgreSQL, rate limits on, the receiver: the mixed soak
 *              (BENCH_ONLY=soak, BENCH_SOAK_SECONDS)
 *   pg-net     PostgreSQL through a TCP proxy that delays 1 ms each way, RATE_LIMITS=off: booking
 *              creates one at a time (round trips counted) and 20 clients on one property, against
 *              the INSERT baseline through the same proxy (BENCH_ONLY=network)
 * The booking baseline is bench/lib/baseline-server.mjs with DATABASE_URL (POST /insert),
 * run after pg-on; POST /sync runs on pg-hooks.
 * RATE_LIMITS=off only where the contract's per-minute tiers would otherwise be what is measured
 * (GET /me: 60 a minute; one integration's contended creates; property reads for snapshots).
 */
import { freePort } from '../scripts/lib.js';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatSummary, loadProfiles, summarise, type ProfileSummary } from './lib/profile.js';
import { cleanupAll, createBenchDatabase, ROOT, startScript, startService, type Service } from './lib/processes.js';
import { formatMarkdown, formatTable, joinNotes, ordered, round, rows, verdict, type Row } from './lib/report.js';
import { contendedRun, distinctRun, insertBaselineRun, setupDistinct, type BookingOutcome } from './scenarios/bookings.js';
import { floorRun, hasPgbench } from './scenarios/floor.js';
import { cpuNote, cpuPer, measureHooks, PROFILING, profiledService, SECONDS, WARMUP_SECONDS, type ProfileSession } from './scenarios/common.js';
import { bareMedian, fanOut, manyStreams, Receiver, singleStream, syncRun } from './scenarios/delivery.js';
import { baselineMe, meLoad } from './scenarios/me.js';
import { snapshotRun } from './scenarios/snapshots.js';
import { wakeupRun } from './scenarios/wakeup.js';
import { DELAY_MS, delayProxy, networkBaseline, networkRun, throughProxy } from './scenarios/network.js';
import { BIG, growthRun, pgliteGrowthRun, type GrowthResult, type PGliteGrowthResult } from './scenarios/growth.js';
import { SOAK_SECONDS, soakRun, type SoakResult } from './scenarios/soak.js';
import { compareAgainst } from './compare.js';

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const against = process.env.BENCH_AGAINST?.trim();
const wanted = (...names: string[]) => !only || names.some((n) => only.includes(n));
const profiledNote = PROFILING ? 'profiled' : undefined;
const sessions = new Map<Service, ProfileSession>();
const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function push(row: Row) {
  rows.push({ ...row, note: joinNotes(row.note, profiledNote) || undefined });
}

async function start(name: string, env: Record<string, string>, profile: boolean): Promise<Service> {
  const { options, session } = profile ? profiledService(name) : { options: {}, session: null };
  const service = await startService(env, options);
  if (session) sessions.set(service, session);
  log(`${name} up (pid ${service.pid})`);
  return service;
}
const sessionOf = (service: Service) => sessions.get(service) ?? null;

async function rssRow(service: Service, engine: string, after: string) {
  push({
    item: 7,
    scenario: 'server RSS after the runs',
    engine,
    value: await service.rssMb(),
    unit: 'MiB',
    target: engine === 'pglite' ? '<= 300 MiB, or explained' : undefined,
    note: after,
  });
}

function meRow(item: number, engine: string, result: Awaited<ReturnType<typeof meLoad>>, baselineRps: number) {
  const r = result.result;
  const ratio = round(r.rps / baselineRps);
  const target = engine === 'postgres' ? '>= 0.8' : undefined;
  push({
    item,
    scenario: 'GET /me (20 connections)',
    engine,
    value: r.rps,
    unit: 'req/s',
    baseline: baselineRps,
    ratio,
    target,
    p50: r.p50,
    p99: r.p99,
    note: joinNotes(
      target && verdict(ratio, 0.8),
      'RATE_LIMITS=off',
      cpuNote(result.cores, r.requests),
      r.non2xx && `${r.non2xx} non-2xx`,
      r.errors && `${r.errors} errors`,
    ),
    detail: { requests: r.requests, statuses: r.statuses, cores: result.cores, ...cpuPer(result.cores, r.requests) },
  });
}

function distinctRow(outcome: BookingOutcome, engine: string, baseline?: Awaited<ReturnType<typeof insertBaselineRun>>) {
  const ratio = baseline ? round(outcome.created / baseline.perSecond) : undefined;
  const cpu = cpuPer(outcome.cores, outcome.drive.total);
  const cpuPerCreate = cpu.service_cpu_ms_per_op === undefined ? undefined : round((cpu.service_cpu_ms_per_op ?? 0) + (cpu.postgres_cpu_ms_per_op ?? 0));
  push({
    item: engine === 'postgres' ? 1 : 2,
    scenario: 'POST /bookings, 20 clients, distinct units',
    engine,
    value: outcome.created,
    unit: 'creates/s',
    baseline: baseline?.perSecond,
    ratio,
    target: engine === 'postgres' ? '>= 0.5x the INSERT baseline; CPU per create <= 2 ms' : undefined,
    p50: outcome.drive.p50,
    p99: outcome.drive.p99,
    note: joinNotes(
      engine === 'postgres' && (ratio !== undefined && ratio >= 0.5 && cpuPerCreate !== undefined && cpuPerCreate <= 2 ? 'met' : 'not met'),
      cpuPerCreate !== undefined && `${cpuPerCreate} ms CPU per create (service + PostgreSQL)`,
      'rate limits on (160 integrations, 20 source addresses: no tier binds)',
      cpuNote(outcome.cores, outcome.drive.total),
      baseline &&
        `baseline: bare Fastify route, one single-row INSERT transaction on the same PostgreSQL (${baseline.service_cpu_ms_per_op} + ${baseline.postgres_cpu_ms_per_op} ms CPU per insert)`,
      outcome.detail.other_answers !== 'none' && `other answers: ${String(outcome.detail.other_answers)}`,
    ),
    detail: { ...outcome.detail, baseline },
  });
}

/**
 * Item 1's floor: a create's own statements run by pgbench with no service, against the INSERT
 * baseline's transaction run the same way; the service's creates and the Fastify INSERT baseline
 * of the same run beside them.
 */
function floorRows(floor: Awaited<ReturnType<typeof floorRun>>, service: BookingOutcome, fastifyInsert: Awaited<ReturnType<typeof insertBaselineRun>>) {
  const { create, insert } = floor;
  // An insert's whole cost through the Fastify baseline: its route's CPU, and PostgreSQL's measured
  // as the floor's is (every process, exited backends included) by the pgbench INSERT runs.
  const insertCost = (fastifyInsert.service_cpu_ms_per_op ?? NaN) + insert.postgres_cpu_ms_per_op;
  const times = round(create.postgres_cpu_ms_per_op / insertCost, 1);
  log(`floor: ${create.perSecond} creates/s against ${insert.perSecond} inserts/s (pgbench); ${times}x an insert's CPU`);
  push({
    item: 1,
    scenario: "a create's own statements alone, no service (pgbench, 20 clients, distinct units)",
    engine: 'postgres',
    value: create.perSecond,
    unit: 'creates/s',
    baseline: insert.perSecond,
    ratio: round(create.perSecond / insert.perSecond),
    note: joinNotes(
      `PostgreSQL CPU per create ${create.postgres_cpu_ms_per_op} ms, ${times}x an insert's whole cost through the Fastify INSERT baseline (route ${fastifyInsert.service_cpu_ms_per_op} + PostgreSQL ${insert.postgres_cpu_ms_per_op} ms): where CPU runs out, no service creates faster than ${round(1 / times)} of the baseline's rate (the target is 0.5)`,
      `against the Fastify INSERT baseline's rate in this run (${fastifyInsert.perSecond}/s): ${round(create.perSecond / fastifyInsert.perSecond)}; the service's creates ${service.created}/s: ${round(service.created / create.perSecond)} of this floor`,
      `WAL ${create.wal_bytes_per_op} B per create against ${insert.wal_bytes_per_op} B`,
      `pgbench CPU ${create.client_cpu_ms_per_op} ms per create`,
      'baseline: the INSERT baseline transaction run by pgbench the same way (PostgreSQL CPU measured alike, every process)',
      'the faster of two runs each, alternating',
      (create.failed || insert.failed) && `${create.failed + insert.failed} failed transactions`,
    ),
    detail: floor,
  });
}

/** Items 8–10 of one engine: targets on PostgreSQL, the same figures reported on PGlite. */
function growthRows(engine: 'postgres' | 'pglite', g: GrowthResult | PGliteGrowthResult) {
  const big = `${BIG / 1e6}M`;
  const targeted = engine === 'postgres';
  /** One figure at its small and its big size; the big one is judged against the small one. */
  const pair = <T extends { ms: number }>(
    item: number,
    small: [string, T],
    large: T,
    spec: {
      scenario: (size: string) => string;
      unit: string;
      target: string;
      met: (ratio: number, ms: number) => boolean;
      against: string;
      notes: (r: T, isBig: boolean) => Array<string | false | undefined>;
      detail?: (r: T) => Record<string, unknown>;
    },
  ) => {
    const exact = large.ms / small[1].ms;
    const ratio = round(exact);
    for (const [size, r, isBig] of [
      [small[0], small[1], false],
      [big, large, true],
    ] as const) {
      push({
        item,
        scenario: spec.scenario(size),
        engine,
        value: r.ms,
        unit: spec.unit,
        target: isBig && targeted ? spec.target : undefined,
        note: joinNotes(
          isBig && (targeted ? `${verdict(spec.met(exact, r.ms) ? 1 : 0, 1)} (${ratio}x ${spec.against})` : `${ratio}x ${spec.against}`),
          ...spec.notes(r, isBig),
        ),
        detail: isBig && spec.detail ? spec.detail(r) : { ...r },
      });
    }
  };
  pair(8, ['10k', g.me.small], g.me.big, {
    scenario: (size) => `GET /me uncached, ${size} undelivered events`,
    unit: 'ms (median of 5)',
    target: '<= 3x the 10k figure and < 10 ms',
    met: (ratio, ms) => ratio <= 3 && ms < 10,
    against: 'the 10k figure',
    notes: (m) => [`undelivered_events ${m.undelivered}`, `samples ${m.samples.join(', ')} ms, each after the 1 s view expired`],
  });
  const readsIndex = g.plan.some((l) => l.includes('events_type_sequence'));
  pair(9, ['10k', g.replay.small], g.replay.big, {
    scenario: (size) => `GET /events?types=<rare> from the start, ${size}-event log`,
    unit: 'ms (median of 7)',
    target: '<= 3x the 10k figure',
    met: (ratio) => ratio <= 3,
    against: 'the 10k figure',
    notes: (r, isBig) => [
      `100 events of the kind in the log; ${r.returned} returned (limit 100)`,
      isBig && (readsIndex ? 'plan reads events_type_sequence' : 'plan does NOT read events_type_sequence'),
    ],
    detail: (r) => ({ ...r, plan: g.plan }),
  });
  pair(10, ['100k', g.retention.mid], g.retention.big, {
    scenario: (size) => `retention, ${size} expired events of one integration (bounded chunks)`,
    unit: 'ms',
    target: '<= 12x the 100k time and < 5 s',
    met: (ratio, ms) => ratio <= 12 && ms < 5000,
    against: 'the 100k time',
    notes: (r, isBig) => [
      `${r.deleted} deleted through POST /jobs/retention/run`,
      `${Math.round(r.wal_bytes / 2 ** 20)} MiB WAL (${r.wal_bytes_per_row} B/row)${engine === 'pglite' ? ", a restart's checkpoints included" : ''}`,
      'blocks_read' in r && `${r.blocks_read} blocks read, ${r.blocks_hit} hit`,
      isBig && `events table ${g.sizes.events_mib_at_big} MiB before`,
      isBig && 'data_dir_mib_at_big' in g.sizes && `DATA_DIR ${g.sizes.data_dir_mib_at_big} MiB before`,
    ],
  });
}

async function main() {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((n) => round(n));
  log(`load average ${loadAtStart.join(' ')}; ${SECONDS} s per load run after ${WARMUP_SECONDS} s warm-up${PROFILING ? '; PROFILING' : ''}`);
  log('building…');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (against) return compareAgainst(against, log);

  const baselinePort = await freePort();
  const baselineServer = await startScript(path.join(ROOT, 'bench/lib/baseline-server.mjs'), { PORT: String(baselinePort) }, /listening/);
  const baselineBase = `http://127.0.0.1:${baselinePort}`;

  // ---- GET /me against the bare route, measured right before AND right after it, the
  // baseline being their mean (the machine is shared: its load drifts within a minute) -------------
  const meAgainstBare = async (service: Service, engine: string, session: ProfileSession | null, pgUrl?: string) => {
    const before = await baselineMe(baselineBase);
    const me = await meLoad(service, session, `GET /me (${engine})`, pgUrl);
    const after = await baselineMe(baselineBase);
    const bare = Math.round((before.rps + after.rps) / 2);
    push({
      item: 5,
      scenario: 'bare Fastify JSON route (baseline)',
      engine: `- (for ${engine})`,
      value: bare,
      unit: 'req/s',
      p50: Math.max(before.p50, after.p50),
      p99: Math.max(before.p99, after.p99),
      note: `mean of the runs just before (${before.rps}) and after (${after.rps}) the GET /me ${engine} run`,
    });
    meRow(5, engine, me, bare);
    log(`GET /me ${engine} ${me.result.rps} req/s, bare ${bare} req/s`);
    return me.result.rps;
  };

  // ---- PostgreSQL, rate limits off: /me, snapshots, contended; then WORKERS=2 /me ----------------
  if (wanted('me', 'workers', 'snapshots', 'contended')) {
    const db = await createBenchDatabase();
    const svc = await start('pg-off', { DATABASE_URL: db, RATE_LIMITS: 'off' }, true);
    const ran: string[] = [];
    let meW1: number | null = null;
    if (wanted('me', 'workers')) {
      meW1 = await meAgainstBare(svc, 'postgres', sessionOf(svc), db);
      ran.push('GET /me');
    }
    if (wanted('snapshots')) {
      const hooks = measureHooks(svc.pid, sessionOf(svc), 'availability snapshot (postgres)', db);
      // a second process of the service on the same database, for the edits made elsewhere
      const writer = await start('pg-off-writer', { DATABASE_URL: db, RATE_LIMITS: 'off', NO_BACKGROUND: '1' }, false);
      const s = await snapshotRun(svc, baselineBase, hooks, db, writer).finally(() => writer.stop());
      snapshotRow('postgres', s, hooks.cores());
      ran.push('snapshots');
      log(`snapshot postgres p50 ${s.ours.p50} ms`);
    }
    if (wanted('contended')) {
      const c = await contendedRun(svc, db, sessionOf(svc), 'POST /bookings contended (postgres)');
      push({
        item: 1,
        scenario: 'POST /bookings, 20 clients, one unit (contended)',
        engine: 'postgres',
        value: c.refused,
        unit: 'refusals/s (409)',
        p50: c.drive.p50,
        p99: c.drive.p99,
        note: joinNotes(
          c.correct ? `correct: exactly one winner on each of ${c.nights} nights` : 'WRONG: see detail.check',
          `${c.created} creates/s`,
          'RATE_LIMITS=off',
          cpuNote(c.cores, c.drive.total),
          c.detail.other_answers !== 'none' && `other answers: ${String(c.detail.other_answers)}`,
        ),
        detail: c.detail,
      });
      ran.push('contended bookings');
      log(`contended: ${c.refused} refusals/s, correct ${c.correct}`);
    }
    await rssRow(svc, 'postgres', `after ${ran.join(', ')}`);
    await svc.stop();

    if (wanted('workers') && meW1 !== null) {
      // WORKERS=1, WORKERS=2, WORKERS=1 again: the WORKERS=2 run is compared with the mean of the
      // runs on either side of it.
      const w2 = await start('pg-off-w2', { DATABASE_URL: db, RATE_LIMITS: 'off', WORKERS: '2' }, false);
      const me2 = await meLoad(w2, null, 'GET /me (postgres, WORKERS=2)', db);
      await rssRow(w2, 'postgres WORKERS=2', 'after GET /me (primary + 2 workers)');
      await w2.stop();
      const again = await start('pg-off', { DATABASE_URL: db, RATE_LIMITS: 'off' }, false);
      const meW1Again = (await meLoad(again, null, 'GET /me (postgres, WORKERS=1 again)', db)).result.rps;
      await again.stop();
      const w1 = Math.round((meW1 + meW1Again) / 2);
      push({
        item: 5,
        scenario: 'GET /me, WORKERS=2 against WORKERS=1',
        engine: 'postgres',
        value: me2.result.rps,
        unit: 'req/s',
        baseline: w1,
        ratio: round(me2.result.rps / w1),
        p50: me2.result.p50,
        p99: me2.result.p99,
        note: joinNotes(
          `baseline: mean of WORKERS=1 before (${meW1}) and after (${meW1Again})`,
          'RATE_LIMITS=off',
          me2.result.non2xx && `${me2.result.non2xx} non-2xx`,
        ),
        detail: { cores: me2.cores, ...cpuPer(me2.cores, me2.result.requests) },
      });
      log(`GET /me WORKERS=2 ${me2.result.rps} req/s against ${w1}`);
    }
  }

  // ---- PostgreSQL, rate limits on: distinct booking creates, WORKERS=1, 2, 1 ----------------------
  if (wanted('bookings', 'workers', 'floor')) {
    const db = await createBenchDatabase();
    const svc = await start('pg-on', { DATABASE_URL: db }, true);
    // a set of integrations (and source addresses) per run: rate windows never add up across runs
    const sets = await setupDistinct(svc, wanted('workers') ? 3 : 1);
    log('distinct bookings: set up');
    const w1 = await distinctRun(svc, db, sets[0], 11, 0, sessionOf(svc), 'POST /bookings distinct (postgres)');
    log(`distinct W1: ${w1.created} creates/s`);
    await rssRow(svc, 'postgres', 'after distinct booking creates');
    await svc.stop();
    // the baseline: a bare route inserting one row per request in a transaction, same PostgreSQL
    const insertPort = await freePort();
    const insertServer = await startScript(path.join(ROOT, 'bench/lib/baseline-server.mjs'), { PORT: String(insertPort), DATABASE_URL: db }, /listening/);
    const insert = await insertBaselineRun(`http://127.0.0.1:${insertPort}`, insertServer.pid, db, 71);
    await insertServer.stop();
    log(`insert baseline: ${insert.perSecond}/s`);
    distinctRow(w1, 'postgres', insert);
    if (wanted('bookings', 'floor')) {
      if (await hasPgbench()) floorRows(await floorRun(db, sets[0]), w1, insert);
      else log('floor: pgbench is not installed; skipped');
    }
    if (wanted('workers')) {
      const w2svc = await start('pg-on-w2', { DATABASE_URL: db, WORKERS: '2' }, false);
      const w2 = await distinctRun(w2svc, db, sets[1], 31, 60, null, 'POST /bookings distinct (postgres, WORKERS=2)');
      await w2svc.stop();
      const again = await start('pg-on', { DATABASE_URL: db }, false);
      const w1Again = await distinctRun(again, db, sets[2], 51, 120, null, 'POST /bookings distinct (postgres, WORKERS=1 again)');
      await again.stop();
      const base = Math.round((w1.created + w1Again.created) / 2);
      push({
        item: 1,
        scenario: 'POST /bookings distinct, WORKERS=2 against WORKERS=1',
        engine: 'postgres',
        value: w2.created,
        unit: 'creates/s',
        baseline: base,
        ratio: round(w2.created / base),
        p50: w2.drive.p50,
        p99: w2.drive.p99,
        note: joinNotes(
          `baseline: mean of WORKERS=1 before (${w1.created}) and after (${w1Again.created})`,
          'rate limits on',
          w2.detail.other_answers !== 'none' && `other answers: ${String(w2.detail.other_answers)}`,
        ),
        detail: w2.detail,
      });
      log(`distinct W2: ${w2.created} creates/s against ${base}`);
    }
  }

  // ---- PostgreSQL: webhook delivery and fan-out -------------------------------------------------
  if (wanted('delivery', 'fanout', 'sync')) {
    const db = await createBenchDatabase();
    const receiverPort = await freePort();
    const receiverProcess = await startScript(path.join(ROOT, 'bench/lib/receiver.mjs'), { PORT: String(receiverPort) }, /listening/);
    const receiver = new Receiver(`http://127.0.0.1:${receiverPort}`);
    const svc = await start('pg-hooks', { DATABASE_URL: db }, true);
    const ran: string[] = [];
    try {
      if (wanted('delivery')) {
        const many = await manyStreams(svc, db, receiver, sessionOf(svc));
        push({
          item: 4,
          scenario: 'webhook delivery, 50 integrations at once',
          engine: 'postgres',
          value: many.perSecond,
          unit: 'events/s',
          baseline: many.baseline,
          ratio: round(many.perSecond / many.baseline),
          target: '>= 1000/s',
          note: joinNotes(
            verdict(many.perSecond, 1000),
            `${many.delivered}/${many.events} events in ${many.ms} ms from the PATCHes, ${many.avgBytes} B each; first after ${many.firstMs} ms, then ${many.streamingPerSecond}/s`,
            cpuNote(many.cores, many.delivered, 'event'),
            'baseline: 50 bare sequential POST loops side by side (median of 3)',
            many.outOfOrder ? `${many.outOfOrder} OUT OF ORDER` : 'in order',
            !many.cursorsAtHead && 'cursors NOT at head',
            many.timedOut && 'TIMED OUT',
          ),
          detail: many,
        });
        log(`delivery 50: ${many.perSecond}/s (bare ${many.baseline}/s)`);
        const single = await singleStream(svc, db, receiver, sessionOf(svc));
        const ratio = round(single.perSecond / single.baseline);
        push({
          item: 4,
          scenario: 'webhook delivery, one ordered stream',
          engine: 'postgres',
          value: single.perSecond,
          unit: 'events/s',
          baseline: single.baseline,
          ratio,
          target: '>= 0.9',
          note: joinNotes(
            verdict(ratio, 0.9),
            `median of 3 drains (${single.rounds.join(', ')}/s); ${single.delivered}/${single.events} events in ${single.ms} ms from the PATCH, ${single.avgBytes} B each; first after ${single.firstMs} ms, then ${single.streamingPerSecond}/s`,
            cpuNote(single.cores, single.delivered, 'event'),
            'baseline: a bare sequential POST loop (median of 3)',
            single.outOfOrder ? `${single.outOfOrder} OUT OF ORDER` : 'in order',
            !single.cursorsAtHead && 'cursor NOT at head',
            single.timedOut && 'TIMED OUT',
          ),
          detail: single,
        });
        log(`delivery single: ${single.perSecond}/s (bare ${single.baseline}/s)`);
        ran.push('delivery');
      }
      if (wanted('fanout')) {
        const rounds = await fanOut(svc, db, receiver, 3);
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        const list = (key: 'committedMs' | 'responseMs' | 'deliveredMs') => rounds.map((r) => r[key]).join(', ');
        const events = median(rounds.map((r) => r.events));
        // baseline of "all delivered": as many bare sequential POSTs, at the bare loop's rate
        const bare =
          rows.find((r) => r.scenario === 'webhook delivery, one ordered stream')?.baseline ?? (await bareMedian(receiver, 1, events, rounds[0].avgBytes));
        const committed = median(rounds.map((r) => r.committedMs));
        const delivered = median(rounds.map((r) => r.deliveredMs));
        const bareMs = bare ? Math.round((events / bare) * 1000) : undefined;
        const problems = rounds.some((r) => r.timedOut || r.outOfOrder) ? 'TIMED OUT or OUT OF ORDER: see detail' : 'in order';
        push({
          item: 4,
          scenario: 'fan-out: 25-item bulk create, events recorded',
          engine: 'postgres',
          value: committed,
          unit: 'ms',
          note: joinNotes(`${events} events committed; median of ${rounds.length} (${list('committedMs')})`, `response after ${list('responseMs')} ms`),
          detail: { rounds },
        });
        push({
          item: 4,
          scenario: 'fan-out: 25-item bulk create, all delivered',
          engine: 'postgres',
          value: delivered,
          unit: 'ms',
          baseline: bareMs === undefined ? undefined : committed + bareMs,
          ratio: bareMs === undefined ? undefined : round((committed + bareMs) / delivered),
          note: joinNotes(
            `from the request; median of ${rounds.length} (${list('deliveredMs')})`,
            bareMs !== undefined && `baseline: recording time + ${events} bare sequential POSTs (${bareMs} ms); delivery starts as the first item commits`,
            problems,
          ),
          detail: { rounds },
        });
        ran.push('fan-out');
        log(`fan-out: committed ${committed} ms, delivered ${delivered} ms`);
      }
      if (wanted('sync')) {
        const r = await syncRun(svc, db, receiver);
        push({
          item: 6,
          scenario: 'POST /sync, 100 properties x 5 kinds, 365-day horizon: recorded',
          engine: 'postgres',
          value: r.recordedMs,
          unit: 'ms',
          target: 'reported against the plain delivery rate',
          note: joinNotes(`${r.events} events recorded (${Math.round(r.events / (r.recordedMs / 1000))}/s)`, `202 after ${r.responseMs} ms`),
          detail: r,
        });
        push({
          item: 6,
          scenario: 'POST /sync, 100 properties x 5 kinds, 365-day horizon: delivered',
          engine: 'postgres',
          value: r.deliveredMs,
          unit: 'ms',
          baseline: r.bareMs,
          ratio: round(r.bareMs / r.deliveredMs),
          target: 'reported against the plain delivery rate',
          note: joinNotes(
            `${r.delivered}/${r.events} delivered, first after ${r.firstDeliveredMs} ms`,
            `baseline: ${r.events} bare sequential POSTs of ${r.avgBytes} B at ${r.bareRate}/s (${r.bareMs} ms)`,
            r.outOfOrder ? `${r.outOfOrder} OUT OF ORDER` : 'in order',
            r.timedOut && 'TIMED OUT',
          ),
          detail: r,
        });
        ran.push('sync');
        log(`sync: ${r.events} events recorded in ${r.recordedMs} ms, delivered in ${r.deliveredMs} ms (bare ${r.bareMs} ms)`);
      }
      await rssRow(svc, 'postgres', `after ${ran.join(', ')}`);
    } finally {
      await svc.stop();
      await receiverProcess.stop();
    }
  }

  // ---- PostgreSQL behind a 1 ms (each way) network: booking creates ------------------------------
  if (wanted('network')) {
    const db = await createBenchDatabase();
    const proxy = await delayProxy(new URL(db));
    const svc = await start('pg-net', { DATABASE_URL: throughProxy(db, proxy.port), RATE_LIMITS: 'off' }, false);
    const n = await networkRun(svc, proxy);
    await svc.stop();
    const insertPort = await freePort();
    const insertServer = await startScript(
      path.join(ROOT, 'bench/lib/baseline-server.mjs'),
      { PORT: String(insertPort), DATABASE_URL: throughProxy(db, proxy.port) },
      /listening/,
    );
    const base = await networkBaseline(`http://127.0.0.1:${insertPort}`, proxy);
    await insertServer.stop();
    await proxy.close();
    const delay = `${DELAY_MS} ms each way to PostgreSQL (in-process TCP proxy)`;
    push({
      item: 1,
      scenario: `POST /bookings one at a time, ${DELAY_MS} ms each way to PostgreSQL`,
      engine: 'postgres',
      value: n.sequential.p50,
      unit: 'ms (p50)',
      baseline: base.p50,
      ratio: round(n.sequential.p50 / base.p50),
      p50: n.sequential.p50,
      p99: n.sequential.p99,
      note: joinNotes(
        `${n.sequential.writesPerCreate} database round trips per create (writes the proxy saw), the INSERT baseline ${base.writesPerInsert}`,
        `baseline: the single-row INSERT transaction through the same proxy, p50 ${base.p50} ms; ratio = create p50 / baseline p50`,
        'RATE_LIMITS=off',
        n.other !== 'none' && `other answers: ${n.other}`,
      ),
      detail: { ...n, baseline: base, delay },
    });
    push({
      item: 1,
      scenario: `POST /bookings, 20 clients, one property, ${DELAY_MS} ms each way to PostgreSQL`,
      engine: 'postgres',
      value: n.onePropertyPerSecond,
      unit: 'creates/s',
      p50: n.onePropertyP50,
      note: joinNotes("every create takes the property's calendar lock: the round trips made while holding it bound the rate", 'RATE_LIMITS=off'),
    });
    log(
      `network: ${n.sequential.p50} ms per create one at a time (${n.sequential.writesPerCreate} round trips), baseline ${base.p50} ms; ${n.onePropertyPerSecond} creates/s on one property`,
    );
  }

  // ---- PostgreSQL: cross-process wake-up ---------------------------------------------------------
  if (wanted('wakeup')) {
    const db = await createBenchDatabase();
    const receiverPort = await freePort();
    const receiverProcess = await startScript(path.join(ROOT, 'bench/lib/receiver.mjs'), { PORT: String(receiverPort) }, /listening/);
    const receiver = new Receiver(`http://127.0.0.1:${receiverPort}`);
    const a = await start('pg-wake-api', { DATABASE_URL: db, NO_BACKGROUND: '1' }, false);
    const b = await start('pg-wake-worker', { DATABASE_URL: db }, false);
    try {
      const w = await wakeupRun(a, receiver);
      push({
        item: 8,
        scenario: "cross-process wake-up: A's 201 to the receiver, B delivers",
        engine: 'postgres',
        value: w.p50,
        unit: 'ms (p50)',
        target: '< 50 ms',
        p50: w.p50,
        p99: w.max,
        note: joinNotes(
          verdict(-w.p50, -50),
          `${w.samples} sequential rate overrides through A (NO_BACKGROUND=1), one rates.changed each; p90 ${w.p90} ms, max ${w.max} ms`,
          w.lost > 0 && `${w.lost} NOT DELIVERED within 10 s`,
          "B's safety-net scan runs every 5 s",
        ),
        detail: w,
      });
      log(`wake-up p50 ${w.p50} ms (p90 ${w.p90}, max ${w.max})`);
    } finally {
      await a.stop();
      await b.stop();
      await receiverProcess.stop();
    }
  }

  // ---- growth: bulk-loaded data sets measured through the API ----------------------
  if (wanted('growth')) {
    const db = await createBenchDatabase();
    const svc = await start('pg-growth', { DATABASE_URL: db, RATE_LIMITS: 'off' }, false);
    try {
      const g = await growthRun(svc, db, log, process.env.BENCH_GROWTH_PARTITIONS !== '0');
      growthRows('postgres', g);
      if (g.partition) {
        push({
          item: 10,
          scenario: `daily range partition of ${BIG / 1e6}M rows, detached and dropped (comparison)`,
          engine: 'postgres',
          value: g.partition.ms,
          unit: 'ms',
          note: `scratch table partitioned by created_at; ${Math.round(g.partition.wal_bytes / 1024)} KiB WAL`,
          detail: g.partition,
        });
      }
      await rssRow(svc, 'postgres', 'after the growth runs');
    } finally {
      await svc.stop();
    }
    if (process.env.BENCH_GROWTH_PGLITE !== '0') {
      // The same figures on the embedded engine (reported; the targets are PostgreSQL's).
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-bench-growth-'));
      try {
        const g = await pgliteGrowthRun((dir) => start('pglite-growth', { DATA_DIR: dir, RATE_LIMITS: 'off' }, false), dataDir, log);
        growthRows('pglite', g);
        log(`growth pglite: bulk loads ${g.load_seconds} s (service stopped); DATA_DIR ${g.sizes.data_dir_mib_at_big} MiB at ${BIG / 1e6}M`);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  }

  // ---- PGlite: /me and snapshots ------------------------------------------------------------------
  if (wanted('me', 'pglite', 'snapshots', 'bookings')) {
    const svc = await start('pglite', { RATE_LIMITS: 'off' }, false);
    const ran: string[] = [];
    if (wanted('me', 'pglite')) {
      await meAgainstBare(svc, 'pglite', null);
      ran.push('GET /me');
    }
    if (wanted('snapshots', 'pglite')) {
      const s = await snapshotRun(svc, baselineBase);
      snapshotRow('pglite', s);
      ran.push('snapshots');
      log(`snapshot pglite p50 ${s.ours.p50} ms`);
    }
    if (wanted('bookings', 'pglite')) {
      // the same distinct-unit creates on the embedded engine (this service runs
      // with RATE_LIMITS=off; the integrations and addresses are spread as on PostgreSQL anyway)
      const [set] = await setupDistinct(svc, 1);
      const created = await distinctRun(svc, null, set, 91, 0, null, 'POST /bookings distinct (pglite)');
      distinctRow(created, 'pglite');
      ran.push('distinct booking creates');
      log(`distinct pglite: ${created.created} creates/s`);
    }
    await rssRow(svc, 'pglite', `after ${ran.join(', ')}`);
    await svc.stop();
    pgliteMemoryRow(svc.dataDir);
  }
  // ---- both engines: the mixed soak ----------------------------------------------------------
  if (wanted('soak')) {
    const receiverPort = await freePort();
    const receiverProcess = await startScript(path.join(ROOT, 'bench/lib/receiver.mjs'), { PORT: String(receiverPort) }, /listening/);
    const receiverBase = `http://127.0.0.1:${receiverPort}`;
    try {
      const results: Partial<Record<'pglite' | 'postgres', SoakResult>> = {};
      {
        const svc = await start('soak-pglite', {}, false);
        try {
          results.pglite = await soakRun(svc, 'pglite', receiverBase, null, log);
          await rssRow(svc, 'pglite', `after the ${SOAK_SECONDS} s soak`);
        } finally {
          await svc.stop();
        }
      }
      {
        const db = await createBenchDatabase();
        const svc = await start('soak-postgres', { DATABASE_URL: db }, false);
        try {
          results.postgres = await soakRun(svc, 'postgres', receiverBase, db, log);
        } finally {
          await svc.stop();
        }
      }
      const pgGrowth = results.postgres.growthMibPerMinuteAfterFirst;
      for (const engine of ['pglite', 'postgres'] as const) {
        const r = results[engine]!;
        const ratio = engine === 'pglite' ? round(r.growthMibPerMinuteAfterFirst / pgGrowth) : undefined;
        const p99ok = r.worstP99AfterFirstMinute <= 1000;
        const growthOk = engine !== 'pglite' || (ratio !== undefined && ratio <= 1.5);
        push({
          item: 11,
          scenario: `mixed soak ${Math.round(r.seconds / 60)} min, ~105 req/s, rate limits on, deliveries running`,
          engine,
          value: r.growthMibPerMinuteAfterFirst,
          unit: engine === 'pglite' ? 'MiB/min DATA_DIR' : 'MiB/min pg_database_size',
          baseline: engine === 'pglite' ? pgGrowth : undefined,
          ratio,
          target:
            engine === 'pglite' ? '<= 1.5x PostgreSQL; p99 <= 1 s per 15 s window after minute 1; no 5xx' : 'p99 <= 1 s per 15 s window after minute 1; no 5xx',
          p99: r.worstP99AfterFirstMinute,
          note: joinNotes(
            growthOk && p99ok && r.fiveXx === 0 ? 'met' : 'not met',
            engine === 'pglite' && `DATA_DIR grows ${ratio}x as fast as PostgreSQL's database (ratio column: ours / PostgreSQL, lower is better)`,
            `${r.perSecond} req/s, ${r.requests} answers (${Object.entries(r.byStatus)
              .map(([s, c]) => `${c}×${s}`)
              .join(', ')})`,
            `${r.fiveXx} 5xx${r.failures ? `, ${r.failures} socket errors` : ''}${r.skipped ? `, ${r.skipped} paced requests not sent (client > 1 s behind)` : ''}`,
            `worst 15 s p99 after minute 1: ${r.worstP99AfterFirstMinute} ms`,
            `size by minute ${r.sizes.map((x) => Math.round(x.mib)).join(' → ')} MiB (${r.growthMibPerMinute} MiB/min from the start)`,
            engine === 'pglite' && `of which pg_wal ${r.sizes.map((x) => x.wal_mib).join(' → ')} MiB`,
          ),
          detail: { ...r },
        });
      }
    } finally {
      await receiverProcess.stop();
    }
  }

  if (wanted('sdk')) for (const row of await (await import('./scenarios/sdk.js')).sdkRows(log)) push(row);
  await baselineServer.stop();

  // ---- report -------------------------------------------------------------------------------------
  const profiles: ProfileSummary[] = [];
  for (const session of sessions.values()) {
    const loaded = loadProfiles(session.dir);
    if (loaded.length === 0) process.stderr.write(`no profile written in ${session.dir}\n`);
    const names = [...new Set(session.windows.map((w) => w.name))];
    for (const name of names) {
      const summary = summarise(
        loaded,
        session.windows.filter((w) => w.name === name),
      );
      if (summary) profiles.push(summary);
    }
  }
  for (const p of profiles) process.stdout.write(formatSummary(p));

  const loadAtEnd = os.loadavg().map((n) => round(n));
  process.stdout.write(`\n${formatTable()}`);
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    load_average: { at_start: loadAtStart, at_end: loadAtEnd },
    seconds_per_load_run: SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    profiled: PROFILING,
    only: only ?? null,
    total_seconds: Math.round((Date.now() - started) / 1000),
    rows: ordered(),
    markdown: formatMarkdown(),
  };
  const out = PROFILING ? 'bench/results.profiled.json' : 'bench/results.json';
  await writeFile(path.join(ROOT, out), JSON.stringify(report, null, 2) + '\n');
  if (PROFILING)
    await writeFile(path.join(ROOT, 'bench/profile.json'), JSON.stringify({ at: report.at, load_average: report.load_average, profiles }, null, 2) + '\n');
  log(`load average at end ${loadAtEnd.join(' ')}; written ${out}${PROFILING ? ' and bench/profile.json' : ''} (${report.total_seconds} s)`);
}

/**
 * Item 7: where the embedded engine's memory goes. bench/lib/pglite-memory.mjs opens the
 * stopped service's DATA_DIR in a process of its own and reports its RSS split into the JS heap and
 * what lives outside it (the WebAssembly linear memory, which holds shared_buffers and never
 * shrinks), after reading every table.
 */
function pgliteMemoryRow(dataDir: string) {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'bench/lib/pglite-memory.mjs'), dataDir], { cwd: ROOT, encoding: 'utf8' });
  const m = JSON.parse(out.trim().split('\n').pop()!) as {
    before: { rss: number };
    after_reading_every_table: { rss: number; js_heap_total: number; external: number; array_buffers: number; wasm_linear_memory: number };
    settings: Record<string, string>;
    database_mib: number;
  };
  const a = m.after_reading_every_table;
  push({
    item: 7,
    scenario: 'PGlite memory: a fresh process on the same DATA_DIR, after reading every table',
    engine: 'pglite',
    value: a.rss,
    unit: 'MiB RSS',
    note: joinNotes(
      `node alone ${m.before.rss} MiB`,
      `WebAssembly linear memory ${a.wasm_linear_memory} MiB (holds shared_buffers ${m.settings.shared_buffers}, work_mem ${m.settings.work_mem}, maintenance_work_mem ${m.settings.maintenance_work_mem}; it grows to its high-water mark and never shrinks)`,
      `JS heap ${a.js_heap_total} MiB`,
      `outside the JS heap ${a.external} MiB (${a.array_buffers} MiB array buffers)`,
      `database ${m.database_mib} MiB`,
    ),
    detail: m,
  });
}

function snapshotRow(engine: string, s: Awaited<ReturnType<typeof snapshotRun>>, cores: Parameters<typeof cpuNote>[0] = null) {
  const kinds = [['availability', s.ours, s.bare], ...Object.entries(s.others).map(([k, o]) => [k, o.ours, o.bare] as const)] as const;
  for (const [kind, ours, bare] of kinds) {
    push({
      item: 3,
      scenario: `92-night ${kind} snapshot, 50 units`,
      engine,
      value: ours.p50,
      unit: 'ms (p50)',
      baseline: bare.p50,
      ratio: round(bare.p50 / ours.p50),
      target: '<= 2 ms (p50)',
      p50: ours.p50,
      p99: ours.p99,
      note: joinNotes(
        ours.p50 <= 2 ? 'met' : 'not met',
        `${ours.count} sequential requests, ${ours.bytes} B each`,
        `${s.bookings} bookings`,
        'baseline: bare route, same bytes',
        'RATE_LIMITS=off',
        kind === 'availability' && cores && cpuNote(cores, ours.count),
      ),
      detail: { ours, bare },
    });
  }
  const afterChange = (scenario: string, after: NonNullable<typeof s.afterWriteElsewhere>, how: string) =>
    push({
      item: 3,
      scenario,
      engine,
      value: after.p50,
      unit: 'ms (p50)',
      baseline: s.bare.p50,
      ratio: round(s.bare.p50 / after.p50),
      target: '<= 2 ms (p50)',
      p50: after.p50,
      p99: after.p99,
      note: joinNotes(after.p50 <= 2 ? 'met' : 'not met', `${after.count} reads, ${how}`, `${after.bytes} B each`),
      detail: after,
    });
  // How the service has the snapshot after its own write (calendar.snapshot-refresh.ts).
  const rebuilt =
    engine === 'postgres'
      ? '(the service rebuilds the snapshot it keeps as the edit commits; the read joins that rebuild or finds it done)'
      : '(rebuilt by the read: on PGlite the service does not rebuild at the commit)';
  afterChange(
    '92-night availability snapshot, first read after a change',
    s.afterWrite,
    `each sent as a host edit of the window through the service answers ${rebuilt}`,
  );
  afterChange(
    '92-night availability snapshot, first read after a change, on its webhook',
    s.afterWebhook,
    `each sent when the host edit's event reached the integration's webhook receiver, as a mirror reading on its availability.changed would ${rebuilt}`,
  );
  if (s.afterOtherProcess) {
    afterChange(
      '92-night availability snapshot, first read after a change made by another process',
      s.afterOtherProcess,
      "each sent as a host edit of the window through a second process of the service on the same database answers (the edit's commit notifies the reading process, which rebuilds the snapshot it keeps; the read joins that rebuild or finds it done)",
    );
  }
  if (s.afterWriteElsewhere) {
    afterChange(
      '92-night availability snapshot, first read after a change made elsewhere',
      s.afterWriteElsewhere,
      "each after the property's calendar version moved in plain SQL, as a write this process is not notified of (the read finds it and rebuilds)",
    );
  }
}

// The whole run stays under 10 minutes: past BENCH_DEADLINE seconds (default 570; 900 with
// BENCH_AGAINST, which installs and builds a second checkout) it stops, cleaning up what it started.
const defaultDeadline = against
  ? 900
  : only && !only.includes('soak') && !only.includes('growth')
    ? 570
    : 570 + 300 + (wanted('soak') ? 2 * SOAK_SECONDS + 180 : 0);
const deadline = setTimeout(
  () => {
    process.stderr.write('bench: deadline reached, stopping\n');
    process.exitCode = 1;
    void cleanupAll().finally(() => process.exit(1));
  },
  Number(process.env.BENCH_DEADLINE ?? defaultDeadline) * 1000,
);
deadline.unref();
// Interrupted, it cleans up the same way (the worktree of BENCH_AGAINST included); a second signal
// (a relay, or Ctrl-C pressed again) must not cut that cleanup short.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`bench: ${signal}, stopping\n`);
    void cleanupAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

main()
  .catch((error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
