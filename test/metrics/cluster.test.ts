import { describe, expect, it } from 'vitest';
import { databaseUrl, STAFF_TOKEN } from '../helpers/context.js';
import { createBody } from '../properties/fixtures.js';
import { scratchDatabase, startServer } from '../webhooks/process.js';
import { parseScrape } from './scrape.js';

const METRICS_TOKEN = 'cluster-metrics-token-0123456789';

describe('/metrics with WORKERS=2', () => {
  // WORKERS above 1 needs PostgreSQL (the embedded database lives in one process and the service
  // refuses the setting without it), so this runs in the PostgreSQL pass of the suite.
  it.runIf(databaseUrl)(
    'reports the whole node, whichever worker answers the scrape',
    async () => {
      const base = await scratchDatabase(databaseUrl);
      const server = await startServer({ ...base, env: { ...base.env, WORKERS: '2', METRICS_TOKEN } });
      try {
        await server.ready();
        const staff = (method: string, path: string, body?: unknown) =>
          fetch(`${server.url}/api/staff/v1${path}`, {
            method,
            headers: { authorization: `Bearer ${STAFF_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
          });
        const brand = (await (await staff('POST', '/brands', { name: 'Cluster Brand' })).json()).data;
        const created = (await (await staff('POST', '/integrations', { brand_id: brand.id, name: 'Cluster Quiet', horizon_days: 10 })).json()).data;
        const res = await fetch(`${server.url}/api/integrations/v1/properties`, {
          method: 'POST',
          headers: { authorization: `Bearer ${created.api_key}`, 'content-type': 'application/json', 'idempotency-key': 'cluster-metrics-1' },
          body: JSON.stringify(createBody()),
        });
        expect(res.status).toBe(201);

        // Fresh connections each, so the requests spread over both workers.
        const calls = 40;
        for (let i = 0; i < calls; i++) {
          const me = await fetch(`${server.url}/api/integrations/v1/me`, { headers: { authorization: `Bearer ${created.api_key}`, connection: 'close' } });
          expect(me.status).toBe(200);
        }
        const pending = (await (await staff('GET', `/integrations/${created.integration.id}`)).json()).data.webhook.undelivered_events;
        expect(pending).toBeGreaterThan(0);

        const pids = new Set<string>();
        for (let i = 0; i < 6; i++) {
          const scrape = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}`, connection: 'close' } });
          expect(scrape.status).toBe(200);
          const parsed = parseScrape(await scrape.text());
          // counted by whichever worker answered, summed over both
          expect(parsed.value('doorloom_http_requests_total', { route: '/api/integrations/v1/me', method: 'GET', status: '200' })).toBe(calls);
          expect(parsed.total('doorloom_events_recorded_total')).toBeGreaterThan(0);
          // read from the shared database by each worker: reported once, not twice
          expect(parsed.value('doorloom_webhook_backlog_events', { integration: created.integration.slug })).toBe(pending);
          expect(parsed.value('doorloom_integrations', { status: 'active' })).toBe(1);
          // two workers' pools
          expect(parsed.value('doorloom_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(2);
          pids.add(scrape.headers.get('x-request-id')!.split('-')[1]);
        }
        expect(pids.size).toBe(2); // both workers answered scrapes
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
        await base.drop();
      }
    },
    180_000,
  ); // a primary and two workers: slow to start on a loaded machine
});
