import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { API_PREFIX, buildApp, STAFF_PREFIX } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openPGlite, type Database } from '../../src/db/database.js';
import type { Deps } from '../../src/deps.js';
import { ensureStaffToken } from '../../src/modules/integrations/integrations.service.js';
import { createRuntime } from '../../src/runtime.js';
import pino from 'pino';
import { expect } from 'vitest';

export const STAFF_TOKEN = 'dls_TestStaffToken00000000000000000000000000';

/** The engine under test: PostgreSQL when DATABASE_URL is set, in-memory PGlite otherwise. */
export const databaseUrl = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : null;

/** True when DATABASE_URL is a transaction-mode pooler (DATABASE_POOL_MODE=transaction): nothing may rely on a session through it. */
export const transactionPooled = databaseUrl !== null && process.env.DATABASE_POOL_MODE === 'transaction';

/**
 * Where a test may open a session of its own (LISTEN): DATABASE_DIRECT_URL behind a transaction
 * pooler, DATABASE_URL otherwise; null when there is none (tests that need one are skipped).
 */
export const sessionUrl = transactionPooled ? (process.env.DATABASE_DIRECT_URL ?? null) : databaseUrl;

/** The pool mode of the run, for database handles the tests open themselves. */
export const poolMode = transactionPooled ? ('transaction' as const) : ('session' as const);

/**
 * The pool settings of the run for a service on `url` (a database of the run's PostgreSQL): the
 * pool mode, and DATABASE_DIRECT_URL naming the same database.
 */
export function poolEnv(url: string): Record<string, string> {
  if (!url.startsWith('postgres')) return {};
  const env: Record<string, string> = transactionPooled ? { DATABASE_POOL_MODE: 'transaction' } : {};
  if (process.env.DATABASE_DIRECT_URL) {
    const direct = new URL(process.env.DATABASE_DIRECT_URL);
    direct.pathname = new URL(url).pathname;
    env.DATABASE_DIRECT_URL = direct.toString();
  }
  return env;
}

/** The pool settings of the run, for configurations the tests build themselves. */
export const poolSettings: Record<string, string> = databaseUrl ? poolEnv(databaseUrl) : {};

const shared = globalThis as unknown as { __pglite?: Promise<PGlite> };

/** One PGlite per test worker process: opening one costs seconds, a fresh schema costs milliseconds. */
function sharedPGlite(): Promise<PGlite> {
  shared.__pglite ??= openPGlite(null);
  return shared.__pglite;
}

export interface TestIntegration {
  id: number;
  slug: string;
  apiKey: string;
  webhookSecret: string;
  brandId: number;
}

export interface TestContext {
  app: FastifyInstance;
  deps: Deps;
  database: Database;
  schema: string;
  /** A request to the integrations API with the given key (path relative to the prefix). */
  api(key: string | null, method: InjectOptions['method'], path: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A request to the staff API with the staff token (path relative to the prefix). */
  staff(method: InjectOptions['method'], path: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  createBrand(name?: string): Promise<number>;
  createIntegration(options?: { brandId?: number; name?: string; webhook?: object; horizon_days?: number }): Promise<TestIntegration>;
  advanceClock(seconds: number): Promise<void>;
  close(): Promise<void>;
}

let schemaCounter = 0;

/**
 * The migrator reads the catalog of every schema. On a PostgreSQL shared with other test runs
 * that create and drop schemas meanwhile, that read now and then fails with "schema … does not
 * exist" (seen from a parallel worker of the catalog query); the start is simply repeated.
 */
async function runtimeBesideOtherRuns(start: () => ReturnType<typeof createRuntime>): ReturnType<typeof createRuntime> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const text = String((error as Error)?.message ?? error) + String((error as { cause?: Error })?.cause?.message ?? '');
      if (!/schema "t_[^"]+" does not exist/.test(text) || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

export async function createTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const config: Config = loadConfig({
    DATABASE_URL: databaseUrl ?? 'memory:',
    ...poolSettings,
    STAFF_TOKEN,
    TEST_CLOCK: '1',
    WEBHOOK_ALLOW_INSECURE: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'silent',
    // PostgreSQL needs a key to seal webhook secrets; each context has its own.
    SECRETS_KEY: randomBytes(32).toString('hex'),
    // Suites make thousands of staff calls (and deliberate bad ones) from one address; the real
    // limits are tested in test/staff/rate-limit.test.ts.
    STAFF_RATE_LIMIT: '1000000',
    STAFF_AUTH_FAILURE_LIMIT: '1000000',
    ...env,
  });
  const schema = `t_${process.env.TEST_RUN_ID ?? 'x'}_${process.pid}_${++schemaCounter}_${randomBytes(3).toString('hex')}`;
  // The runtime is built as the service builds it, on a schema of this context's own.
  const pglite = databaseUrl ? undefined : await sharedPGlite();
  const { deps, database } = await runtimeBesideOtherRuns(() => createRuntime(config, pino({ level: 'silent' }), { schema, pglite }));
  await ensureStaffToken(deps);
  const app = await buildApp(deps);
  await app.ready();

  const send = (prefix: string, token: string | null, method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: prefix + path,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });

