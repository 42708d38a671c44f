import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, STAFF_TOKEN } from '../helpers/context.js';
import { createBody } from '../properties/fixtures.js';
import { scratchDatabase, type ScratchDatabase } from '../webhooks/process.js';
import { sleep, spawnService, type Service } from './service.js';

/**
 * A booking create sends its events, its idempotency record and its NOTIFY ahead, with the COMMIT
 * (src/db/pipeline.ts). Its session ending while those are on their way must answer 503
 * DATABASE_UNAVAILABLE and leave nothing of the booking; PostgreSQL only (directly or through the
 * run's pooler), with the service as a process of its own.
 */

async function call(service: Service, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { code?: string; data?: Record<string, unknown> } };
}

const addDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe.runIf(databaseUrl)('a booking create whose session ends with its writes in flight (PostgreSQL)', { timeout: 240_000 }, () => {
  let scratch: ScratchDatabase;
  let service: Service;
  let db: pg.Client;

  beforeAll(async () => {
    scratch = await scratchDatabase(databaseUrl);
    service = await spawnService({ ...scratch.env, RATE_LIMITS: 'off' });
    await service.ready();
    // the scratch database itself, not through a pooler: its locks and backends are the test's tools
    const direct = new URL(process.env.DATABASE_DIRECT_URL ?? databaseUrl!);
    direct.pathname = new URL(scratch.env.DATABASE_URL).pathname;
    db = new pg.Client({ connectionString: direct.toString() });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await scratch?.drop();
  });

  it('answers 503 DATABASE_UNAVAILABLE, writes nothing, and the same create then succeeds', async () => {
    expect((await call(service, STAFF_TOKEN, 'POST', '/api/staff/v1/brands', { name: 'Pipeline Brand' })).status).toBe(201);
    const integration = await call(service, STAFF_TOKEN, 'POST', '/api/staff/v1/integrations', { brand_id: 1, name: 'Pipeline PMS' });
    expect(integration.status).toBe(201);
    const key = (integration.body.data as { api_key: string }).api_key;
    const property = await call(
      service,
      key,
      'POST',
      '/api/integrations/v1/properties',
      createBody({ external_id: 'PL-1', units: [{ name: 'Room', external_id: 'PL-R1' }] }),
      {
        'idempotency-key': 'pipeline-property',
      },
    );
    expect(property.status).toBe(201);
    const booking = {
      external_booking_id: 'PL-B1',
      property: { external_id: 'PL-1' },
      units: [{ external_unit_id: 'PL-R1', adults: 2 }],
      check_in: addDays(30),
      check_out: addDays(32),
      guest: { name: 'Asha Rao' },
      pricing: { total: 10000, currency: 'INR' },
      source: { channel: 'airbnb' },
    };

    // The integration's row held here as its sequence's writers hold it (the idempotency claim's
    // key share still passes): the create's events statement, sent ahead after the booking's
    // row, waits for it with the rest of the pipeline behind it.
    await db.query('begin');
    expect((await db.query('select 1 from integrations for no key update')).rowCount).toBe(1);
    const answer = call(service, key, 'POST', '/api/integrations/v1/bookings', booking, { 'idempotency-key': 'pipeline-booking' });
    let early: unknown = null;
    void answer.then((a) => (early = a));
    let blocked: number | null = null;
    const seen: unknown[] = [];
    for (let i = 0; blocked === null; i++) {
      if (early) throw new Error(`the create answered without waiting: ${JSON.stringify(early)} ${JSON.stringify(seen)}`);
      if (i > 300) {
        const { rows } = await db.query(`select state, wait_event_type, left(query, 120) as query from pg_stat_activity where datname = current_database()`);
        throw new Error(`the create's events statement never waited for the lock: ${JSON.stringify(rows)}`);
      }
      await sleep(100);
      const { rows } = await db.query<{ pid: number }>(
        // mid-pipeline, `query` may still name an earlier statement of the flight: the wait itself is the sign
        `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock' and application_name like 'doorloom%'`,
      );
      blocked = rows[0]?.pid ?? null;
      seen.push(
        (
          await db.query(
            `select state, wait_event_type, left(query, 60) as query from pg_stat_activity where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()`,
          )
        ).rows,
      );
    }
    await db.query('select pg_terminate_backend($1)', [blocked]);
    await db.query('commit');

    const lost = await answer;
    expect(lost).toMatchObject({ status: 503, body: { code: 'DATABASE_UNAVAILABLE' } });
    // nothing half-written: no booking, no holds, no events
    const counts = await db.query<{ bookings: number; holds: number; events: number }>(
      'select (select count(*)::int from bookings) as bookings, (select count(*)::int from unit_nights) as holds, (select count(*)::int from events where type = $1) as events',
      ['booking.changed'],
    );
    expect(counts.rows[0]).toEqual({ bookings: 0, holds: 0, events: 0 });

    const again = await call(service, key, 'POST', '/api/integrations/v1/bookings', booking, { 'idempotency-key': 'pipeline-booking-2' });
    expect(again.status).toBe(201);
    const duplicate = await call(service, key, 'POST', '/api/integrations/v1/bookings', booking, { 'idempotency-key': 'pipeline-booking-3' });
    expect(duplicate.status).toBe(200);
    expect(service.stdout() + service.stderr()).not.toMatch(/already executing a query/);
  });
});
