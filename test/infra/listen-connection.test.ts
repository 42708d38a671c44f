import { selectAppendTargets } from '../../src/modules/properties/properties.sql.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { appendEvents, unitOfWork } from '../../src/modules/events/events.log.js';
import { createBrand } from '../../src/modules/integrations/integrations.service.js';
import { createIntegration } from '../../src/modules/accounts/accounts.service.js';
import { databaseUrl, STAFF_TOKEN, transactionPooled } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { scratchDatabase, startServer, withRuntime, type ScratchDatabase, type ServerProcess } from '../webhooks/process.js';

// One LISTEN connection per process, where it may LISTEN; none behind a transaction pooler
// without DATABASE_DIRECT_URL, where the process polls and its caches keep to their age bounds.

describe('pool settings', () => {
  it('DATABASE_POOL_MODE is session by default, or transaction; anything else is a configuration error', () => {
    expect(loadConfig({}).databasePoolMode).toBe('session');
    const url = 'postgres://root@127.0.0.1:5432/test';
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_MODE: 'Transaction' }).databasePoolMode).toBe('transaction');
    expect(() => loadConfig({ DATABASE_POOL_MODE: 'transaction' })).toThrow(/DATABASE_POOL_MODE=transaction needs DATABASE_URL=postgres/);
    expect(() => loadConfig({ DATABASE_POOL_MODE: 'statement' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_POOL_MODE: 'statement' })).toThrow(/DATABASE_POOL_MODE must be session or transaction/);
  });

  it('DATABASE_DIRECT_URL is a PostgreSQL URL beside a PostgreSQL DATABASE_URL', () => {
    const url = 'postgres://root@127.0.0.1:5432/test';
    expect(loadConfig({ DATABASE_URL: url }).databaseDirectUrl).toBeNull();
    expect(loadConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: url }).databaseDirectUrl).toBe(url);
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: 'mysql://x/y' })).toThrow(/DATABASE_DIRECT_URL must be postgres:\/\//);
    expect(() => loadConfig({ DATABASE_DIRECT_URL: url })).toThrow(/DATABASE_DIRECT_URL needs DATABASE_URL/);
  });

  it('the lease renewal must come well within the lease', () => {
    expect(loadConfig({})).toMatchObject({ workLeaseMs: 30_000, workLeaseRenewMs: 10_000 });
    expect(loadConfig({ WORK_LEASE_MS: '3000' })).toMatchObject({ workLeaseMs: 3000, workLeaseRenewMs: 1000 });
    expect(() => loadConfig({ WORK_LEASE_MS: '3000', WORK_LEASE_RENEW_MS: '2000' })).toThrow(
      /WORK_LEASE_RENEW_MS \(2000\) must be at most half of WORK_LEASE_MS/,
    );
  });
});