  const ctx: TestContext = {
    app,
    deps,
    database,
    schema,
    api: (key, method, path, body, headers) => send(API_PREFIX, key, method, path, body, headers),
    staff: (method, path, body, headers) => send(STAFF_PREFIX, STAFF_TOKEN, method, path, body, headers),
    async createBrand(name = 'Test Brand') {
      const res = await ctx.staff('POST', '/brands', { name });
      if (res.statusCode !== 201) throw new Error(`brand create failed: ${res.body}`);
      return res.json().data.id;
    },
    async createIntegration(options = {}) {
      const brandId = options.brandId ?? (await ctx.createBrand());
      const res = await ctx.staff('POST', '/integrations', {
        brand_id: brandId,
        name: options.name ?? `Integration ${randomBytes(3).toString('hex')}`,
        ...(options.webhook ? { webhook: options.webhook } : {}),
        ...(options.horizon_days ? { horizon_days: options.horizon_days } : {}),
      });
      if (res.statusCode !== 201) throw new Error(`integration create failed: ${res.body}`);
      const data = res.json().data;
      return { id: data.integration.id, slug: data.integration.slug, apiKey: data.api_key, webhookSecret: data.webhook_secret, brandId };
    },
    async advanceClock(seconds) {
      const res = await ctx.staff('POST', '/clock', { advance_seconds: seconds });
      if (res.statusCode !== 200) throw new Error(`clock move failed: ${res.body}`);
    },
    async close() {
      await app.close();
      // PGlite: drop the schema now (one session, nothing runs beside it). PostgreSQL: the global
      // teardown drops every test schema once the run is over (see global-setup.ts).
      if (database.engine === 'pglite')
        await database.db.schema
          .dropSchema(schema)
          .ifExists()
          .cascade()
          .execute()
          .catch(() => {});
      await database.close();
    },
  };
  return ctx;
}

/** A request to the staff API of `app` with a token of the test's choosing (a named one, a revoked or a wrong one). */
export function staffRequest(
  app: FastifyInstance,
  token: string,
  method: InjectOptions['method'],
  path: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: STAFF_PREFIX + path,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

/** Another instance of the service on a test's database; `database` is a pool of its own (PostgreSQL), or null. */
export interface SecondApp {
  app: FastifyInstance;
  deps: Deps;
  database: Database | null;
  /** Closes the app, then its own pool. */
  close(): Promise<void>;
}

/** Builds an app on `deps` (another process's, or a context's with parts of its own) and waits until it is ready. */
export async function startSecondApp(deps: Deps, database: Database | null): Promise<SecondApp> {
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    deps,
    database,
    async close() {
      await app.close();
      await database?.close();
    },
  };
}

/** Asserts nothing itself: the failure envelope's parts, for expect(...).toMatchObject. */
export function failure(code: string) {
  return { success: false, code, message: expect.any(String) };
}
