import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { databaseUrl, poolSettings, sessionUrl } from '../helpers/context.js';
import { spawnService, type Service } from './service.js';

/**
 * Two real service processes started together on a database nobody has migrated: each migration
 * is applied exactly once, by one of them, and both serve. Through DATABASE_URL as configured for
 * the run (PostgreSQL itself, or a transaction-mode pooler in front of it).
 */
const database = `mig_${randomBytes(4).toString('hex')}`;
const withDatabase = (url: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

describe.runIf(databaseUrl)('two processes starting together on a fresh database', { timeout: 240_000 }, () => {
  const services: Service[] = [];
  let admin: pg.Client | undefined;

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  });

  it('migrate once, and both answer', async () => {
    // CREATE DATABASE needs a session outside a transaction pooler's rules.
    admin = new pg.Client({ connectionString: sessionUrl ?? process.env.DATABASE_DIRECT_URL ?? databaseUrl! });
    await admin.connect();
    await admin.query(`create database ${database}`);
    const env: Record<string, string> = { DATABASE_URL: withDatabase(databaseUrl!), ...poolSettings, NO_BACKGROUND: '1', LOG_LEVEL: 'info' };
    if (env.DATABASE_DIRECT_URL) env.DATABASE_DIRECT_URL = withDatabase(env.DATABASE_DIRECT_URL);
    services.push(...(await Promise.all([spawnService(env), spawnService(env)])));
    await Promise.all(services.map((s) => s.ready()));

    const check = new pg.Client({ connectionString: withDatabase(sessionUrl ?? process.env.DATABASE_DIRECT_URL ?? databaseUrl!) });
    await check.connect();
    try {
      const { rows } = await check.query<{ name: string; n: number }>('select name, count(*)::int as n from kysely_migration group by name order by name');
      expect(rows).toEqual(
        Object.keys(migrations)
          .sort()
          .map((name) => ({ name, n: 1 })),
      );
    } finally {
      await check.end();
    }
    // One process applied them all; the other waited for its lock and found the schema current.
    const said = services.map((s) => s.stdout() + s.stderr());
    expect(said.filter((text) => /\d+ migrations applied/.test(text))).toHaveLength(1);
    expect(said.filter((text) => /schema current/.test(text))).toHaveLength(1);
  });
});
