/**
 * `BENCH_AGAINST=<git ref> npm run bench`: the current code against an earlier commit, in one run on
 * one machine state. The ref is checked out into a temporary git worktree, installed (npm ci) and
 * built with its own build script; each build then runs as its own process, started as the rest of
 * the bench starts the service, on a throwaway PostgreSQL database of its own. Four figures of the
 * existing scenarios are taken alternating between the two builds, ROUNDS rounds each, the order
 * flipped every round (current, earlier; earlier, current; …):
 *
 *   1. booking creates a second, 20 clients, distinct units, rate limits on (scenarios/bookings.ts)
 *   2. the cached 92-night availability snapshot read, p50, RATE_LIMITS=off (scenarios/snapshots.ts)
 *   3. one ordered webhook stream, events a second at the receiver (scenarios/delivery.ts)
 *   4. GET /me, requests a second, 20 connections, RATE_LIMITS=off (scenarios/me.ts)
 *
 * A figure's ratio is current/earlier for rates and earlier/current for times, of the medians
 * (> 1: the current code is faster); its spread is the lowest and highest ratio of one round's
 * pair. Prints a table and writes bench/compare.json; the worktree is removed at the end.
 */
import { freePort } from '../scripts/lib.js';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createBenchDatabase, onCleanup, ROOT, startScript, startService, type Service } from './lib/processes.js';
import { joinNotes, markdownTable, round, textTable } from './lib/report.js';
import { distinctRun, setupDistinct, type DistinctSet } from './scenarios/bookings.js';
import { cpuPer, measureHooks, SECONDS, WARMUP_SECONDS } from './scenarios/common.js';
import { orderedDrains, Receiver } from './scenarios/delivery.js';
import { meLoad } from './scenarios/me.js';
import { cachedReads, seedSnapshot } from './scenarios/snapshots.js';

/** Rounds per figure; at most 12, as each round of booking creates takes 20 source addresses of its own. */
const ROUNDS = Math.min(12, Math.max(3, Number(process.env.BENCH_AGAINST_ROUNDS) || 3));

export type Side = 'current' | 'earlier';
const SIDES: Side[] = ['current', 'earlier'];

/** Round r's order: the current build first in even rounds, the earlier one first in odd ones. */
export const orderOf = (r: number): Side[] => (r % 2 === 0 ? ['current', 'earlier'] : ['earlier', 'current']);

export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const m = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
}

/**
 * The current build's speed as a fraction of the earlier one's (> 1: the current is faster), from
 * the medians, and the spread of the rounds' own ratios (round r's current against round r's earlier).
 */
export function speedRatio(current: number[], earlier: number[], kind: 'rate' | 'time') {
  const speed = (c: number, e: number) => (kind === 'rate' ? c / e : e / c);
  const rounds = current.map((c, r) => speed(c, earlier[r]));
  return { ratio: round(speed(median(current), median(earlier))), spread: [round(Math.min(...rounds)), round(Math.max(...rounds))] as [number, number] };
}

interface Measured {
  value: number;
  cpu: { service_cpu_ms_per_op?: number; postgres_cpu_ms_per_op?: number };
  /** What the run did other than expected (other answers, events out of order…). */
  problem?: string;
}

interface Figure {
  item: number;
  scenario: string;
  unit: string;
  kind: 'rate' | 'time';
  /** What the CPU is counted per. */
  op: string;
  measure(side: Side, round: number): Promise<Measured>;
}

type Log = (line: string) => void;
const execFileAsync = promisify(execFile);

async function alternate(figure: Figure, log: Log) {
  const runs: Record<Side, Measured[]> = { current: [], earlier: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of orderOf(r)) {
      const m = await figure.measure(side, r);
      runs[side].push(m);
      log(`${figure.scenario}, round ${r + 1}, ${side}: ${m.value} ${figure.unit}${m.problem ? ` (${m.problem})` : ''}`);
    }
  }
  const values = (side: Side) => runs[side].map((m) => m.value);
  const cpu = (side: Side, key: keyof Measured['cpu']) => {
    const xs = runs[side].map((m) => m.cpu[key]).filter((x): x is number => x !== undefined);
    return xs.length ? round(median(xs)) : undefined;
  };
  const side = (s: Side) => ({
    runs: values(s),
    median: round(median(values(s))),
    service_cpu_ms_per_op: cpu(s, 'service_cpu_ms_per_op'),
    postgres_cpu_ms_per_op: cpu(s, 'postgres_cpu_ms_per_op'),
  });
  const problems = SIDES.flatMap((s) => runs[s].map((m, r) => m.problem && `${s} round ${r + 1}: ${m.problem}`)).filter(Boolean);
  return {
    item: figure.item,
    scenario: figure.scenario,
    unit: figure.unit,
    kind: figure.kind,
    cpu_per: figure.op,
    ...speedRatio(values('current'), values('earlier'), figure.kind),
    current: side('current'),
    earlier: side('earlier'),
    order: Array.from({ length: ROUNDS }, (_, r) => orderOf(r)),
    note: problems.join('; '),
  };
}
type Result = Awaited<ReturnType<typeof alternate>>;

