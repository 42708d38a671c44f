/**
 * Hand-rolled load clients for what autocannon cannot do: per-request bodies and idempotency
 * keys, one keep-alive connection per client bound to its own loopback source address, and a
 * look at every answer. Every loop here is bounded in time and in count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export interface Shot {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The caller's own mark, handed back to onAnswer (e.g. which stay a request was for). */
  tag?: number;
}

export interface Answer {
  status: number;
  body: string;
}

/** One request on a keep-alive agent (one socket per agent), optionally from a given source address. */
export function request(agent: http.Agent, base: URL, shot: Shot, localAddress?: string): Promise<Answer> {
  const payload = shot.body === undefined ? undefined : typeof shot.body === 'string' ? shot.body : JSON.stringify(shot.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method: shot.method ?? (payload === undefined ? 'GET' : 'POST'),
        path: shot.path,
        agent,
        localAddress,
        headers: {
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}),
          ...shot.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out after 30 s')));
    req.on('error', reject);
    req.end(payload);
  });
}

export const keepAliveAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });

/** Nearest-rank percentile of sorted numbers, rounded to 0.01 (a snapshot read takes about 1 ms). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] * 100) / 100;
}

export interface DriveOptions {
  base: string;
  clients: number;
  warmupSeconds: number;
  seconds: number;
  /** Hard cap on requests per client (warm-up included). */
  maxPerClient?: number;
  /** Source address of a client (loopback aliases 127.0.0.x), so per-address rate tiers see many callers. */
  addressOf?: (client: number) => string;
  next: (client: number, n: number) => Shot;
  /** Every answer, warm-up included. */
  onAnswer?: (shot: Shot, answer: Answer) => void;
  /** Called as the measured part starts and as it ends (CPU and commit snapshots, profile windows). */
  onMeasureStart?: () => unknown;
  onMeasureEnd?: () => unknown;
}

export interface DriveResult {
  seconds: number;
  /** Answers completed inside the measured part. */
  total: number;
  byStatus: Map<number, number>;
  p50: number;
  p99: number;
  failures: number;
  /** A few unexpected answers, for the log. */
  samples: string[];
}

/**
 * `clients` closed loops, one keep-alive connection each, for a warm-up and then `seconds`
 * measured seconds. Counts answers by status and keeps latencies of requests sent and answered
 * inside the measured part.
 */
export async function drive(options: DriveOptions): Promise<DriveResult> {
  const base = new URL(options.base);
  const start = performance.now();
  const measureFrom = start + options.warmupSeconds * 1000;
  const end = measureFrom + options.seconds * 1000;
  const maxPerClient = options.maxPerClient ?? 1_000_000;
  const byStatus = new Map<number, number>();
  const latencies: number[] = [];
  const samples: string[] = [];
  let failures = 0;
  const marks = (async () => {
    await sleep(Math.max(0, measureFrom - performance.now()));
    await options.onMeasureStart?.();
    await sleep(Math.max(0, end - performance.now()));
    await options.onMeasureEnd?.();
  })();

  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      const agent = keepAliveAgent();
      const address = options.addressOf?.(client);
      for (let n = 0; n < maxPerClient && performance.now() < end; n++) {
        const shot = options.next(client, n);
        const sent = performance.now();
        try {
          const answer = await request(agent, base, shot, address);
          const done = performance.now();
          options.onAnswer?.(shot, answer);
          if (sent >= measureFrom && done <= end) {
            byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
            latencies.push(done - sent);
          }
          if (answer.status >= 400 && answer.status !== 409 && samples.length < 3) samples.push(`${answer.status} ${answer.body.slice(0, 300)}`);
        } catch (error) {
          failures += 1;
          if (samples.length < 3) samples.push(String(error));
          await sleep(10);
        }
      }
      agent.destroy();
    }),
  );
  await marks;
  latencies.sort((a, b) => a - b);
  return { seconds: options.seconds, total: latencies.length, byStatus, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures, samples };
}

/**
 * One client, one request after another: `warmup` unmeasured, then up to `count` measured ones
 * or `seconds`, whichever ends first. Latencies in ms, sorted.
 */
