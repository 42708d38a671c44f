import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/lib.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { createIntegration } from '../../src/modules/accounts/accounts.service.js';
import { appendEvents, unitOfWork } from '../../src/modules/events/events.log.js';
import { createBrand } from '../../src/modules/integrations/integrations.service.js';
import { selectAppendTargets } from '../../src/modules/properties/properties.sql.js';
import { createRuntime } from '../../src/runtime.js';
import { poolEnv, STAFF_TOKEN } from '../helpers/context.js';

/**
 * Real server processes for crash and scale-out tests: `src/main.ts` run by Node with tsx's loader
 * in-process (so a signal reaches the server itself, not a wrapper), on a database of its own.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
export const SECRETS_KEY = randomBytes(32).toString('hex');

export interface ScratchDatabase {
  /** DATABASE_URL or DATA_DIR for the server. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh database: a new PostgreSQL database when `baseUrl` is given, else a PGlite data directory. */
export async function scratchDatabase(baseUrl: string | null): Promise<ScratchDatabase> {
  if (!baseUrl) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-proc-'));
    return { env: { DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `doorloom_proc_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), ...poolEnv(url.toString()) },
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** The environment every spawned service starts from. */
export function baseEnv(port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    STAFF_TOKEN,
    SECRETS_KEY,
    WEBHOOK_ALLOW_INSECURE: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
    // no proxy to leave: SIGTERM stops at once
    SHUTDOWN_DRAIN_MS: '0',
  };
}

function serverEnv(db: ScratchDatabase, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...baseEnv(port), ...db.env, ...extra };
}

/** Runs `seed` against the scratch database from this process (migrating it first), then closes it. */
export async function withRuntime<T>(db: ScratchDatabase, seed: (deps: Deps) => Promise<T>): Promise<T> {
  const config = loadConfig({ ...serverEnv(db, 0) });
  const { deps, database } = await createRuntime(config, (await import('pino')).default({ level: 'silent' }));
  try {
    return await seed(deps);
  } finally {
    await database.close();
  }
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): string;
  /** Resolves once GET /healthz answers. */
  ready(timeoutMs?: number): Promise<void>;
}

/** `env` adds settings (e.g. NO_BACKGROUND) to the server's environment. */
export async function startServer(db: ScratchDatabase, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: serverEnv(db, port, env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    url,
    exited,
    output: () => output,
    async ready(timeoutMs = 60_000) {
      const until = performance.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${output}`);
        try {
          const res = await fetch(`${url}/healthz`);
          if (res.ok) return;
        } catch {
          // not listening yet
        }
        if (performance.now() > until) throw new Error(`server did not start: ${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** A brand and an integration delivering to `${receiverUrl}/${name}`, made on `db` by a runtime of this process. */
export async function integrationOn(db: ScratchDatabase, brandName: string, name: string, receiverUrl: string) {
  return withRuntime(db, async (deps) => {
    const brand = await createBrand(deps, brandName);
    return (await createIntegration(deps, { brand_id: brand.id, name, webhook: { url: `${receiverUrl}/${name}` } })).integration;
  });
}

/** Records `count` events for the integration from this process: servers hear of them through their LISTEN or their scan. */
export function recordEvents(db: ScratchDatabase, integrationId: number, count: number) {
  return withRuntime(db, (deps) =>
    unitOfWork(deps, async (trx) =>
      appendEvents(trx, {
        clock: deps.clock,
        propertyId: null,
        actorIntegrationId: null,
        targets: await selectAppendTargets(trx, null, integrationId),
        build: () => Array.from({ length: count }, (_, i) => ({ type: 'availability.changed' as const, data: { i } })),
      }),
    ),
  );
}
