import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/lib.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const STAFF_TOKEN = 'dls_BenchStaffToken0000000000000000000000000';
export const SECRETS_KEY = 'ab'.repeat(32);

const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

let cleaning = Promise.resolve();

/**
 * Every process and database the bench started is stopped, whatever happens. A call made while
 * another runs (an interrupt during the end of a run) waits for it, then cleans what is left.
 */
export function cleanupAll(): Promise<void> {
  cleaning = cleaning.then(async () => {
    for (const child of children) {
      for (const pid of child.pid ? childPids(child.pid) : []) kill(pid);
      child.kill('SIGKILL');
    }
    children.clear();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  return cleaning;
}
/** Runs at cleanupAll (temporary directories and the like). */
export function onCleanup(task: () => Promise<void>): void {
  cleanups.push(task);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface Service {
  base: string;
  pid: number;
  /** The service's DATA_DIR (PGlite keeps its files in DATA_DIR/pglite). */
  dataDir: string;
  stop(): Promise<void>;
  rssMb(): Promise<number>;
}

async function waitReady(base: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error('service did not become ready');
}

/** Process ids of the direct children of a process (cluster workers). */
function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((l) => Number(l.trim()));
  } catch {
    return [];
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export interface ServiceOptions {
  /** Node flags for the service process (e.g. --cpu-prof; Node 20 refuses them in NODE_OPTIONS). */
  execArgv?: string[];
  /** The checkout whose build (dist/main.js) runs, and its working directory: this one by default. */
  root?: string;
}

/**
 * Starts the built service (dist/main.js of `options.root`, this checkout by default) with the
 * given environment. stop() ends it with SIGTERM (its graceful shutdown, which is also when
 * --cpu-prof writes its profile) and waits for it and its cluster workers, SIGKILL after 8 s.
 */
export async function startService(env: Record<string, string>, options: ServiceOptions = {}): Promise<Service> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-bench-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  // BENCH_POOLER_PORT: the service reaches its database through a transaction-mode pooler on that port.
  const pooler = process.env.BENCH_POOLER_PORT;
  if (pooler && env.DATABASE_URL?.startsWith('postgres')) {
    const through = new URL(env.DATABASE_URL);
    through.port = pooler;
    env = { ...env, DATABASE_URL: through.toString(), DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: env.DATABASE_URL };
  }
  const root = options.root ?? ROOT;
  const child = spawn(process.execPath, [...(options.execArgv ?? []), path.join(root, 'dist/main.js')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      STAFF_TOKEN,
      // seeding makes more staff calls from one address than the staff API's default limit
      STAFF_RATE_LIMIT: '1000000',
      SECRETS_KEY,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_INSECURE: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',

      // no proxy to leave: SIGTERM stops at once
      SHUTDOWN_DRAIN_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(base, child);
  return {
    base,
    pid: child.pid!,
    dataDir,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return void children.delete(child);
      const workers = childPids(child.pid!);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      if (!(await Promise.race([exited.then(() => true), sleep(8000).then(() => false)]))) child.kill('SIGKILL');
      children.delete(child);
      // The cluster primary exits before its workers have finished their own shutdown.
      for (let i = 0; i < 80 && workers.some(alive); i++) await sleep(100);
      for (const pid of workers.filter(alive)) kill(pid);
    },
    rssMb: () => processRssMb(child.pid!),
  };
}

/** Resident memory of a process and its children (cluster workers), in MiB. */
export async function processRssMb(pid: number): Promise<number> {
  try {
    const out = execFileSync('ps', ['-o', 'rss=', '--pid', String(pid), '--ppid', String(pid)], { encoding: 'utf8' });
    return Math.round(
      out
        .split('\n')
        .filter(Boolean)
        .reduce((sum, line) => sum + Number(line.trim()), 0) / 1024,
    );
  } catch {
    return NaN;
  }
}

/** A throwaway PostgreSQL database for one bench run; dropped at the end. */
export async function createBenchDatabase(adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test'): Promise<string> {
  const name = `bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts a plain Node process running a script file (baselines, receivers). */
export async function startScript(
  script: string,
  env: Record<string, string>,
  readyLine: RegExp,
): Promise<{ pid: number; stop(): Promise<void>; output: string[] }> {
  const child = spawn(process.execPath, [script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start`)), 20_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output.push(...chunk.split('\n').filter(Boolean));
      if (readyLine.test(chunk)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    pid: child.pid!,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        if (!(await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]))) child.kill('SIGKILL');
      }
      children.delete(child);
    },
  };
}
