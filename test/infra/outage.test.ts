import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, STAFF_TOKEN } from '../helpers/context.js';
import { startReceiver } from '../helpers/receiver.js';
import { createBody } from '../properties/fixtures.js';
import { freePort } from '../../scripts/lib.js';
import { scratchDatabase, type ScratchDatabase } from '../webhooks/process.js';
import { sleep, spawnService, type Service } from './service.js';

/**
 * The database goes away under a running service (PostgreSQL only: the embedded database lives
 * inside the process). The process must survive, answer 503 DATABASE_UNAVAILABLE quickly while the
 * database is gone, and recover by itself.
 */

/** A TCP proxy to PostgreSQL that can be cut (every connection reset, new ones refused) and restored. */
class CuttableProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  /** Connections stay open but nothing gets through either way. */
  paused = false;
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      // forwarded by hand so that a pause can swallow the bytes (a network gone silent)
      client.on('data', (chunk) => this.paused || upstream.write(chunk));
      upstream.on('data', (chunk) => this.paused || client.write(chunk));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Ends every connection (they lost bytes while paused) and forwards again. */
  resume(): void {
    for (const s of this.sockets) s.destroy();
    this.paused = false;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.resetAndDestroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

interface Answer {
  status: number;
  code?: string;
  ms: number;
}

async function call(url: string, token: string, init: RequestInit = {}): Promise<Answer> {
  const start = performance.now();
  const res = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, code: body.code, ms: performance.now() - start };
}

