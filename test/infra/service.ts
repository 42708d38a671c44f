import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { poolEnv } from '../helpers/context.js';
import { freePort } from '../../scripts/lib.js';
import { baseEnv } from '../webhooks/process.js';

/**
 * The real service as a child process (`src/main.ts` run by Node with tsx's loader in-process, so
 * signals reach the server itself), with exactly the environment a test gives it.
 */
export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Service {
  child: ChildProcess;
  url: string;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Runs the service with `env` (over baseEnv; a key set to undefined is removed). `umask`: as a shell would set it. */
export async function spawnService(env: Record<string, string | undefined>, options: { umask?: string } = {}): Promise<Service> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const merged: Record<string, string> = {};
  // A service on the run's PostgreSQL uses the run's pool settings unless the test sets them.
  const pool = env.DATABASE_URL ? poolEnv(env.DATABASE_URL) : {};
  for (const [k, v] of Object.entries({ ...baseEnv(port), ...pool, ...env })) if (v !== undefined) merged[k] = v;
  const args = ['--import', 'tsx', 'src/main.ts'];
  const child = options.umask
    ? spawn('/bin/sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, ...args], {
        cwd: ROOT,
        env: merged,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, args, { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    port,
    exited,
    stdout: () => out,
    stderr: () => err,
    async ready(timeoutMs = 180_000) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}): ${out}${err}`);
        try {
          const res = await fetch(`${url}/healthz`);
          if (res.ok) return;
        } catch {
          // not listening yet
        }
        if (performance.now() > until) throw new Error(`service did not start: ${out}${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** One HTTP/1.1 exchange on a raw socket: writes `request`, collects until the peer closes or `ms` passes. */
export interface RawExchange {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves when the server closed the connection, with the time it took from `open`. */
  closed: Promise<number>;
}

export async function openRaw(port: number): Promise<RawExchange> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const start = performance.now();
  let data = '';
  socket.on('data', (c: Buffer) => (data += c.toString()));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - start)));
  return { socket, received: () => data, closed };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