export async function sequential(base: string, shot: (i: number) => Shot, options: { warmup: number; count: number; seconds: number; expect?: number }) {
  const url = new URL(base);
  const agent = keepAliveAgent();
  const times: number[] = [];
  let bytes = 0;
  try {
    for (let i = 0; i < options.warmup; i++) await request(agent, url, shot(i));
    const deadline = performance.now() + options.seconds * 1000;
    for (let i = 0; i < options.count && performance.now() < deadline; i++) {
      const sent = performance.now();
      const answer = await request(agent, url, shot(options.warmup + i));
      times.push(performance.now() - sent);
      if (answer.status !== (options.expect ?? 200)) throw new Error(`${shot(i).path} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      bytes = answer.body.length;
    }
  } finally {
    agent.destroy();
  }
  const elapsed = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  return { count: times.length, bytes, perSecond: times.length / (elapsed / 1000), p50: percentile(times, 50), p99: percentile(times, 99) };
}

// ---------------------------------------------------------------------------------------------
// Where the CPU went during a measured part.

/** A process's name and its /proc/<pid>/stat fields after the name (ppid at 1, utime at 11); null when it is gone. */
export function procStat(pid: number | string): { name: string; fields: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
  } catch {
    return null;
  }
}

/** CPU seconds used so far by a process (utime + stime, 100 ticks a second). */
export function cpuOf(pid: number): number {
  const [user, system] = cpuSplitOf(pid);
  return user + system;
}

/** [user, system] CPU seconds so far of a process. */
function cpuSplitOf(pid: number): [number, number] {
  const fields = procStat(pid)?.fields;
  return fields ? [Number(fields[11]) / 100, Number(fields[12]) / 100] : [0, 0];
}

export interface CpuSnapshot {
  at: number;
  service: number;
  postgres: number;
  bench: number;
  machine: number;
  /** The kernel's part of `service` (system calls: socket writes and reads, and on loopback the receiving side's TCP work too). */
  serviceSystem: number;
  /** read and write system calls of the service processes so far (/proc/<pid>/io syscr, syscw). */
  serviceReads: number;
  serviceWrites: number;
}

function syscallsOf(pid: number): [number, number] {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return [Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0), Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0)];
  } catch {
    return [0, 0];
  }
}

/** Process ids of the PostgreSQL backends connected to the database of `url` (the service's pool). */
export async function backendPids(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return rows.map((r) => Number(r.pid));
  } finally {
    await client.end();
  }
}

/**
 * CPU seconds so far of the service process (and its cluster workers), of PostgreSQL (the given
 * backends, e.g. the service's pool; without them every PostgreSQL process on the machine, other
 * users' too), of this bench process (the load generator) and of the machine.
 */
export function cpuSnapshot(servicePid: number, pgPids?: number[]): CpuSnapshot {
  let service = 0;
  let postgres = 0;
  let serviceReads = 0;
  let serviceWrites = 0;
  let serviceSystem = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = procStat(pid);
    if (!stat) continue;
    const { name } = stat;
    const ppid = Number(stat.fields[1]);
    if (pid === servicePid || ppid === servicePid) {
      const [user, system] = cpuSplitOf(pid);
      service += user + system;
      serviceSystem += system;
      const [r, w] = syscallsOf(pid);
      serviceReads += r;
      serviceWrites += w;
    } else if (name === 'postgres' && (!pgPids || pgPids.includes(pid))) postgres += cpuOf(pid);
  }
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return {
    at: performance.now(),
    service,
    postgres,
    bench: cpuOf(process.pid),
    machine: (user + nice + system + irq + softirq) / 100,
    serviceSystem,
    serviceReads,
    serviceWrites,
  };
}

/** Cores busy between two snapshots. */
export function coresBetween(a: CpuSnapshot, b: CpuSnapshot) {
  const seconds = (b.at - a.at) / 1000;
  const cores = (key: 'service' | 'serviceSystem' | 'postgres' | 'bench' | 'machine') => Math.round(((b[key] - a[key]) / seconds) * 100) / 100;
  return {
    service: cores('service'),
    service_kernel: cores('serviceSystem'),
    postgres: cores('postgres'),
    load_generator: cores('bench'),
    machine: cores('machine'),
    /** CPU seconds spent in the interval by the service and by PostgreSQL. */
    service_cpu_s: Math.round((b.service - a.service) * 100) / 100,
    postgres_cpu_s: Math.round((b.postgres - a.postgres) * 100) / 100,
    service_read_syscalls: b.serviceReads - a.serviceReads,
    service_write_syscalls: b.serviceWrites - a.serviceWrites,
  };
}

/** One number read from the database of `url`: the first row's column `n`. */
export async function numberOf(url: string, query: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: unknown }>(query);
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** Transactions committed so far in the database of `url` (pg_stat_database; updated about once a second). */
export const commitsOf = (url: string) => numberOf(url, 'select xact_commit::bigint as n from pg_stat_database where datname = current_database()');