async function seedIntegration(service: Service, webhookUrl?: string): Promise<string> {
  const brand = await call(`${service.url}/api/staff/v1/brands`, STAFF_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'Outage Brand' }) });
  expect(brand.status).toBe(201);
  const res = await fetch(`${service.url}/api/staff/v1/integrations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${STAFF_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ brand_id: 1, name: 'Outage PMS', ...(webhookUrl ? { webhook: { url: webhookUrl } } : {}) }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { api_key: string } }).data.api_key;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = performance.now();
  while (performance.now() - start < timeoutMs) {
    if (await check().catch(() => false)) return performance.now() - start;
    await sleep(200);
  }
  throw new Error(`not within ${timeoutMs} ms`);
}

async function backendsOf(dbName: string, admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ application_name: string }>(
    `select application_name from pg_stat_activity where datname = $1 and application_name like 'doorloom%' and pid <> pg_backend_pid()`,
    [dbName],
  );
  return rows.map((r) => r.application_name);
}

/** The service on `scratch`, reaching PostgreSQL through a proxy the test can cut. */
async function serviceBehindProxy(scratch: ScratchDatabase): Promise<{ proxy: CuttableProxy; service: Service }> {
  const target = new URL(databaseUrl!);
  const proxy = new CuttableProxy(await freePort(), { host: target.hostname, port: Number(target.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(scratch.env.DATABASE_URL);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  return { proxy, service: await spawnService({ DATABASE_URL: viaProxy.toString() }) };
}

describe.runIf(databaseUrl)('database outages (PostgreSQL)', { timeout: 240_000 }, () => {
  let scratch: ScratchDatabase;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    scratch = await scratchDatabase(databaseUrl);
    dbName = new URL(scratch.env.DATABASE_URL).pathname.slice(1);
    admin = new pg.Client({ connectionString: databaseUrl! });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await scratch?.drop();
  });

  it('every backend of the service terminated while requests run: the process survives and answers again', async () => {
    // The request tiers are not under test here, and four busy loops would reach GET /me's.
    const service = await spawnService({ ...scratch.env, RATE_LIMITS: 'off' });
    try {
      await service.ready();
      const key = await seedIntegration(service);
      await waitFor(async () => (await backendsOf(dbName, admin)).includes('doorloom-listen'), 10_000);

      const answers: Answer[] = [];
      let running = true;
      const load = Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          while (running) {
            answers.push(
              i % 2 === 0
                ? await call(`${service.url}/api/integrations/v1/me`, key)
                : await call(`${service.url}/api/staff/v1/brands`, STAFF_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'Under load' }) }),
            );
          }
        }),
      );
      let terminated = 0;
      for (let round = 0; round < 5; round++) {
        await sleep(300);
        const { rows } = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name like 'doorloom%' and pid <> pg_backend_pid()`,
          [dbName],
        );
        terminated += rows.length;
      }
      await sleep(300);
      running = false;
      await load.catch((error) => {
        throw new Error(`a request failed (${String(error?.cause?.message ?? error?.message)}); the service said: ${service.stdout()}${service.stderr()}`);
      });

      expect(terminated).toBeGreaterThan(5);
      expect(service.child.exitCode).toBeNull();
      for (const a of answers) {
        if (a.status >= 500) expect(a).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
        else expect([200, 201]).toContain(a.status);
      }
      expect(answers.filter((a) => a.status < 300).length).toBeGreaterThan(10);
      // answers again, and the LISTEN connection is back
      expect((await call(`${service.url}/api/integrations/v1/me`, key)).status).toBe(200);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      await waitFor(async () => (await backendsOf(dbName, admin)).includes('doorloom-listen'), 15_000);
      expect(service.stderr()).not.toMatch(/Unhandled 'error' event/);
    } finally {
      await service.stop();
    }
  });

  it('the database cut behind a proxy: 503 DATABASE_UNAVAILABLE within seconds, /readyz 503; restored: everything recovers', async () => {
    const { proxy, service } = await serviceBehindProxy(scratch);
    const receiver = await startReceiver();
    const createProperty = (key: string, name: string) =>
      call(`${service.url}/api/integrations/v1/properties`, key, {
        method: 'POST',
        body: JSON.stringify(createBody({ name })),
        headers: { 'idempotency-key': `outage-${name}` },
      });
    try {
      await service.ready();
      const key = await seedIntegration(service, `${receiver.url}/hook`);
      expect((await createProperty(key, 'Before')).status).toBe(201);
      await receiver.waitFor((r) => r.some((q) => q.json?.type === 'property.changed'), 20_000, 'delivery before the cut');
      expect((await call(`${service.url}/api/integrations/v1/me`, key)).status).toBe(200);
      await waitFor(async () => (await backendsOf(dbName, admin)).includes('doorloom-listen'), 10_000);

      await proxy.cut();
      // API key cached a moment ago: with its change listener down, the key is not served from cache
      const during = await Promise.all([
        call(`${service.url}/api/integrations/v1/me`, key),
        call(`${service.url}/api/integrations/v1/properties`, key),
        call(`${service.url}/api/staff/v1/brands`, STAFF_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'While down' }) }),
      ]);
      for (const a of during) {
        expect(a).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
        expect(a.ms).toBeLessThan(7_000);
      }
      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { success: boolean }).success).toBe(false);
      // the process itself is healthy: a proxy checking /healthz keeps it, its clients get the 503 envelope
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);

      // a while down: the loops back off, the process stays up and keeps answering 503
      await sleep(3_000);
      expect(service.child.exitCode).toBeNull();
      expect(await call(`${service.url}/api/integrations/v1/me`, key)).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });

      await proxy.open();
      const recoveredIn = await waitFor(async () => (await call(`${service.url}/api/integrations/v1/me`, key)).status === 200, 15_000);
      expect(recoveredIn).toBeLessThan(15_000);
      console.log(`503 answers while cut in ${during.map((a) => Math.round(a.ms)).join(', ')} ms; recovered ${Math.round(recoveredIn)} ms after restore`);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
      expect((await call(`${service.url}/api/staff/v1/brands`, STAFF_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'After' }) })).status).toBe(201);
      // the LISTEN connection reconnects by itself (capped backoff)
      await waitFor(async () => (await backendsOf(dbName, admin)).includes('doorloom-listen'), 15_000);
      // the delivery worker (and its claims connection) is back at work
      const before = receiver.requests.length;
      expect((await createProperty(key, 'After')).status).toBe(201);
      await receiver.waitFor(
        (r) => r.slice(before).some((q) => q.json?.type === 'property.changed' && JSON.stringify(q.json).includes('After')),
        30_000,
        'delivery after recovery',
      );
      expect(service.child.exitCode).toBeNull();
    } finally {
      await service.stop();
      await proxy.cut();
      await receiver.close();
    }
  });

  it('the database goes silent (connections open, nothing answers): 503 DATABASE_UNAVAILABLE within the time limits, then recovery', async () => {
    const { proxy, service } = await serviceBehindProxy(scratch);
    try {
      await service.ready();
      const key = await seedIntegration(service);
      expect((await call(`${service.url}/api/integrations/v1/me`, key)).status).toBe(200);

      proxy.paused = true;
      const during = await Promise.all([
        call(`${service.url}/api/integrations/v1/me`, key),
        call(`${service.url}/api/staff/v1/brands`, STAFF_TOKEN, { method: 'POST', body: JSON.stringify({ name: 'Silent' }) }),
      ]);
      for (const a of during) {
        expect(a).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
        expect(a.ms).toBeLessThan(12_000); // pooled connection: the 10 s read limit; a new one: 5 s
      }
      console.log(`503 answers while silent in ${during.map((a) => Math.round(a.ms)).join(', ')} ms`);
      expect(service.child.exitCode).toBeNull();

      proxy.resume();
      await waitFor(async () => (await call(`${service.url}/api/integrations/v1/me`, key)).status === 200, 20_000);
      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    } finally {
      await service.stop();
      await proxy.cut();
    }
  });
});