// These start processes in each pool mode against PostgreSQL itself, so they run in the direct
// PostgreSQL run; a run through a pooler would hand its own pool settings to every process.
describe.runIf(databaseUrl && !transactionPooled)('the LISTEN connection of a process (real processes, PostgreSQL)', () => {
  let receiver: Receiver;
  let admin: pg.Client;
  const servers: ServerProcess[] = [];
  const databases: ScratchDatabase[] = [];

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
    admin = new pg.Client({ connectionString: databaseUrl! });
    await admin.connect();
  });
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await receiver.close();
    await admin.end();
    for (const d of databases) await d.drop();
  });

  async function database() {
    const db = await scratchDatabase(databaseUrl);
    databases.push(db);
    return { db, name: new URL(db.env.DATABASE_URL).pathname.slice(1) };
  }
  async function server(db: ScratchDatabase, env: Record<string, string> = {}) {
    const s = await startServer(db, env);
    servers.push(s);
    await s.ready();
    return s;
  }
  /** Connections of the database that are in LISTEN (PostgreSQL lists the channels a backend listens on only to itself, so by name). */
  const listening = async (name: string) =>
    Number(
      (
        await admin.query(
          `select count(*) as n from pg_stat_activity where datname = $1 and application_name like 'doorloom-%' and application_name <> 'doorloom'`,
          [name],
        )
      ).rows[0].n,
    );
  const settle = async (name: string, want: number) => {
    for (let i = 0; i < 100 && (await listening(name)) < want; i++) await new Promise((r) => setTimeout(r, 100));
  };

  it('session mode: one LISTEN connection carries every subscription (keys, calendar, events)', async () => {
    const { db, name } = await database();
    const s = await server(db);
    await settle(name, 1);
    // Ask again after a moment: a second connection would have had time to come up too.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await listening(name)).toBe(1);
    const apps = await admin.query(`select application_name from pg_stat_activity where datname = $1 and application_name like 'doorloom-%'`, [name]);
    expect(apps.rows.map((r) => r.application_name)).toEqual(['doorloom-listen']);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });

  it('transaction mode with DATABASE_DIRECT_URL: the one LISTEN goes there', async () => {
    const { db, name } = await database();
    // the direct URL names the same database by another spelling, so its connection is told apart
    const direct = new URL(db.env.DATABASE_URL);
    direct.searchParams.set('application_name', 'doorloom-direct');
    const s = await server(db, { DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: direct.toString() });
    await settle(name, 1);
    await new Promise((r) => setTimeout(r, 1_000));
    const apps = await admin.query(`select application_name from pg_stat_activity where datname = $1 and application_name like 'doorloom-%'`, [name]);
    expect(apps.rows.map((r) => r.application_name)).toEqual(['doorloom-direct']);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });

  it('transaction mode without a direct URL: no LISTEN, says what that costs, still delivers and refuses a rotated key at once', async () => {
    const { db, name } = await database();
    const integration = await withRuntime(db, async (deps) => {
      const brand = await createBrand(deps, 'Pooled Brand');
      const { integration, api_key } = await createIntegration(deps, { brand_id: brand.id, name: 'pooled', webhook: { url: `${receiver.url}/pooled` } });
      return { id: integration.id, slug: integration.slug, apiKey: api_key };
    });
    const pooled = await server(db, { DATABASE_POOL_MODE: 'transaction' });
    // the other process takes the writes; it delivers nothing itself
    const other = await server(db, { NO_BACKGROUND: '1' });

    expect(pooled.output()).toMatch(/DATABASE_POOL_MODE=transaction without DATABASE_DIRECT_URL: no LISTEN; other processes' events wait up to 1000 ms/);
    expect(pooled.output()).toMatch(/API keys are read from the database on every request/);
    await settle(name, 1); // the other process's one listener
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await listening(name)).toBe(1);

    // events recorded by another process reach the receiver through the pooled process's polling
    await withRuntime(db, (deps) =>
      unitOfWork(deps, async (trx) =>
        appendEvents(trx, {
          clock: deps.clock,
          propertyId: null,
          actorIntegrationId: null,
          targets: await selectAppendTargets(trx, null, integration.id),
          build: () => Array.from({ length: 20 }, (_, i) => ({ type: 'availability.changed' as const, data: { i } })),
        }),
      ),
    );
    await receiver.waitFor(() => receiver.of(integration.slug).length >= 20, 30_000, 'the 20 events');
    expect(receiver.of(integration.slug).map((r) => r.json.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    // a key rotated through the other process is refused by the pooled one within its cache bound
    const me = (key: string) => fetch(`${pooled.url}/api/integrations/v1/me`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect(await me(integration.apiKey)).toBe(200);
    expect(await me(integration.apiKey)).toBe(200);
    const rotated = await fetch(`${other.url}/api/staff/v1/integrations/${integration.id}/api-key/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${STAFF_TOKEN}` },
    });
    expect(rotated.status).toBe(200);
    const newKey = (await rotated.json()).data.api_key as string;
    // nothing is cached without a LISTEN connection: the very next request is refused
    expect(await me(integration.apiKey)).toBe(401);
    expect(await me(newKey)).toBe(200);
    for (const s of [pooled, other]) s.child.kill('SIGTERM');
    expect(await pooled.exited).toBe(0);
    expect(await other.exited).toBe(0);
  }, 120_000);
});
