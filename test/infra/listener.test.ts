import { Signals } from '../../src/signals.js';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { listen, type ListenerState } from '../../src/db/listener.js';
import type { Deps } from '../../src/deps.js';
import { startProcess } from '../../src/background.js';
import { Backoff } from '../../src/lib/backoff.js';
import { createClock } from '../../src/lib/clock.js';
import { createTestContext, databaseUrl, poolMode, sessionUrl, type TestContext } from '../helpers/context.js';
import { freePort } from '../../scripts/lib.js';
import { sleep } from './service.js';

const until = async (check: () => boolean | Promise<boolean>, ms: number) => {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await sleep(25);
  }
};

describe('Backoff', () => {
  it('grows exponentially from the base, is capped, and starts over after a success', () => {
    const b = new Backoff(100, 1_000);
    const delays = Array.from({ length: 8 }, () => b.failed());
    const ceilings = [100, 200, 400, 800, 1000, 1000, 1000, 1000];
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(ceilings[i] * 0.8);
      expect(d).toBeLessThanOrEqual(ceilings[i] * 1.2);
    });
    b.succeeded();
    expect(b.failed()).toBeLessThanOrEqual(120);
  });
});

// LISTEN needs a session: behind a transaction pooler only with DATABASE_DIRECT_URL.
describe.runIf(sessionUrl)('LISTEN connection (PostgreSQL)', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: sessionUrl! });
    await admin.connect();
  });
  afterAll(() => admin?.end());

  it('reports up, loses its backend, reports down, reconnects and hears notifications again', async () => {
    const channel = `test_listen_${process.pid}`;
    const appName = `doorloom-test-${process.pid}`;
    const states: ListenerState[] = [];
    const messages: string[] = [];
    const listener = listen({
      url: sessionUrl!,
      channels: channel,
      applicationName: appName,
      onMessage: (_c, payload) => messages.push(payload),
      onState: (s) => states.push(s),
      backoff: new Backoff(50, 500),
    });
    try {
      await until(() => listener.state === 'up', 10_000);
      await admin.query('select pg_notify($1, $2)', [channel, 'one']);
      await until(() => messages.includes('one'), 5_000);

      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [appName]);
      await until(() => states.includes('down'), 5_000);
      await until(() => listener.state === 'up', 10_000);
      expect(states).toEqual(['up', 'down', 'up']);
      await admin.query('select pg_notify($1, $2)', [channel, 'two']);
      await until(() => messages.includes('two'), 5_000);
    } finally {
      await listener.stop();
    }
    expect(listener.state).toBe('down');
  });

  it('holds a session lock while up, on a new key after each reconnect, and says when it may have ended', async () => {
    const appName = `doorloom-lock-${process.pid}`;
    const keys: Array<string | null> = [];
    const free = async (key: string) => {
      const { rows } = await admin.query<{ got: boolean }>('select pg_try_advisory_lock($1::bigint) as got', [key]);
      if (rows[0].got) await admin.query('select pg_advisory_unlock($1::bigint)', [key]);
      return rows[0].got;
    };
    const listener = listen({
      url: sessionUrl!,
      channels: 'x',
      applicationName: appName,
      onMessage: () => {},
      onSessionLock: (key) => keys.push(key),
      backoff: new Backoff(50, 500),
    });
    try {
      await until(() => keys.length === 1, 10_000);
      const first = keys[0]!;
      expect(await free(first)).toBe(false);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [appName]);
      await until(() => keys.length === 3, 10_000);
      expect(keys[1]).toBeNull();
      const second = keys[2]!;
      expect(second).not.toBe(first);
      expect(await free(first)).toBe(true);
      expect(await free(second)).toBe(false);
      await listener.stop();
      expect(keys.slice(3)).toEqual([null]);
      await until(() => free(second), 5_000);
    } finally {
      await listener.stop();
    }
  });

  it('stays down (never reporting up) while the database is unreachable', async () => {
    const port = await freePort();
    const states: ListenerState[] = [];
    const listener = listen({
      url: `postgres://root@127.0.0.1:${port}/test`,
      channels: 'x',
      onMessage: () => {},
      onState: (s) => states.push(s),
      backoff: new Backoff(20, 100),
    });
    await sleep(500);
    expect(listener.state).toBe('down');
    expect(states).toEqual([]); // never up
    await listener.stop();
  });
});

describe.runIf(databaseUrl)('API key cache while its change listener is down (PostgreSQL)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(() => ctx.close());

  it('another process serves a rotated key not even once: it caches nothing without a listener', async () => {
    const database: Database = await openDatabase({ url: databaseUrl!, dataDir: '', schema: ctx.schema, poolSize: 2, poolMode });
    const deps: Deps = {
      ...ctx.deps,
      db: database.db,
      clock: createClock(ctx.deps.clock.offsetSeconds()),
      log: pino({ level: 'silent' }),
      signals: new Signals(),
    };
    const other = await buildApp(deps);
    // a listener that cannot connect: no notification could ever arrive
    const listener = await startProcess(
      { ...deps, config: { ...deps.config, databaseDirectUrl: `postgres://root@127.0.0.1:${await freePort()}/test` } },
      { background: false },
    );
    const me = (key: string) => other.inject({ method: 'GET', url: '/api/integrations/v1/me', headers: { authorization: `Bearer ${key}` } });
    try {
      const integration = await ctx.createIntegration();
      expect((await me(integration.apiKey)).statusCode).toBe(200);
      expect((await me(integration.apiKey)).statusCode).toBe(200);
      await ctx.staff('POST', `/integrations/${integration.id}/api-key/rotate`);
      // no wait at all: the next request reads the key from the database
      expect((await me(integration.apiKey)).statusCode).toBe(401);
    } finally {
      await listener.stop();
      await other.close();
      await database.close();
    }
  });
});