/** The environment without what `npm run bench` sets about this checkout (npm_package_json, npm_config_local_prefix…). */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_')));

/**
 * A command run without blocking the event loop (the deadline and an interrupt must be able to
 * clean up), in a process group of its own, killed with everything it started at cleanup or after
 * `minutes`.
 */
function run(command: string, args: string[], cwd: string, minutes: number): Promise<void> {
  const child = spawn(command, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const failed = new Promise<string | null>((resolve) => {
    child.once('error', (error) => resolve(error.message));
    child.once('exit', (code, signal) => resolve(code === 0 ? null : (signal ?? `exit code ${code}`)));
  });
  const end = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group has ended
    }
  };
  const timer = setTimeout(end, minutes * 60_000);
  onCleanup(async () => {
    end();
    await failed;
  });
  return failed.then((failure) => {
    clearTimeout(timer);
    if (failure) throw new Error(`${command} ${args.join(' ')}: ${failure}`);
  });
}

/** The ref checked out into a temporary git worktree, installed and built by its own build script; removed at cleanup. */
async function checkout(ref: string, log: Log) {
  const commit = (await execFileAsync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT })).stdout.trim();
  const parent = await mkdtemp(path.join(os.tmpdir(), 'doorloom-bench-against-'));
  const dir = path.join(parent, 'tree');
  onCleanup(async () => {
    // fails when it was never added
    await execFileAsync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT }).catch(() => {});
    await rm(parent, { recursive: true, force: true });
  });
  log(`checking out ${ref} (${commit.slice(0, 10)}) into ${dir}`);
  await run('git', ['worktree', 'add', '--quiet', '--detach', dir, commit], ROOT, 1);
  log('npm ci in the worktree…');
  await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], dir, 10);
  log('building the earlier commit…');
  await run('npm', ['run', 'build', '--silent'], dir, 5);
  return { dir, commit };
}

type Both = Record<Side, { svc: Service; db: string }>;

/**
 * A set of distinct-unit integrations per round. A set's setup makes 160 partner calls from one
 * address, and the per-address tier allows 600 a minute: three sets, then a minute's wait.
 */
async function distinctSets(svc: Service): Promise<DistinctSet[]> {
  const out: DistinctSet[] = [];
  for (let done = 0; done < ROUNDS; done += 3) {
    if (done > 0) await new Promise((r) => setTimeout(r, 61_000));
    out.push(...(await setupDistinct(svc, Math.min(3, ROUNDS - done))));
  }
  return out;
}

/** Both builds with the same settings, each on a throwaway database of its own; stopped after `body`. */
async function withBoth<T>(builds: Record<Side, string>, env: Record<string, string>, name: string, log: Log, body: (both: Both) => Promise<T>): Promise<T> {
  const both: Partial<Both> = {};
  try {
    for (const side of SIDES) {
      const db = await createBenchDatabase();
      const svc = await startService({ DATABASE_URL: db, ...env }, { root: builds[side] });
      both[side] = { svc, db };
      log(`${name} ${side} up (pid ${svc.pid})`);
    }
    return await body(both as Both);
  } finally {
    for (const side of SIDES) await both[side]?.svc.stop();
  }
}

export async function compareAgainst(ref: string, log: Log) {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((n) => round(n));
  const earlier = await checkout(ref, log);
  const builds: Record<Side, string> = { current: ROOT, earlier: earlier.dir };
  const results: Result[] = [];

  // RATE_LIMITS=off, as the bench's GET /me and snapshot reads
  await withBoth(builds, { RATE_LIMITS: 'off' }, 'pg-off', log, async (both) => {
    const seeded = { current: await seedSnapshot(both.current.svc), earlier: await seedSnapshot(both.earlier.svc) };
    results.push(
      await alternate(
        {
          item: 2,
          scenario: '92-night availability snapshot, 50 units, cached',
          unit: 'ms (p50)',
          kind: 'time',
          op: 'read',
          measure: async (side) => {
            const { svc, db } = both[side];
            const hooks = measureHooks(svc.pid, null, 'availability snapshot', db);
            const reads = await cachedReads(svc, seeded[side].shot, hooks);
            return { value: reads.p50, cpu: cpuPer(hooks.cores(), reads.count) };
          },
        },
        log,
      ),
    );
    results.push(
      await alternate(
        {
          item: 4,
          scenario: 'GET /me, 20 connections',
          unit: 'req/s',
          kind: 'rate',
          op: 'request',
          measure: async (side) => {
            const { svc, db } = both[side];
            const { result, cores } = await meLoad(svc, null, 'GET /me', db);
            return {
              value: result.rps,
              cpu: cpuPer(cores, result.requests),
              problem: joinNotes(result.non2xx && `${result.non2xx} non-2xx`, result.errors && `${result.errors} errors`) || undefined,
            };
          },
        },
        log,
      ),
    );
  });

  // rate limits on, as the bench's distinct creates: each round has its own integrations and source addresses
  await withBoth(builds, {}, 'pg-on', log, async (both) => {
    const [current, earlier] = await Promise.all([distinctSets(both.current.svc), distinctSets(both.earlier.svc)]);
    const sets = { current, earlier };
    log('distinct bookings: set up');
    results.push(
      await alternate(
        {
          item: 1,
          scenario: 'POST /bookings, 20 clients, distinct units',
          unit: 'creates/s',
          kind: 'rate',
          op: 'create',
          measure: async (side, r) => {
            const { svc, db } = both[side];
            const o = await distinctRun(svc, db, sets[side][r], 11 + 20 * r, 0, null, 'POST /bookings distinct');
            return {
              value: o.created,
              cpu: cpuPer(o.cores, o.drive.total),
              problem: o.detail.other_answers !== 'none' ? `other answers: ${String(o.detail.other_answers)}` : undefined,
            };
          },
        },
        log,
      ),
    );
  });

  // rate limits on, the receiver: one ordered stream per round, drained from a queue recorded first
  const receiverPort = await freePort();
  const receiverProcess = await startScript(path.join(ROOT, 'bench/lib/receiver.mjs'), { PORT: String(receiverPort) }, /listening/);
  const receiver = new Receiver(`http://127.0.0.1:${receiverPort}`);
  try {
    await withBoth(builds, {}, 'pg-hooks', log, async (both) => {
      // one drain each first, not counted: the other figures' load runs start with a warm-up too
      for (const side of SIDES) await orderedDrains(both[side].svc, both[side].db, receiver, null, 1, `${side}-warm-`);
      results.push(
        await alternate(
          {
            item: 3,
            scenario: 'webhook delivery, one ordered stream',
            unit: 'events/s',
            kind: 'rate',
            op: 'event',
            measure: async (side, r) => {
              const { svc, db } = both[side];
              const d = await orderedDrains(svc, db, receiver, null, 1, `${side}${r}-`);
              const problem = joinNotes(
                d.delivered < d.events && `${d.delivered}/${d.events} delivered`,
                d.outOfOrder && `${d.outOfOrder} out of order`,
                !d.cursorsAtHead && 'cursor not at head',
              );
              return { value: d.perSecond, cpu: cpuPer(d.cores, d.delivered), problem: problem || undefined };
            },
          },
          log,
        ),
      );
    });
  } finally {
    await receiverProcess.stop();
  }

  results.sort((a, b) => a.item - b.item);
  const cpu = (s: Result['current']) => (s.service_cpu_ms_per_op === undefined ? '' : `${s.service_cpu_ms_per_op} + ${s.postgres_cpu_ms_per_op}`);
  const header = [
    '#',
    'figure',
    'unit',
    'current runs',
    'earlier runs',
    'current',
    'earlier',
    'ratio',
    'spread',
    'CPU ms/op current',
    'CPU ms/op earlier',
    'note',
  ];
  const lines = results.map((f) => [
    f.item,
    f.scenario,
    f.unit,
    f.current.runs.join(', '),
    f.earlier.runs.join(', '),
    f.current.median,
    f.earlier.median,
    f.ratio,
    `${f.spread[0]}–${f.spread[1]}`,
    cpu(f.current),
    cpu(f.earlier),
    f.note,
  ]);
  const current = (await execFileAsync('git', ['rev-parse', 'HEAD'], { cwd: ROOT })).stdout.trim();
  const uncommitted = (await execFileAsync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT })).stdout.trim() !== '';
  const loadAtEnd = os.loadavg().map((n) => round(n));
  process.stdout.write(
    `\ncurrent ${current.slice(0, 10)}${uncommitted ? ' with uncommitted changes' : ''} against ${ref} (${earlier.commit.slice(0, 10)}); ratio > 1: the current is faster; CPU: service + PostgreSQL\n`,
  );
  process.stdout.write(textTable(header, lines));
  const report = {
    at: new Date().toISOString(),
    current: { commit: current, uncommitted_changes: uncommitted },
    earlier: { ref, commit: earlier.commit },
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    load_average: { at_start: loadAtStart, at_end: loadAtEnd },
    seconds_per_load_run: SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    rounds: ROUNDS,
    total_seconds: Math.round((Date.now() - started) / 1000),
    figures: results,
    markdown: markdownTable(header, lines),
  };
  await writeFile(path.join(ROOT, 'bench/compare.json'), JSON.stringify(report, null, 2) + '\n');
  log(`load average at end ${loadAtEnd.join(' ')}; written bench/compare.json (${report.total_seconds} s)`);
}
