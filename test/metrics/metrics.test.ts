import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, STAFF_TOKEN, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { deliveryOutcome } from '../../src/modules/metrics/metrics.js';
import { loadConfig } from '../../src/config.js';
import { createOk } from '../properties/fixtures.js';
import { deliveryRows, eventually } from '../webhooks/helpers.js';
import { parseScrape, type Scrape } from './scrape.js';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';

/** A loopback port with nothing listening: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('/metrics', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let healthy: TestIntegration;
  let failing: TestIntegration;
  let slow: TestIntegration;
  let refused: TestIntegration;
  let quiet: TestIntegration;
  let meCalls = 0;
  let scrape: Scrape;
  let rawText: string;

  beforeAll(async () => {
    ctx = await createTestContext({ METRICS_TOKEN });
    receiver = await startReceiver((r) => {
      if (r.integration === failing.slug) return { status: 500, body: 'boom' };
      if (r.integration === slow.slug) return { status: 200, delayMs: 1_500 };
      return { status: 200, body: 'ok' };
    });
    const brandId = await ctx.createBrand();
    healthy = await ctx.createIntegration({ brandId, name: 'Healthy', webhook: { url: `${receiver.url}/h` }, horizon_days: 20 });
    failing = await ctx.createIntegration({ brandId, name: 'Failing', webhook: { url: `${receiver.url}/f` }, horizon_days: 20 });
    slow = await ctx.createIntegration({ brandId, name: 'Slow', webhook: { url: `${receiver.url}/s`, timeout_seconds: 1 }, horizon_days: 20 });
    refused = await ctx.createIntegration({ brandId, name: 'Refused', webhook: { url: `http://127.0.0.1:${await closedPort()}/r` }, horizon_days: 20 });
    quiet = await ctx.createIntegration({ brandId, name: 'Quiet', horizon_days: 20 });
    worker = startDeliveryWorker(ctx.deps, { pollMs: 50 });

    // The scripted load: properties created through the partner API (each records its events),
    // /me calls, and requests that match no route.
    for (const integration of [healthy, healthy, healthy, failing, slow, refused, quiet]) await createOk(ctx, integration);
    for (let i = 0; i < 7; i++) {
      const res = await ctx.api(healthy.apiKey, 'GET', '/me');
      expect(res.statusCode).toBe(200);
      meCalls++;
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/no/such/path/12345' })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: '/no/such/path/67890' })).statusCode).toBe(404);

    const lastSequence = async (id: number) =>
      (await ctx.deps.db.selectFrom('integrations').select('last_sequence').where('id', '=', id).executeTakeFirstOrThrow()).last_sequence;
    const healthyEvents = await lastSequence(healthy.id);
    await receiver.waitFor((rs) => rs.filter((r) => r.integration === healthy.slug).length >= healthyEvents, 20_000, 'every healthy event');
    await receiver.waitFor(
      (rs) => rs.some((r) => r.integration === failing.slug) && rs.some((r) => r.integration === slow.slug),
      20_000,
      'the failing attempts',
    );
    await eventually(
      async () => {
        const rows = await ctx.deps.db.selectFrom('delivery_attempts').select(['integration_id']).where('success', '=', false).execute();
        const failed = new Set(rows.map((r) => r.integration_id));
        return failed.has(failing.id) && failed.has(slow.id) && failed.has(refused.id);
      },
      20_000,
      'every failure logged',
    );
    await worker.stop(); // nothing more in flight: the scrape below sees final figures

    const res = await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    rawText = res.body;
    scrape = parseScrape(rawText);
  }, 90_000);

  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await ctx?.close();
  });

  it('counts delivery outcomes as the receivers saw them', async () => {
    const seen = (slug: string) => receiver.of(slug).length;
    // every request the healthy receiver saw was answered 200
    expect(scrape.value('doorloom_webhook_deliveries_total', { outcome: 'success' })).toBe(seen(healthy.slug));
    expect(scrape.value('doorloom_webhook_deliveries_total', { outcome: 'http_error' })).toBe(seen(failing.slug));
    expect(scrape.value('doorloom_webhook_deliveries_total', { outcome: 'timeout' })).toBe(seen(slow.slug));
    expect(seen(failing.slug)).toBeGreaterThan(0);
    expect(seen(slow.slug)).toBeGreaterThan(0);
    // refused connections reach no receiver: the attempt log holds them
    const refusedAttempts = await ctx.deps.db.selectFrom('delivery_attempts').select('error').where('integration_id', '=', refused.id).execute();
    expect(refusedAttempts.length).toBeGreaterThan(0);
    expect(refusedAttempts.every((a) => a.error?.startsWith('ECONNREFUSED'))).toBe(true);
    expect(scrape.value('doorloom_webhook_deliveries_total', { outcome: 'refused' })).toBe(refusedAttempts.length);
    expect(scrape.value('doorloom_webhook_deliveries_total', { outcome: 'network_error' })).toBe(0);

    const attempts = await ctx.deps.db.selectFrom('delivery_attempts').select('id').execute();
    expect(scrape.value('doorloom_webhook_delivery_duration_seconds')).toBe(attempts.length);
    expect(scrape.families.get('doorloom_webhook_delivery_duration_seconds')?.type).toBe('HISTOGRAM');
  });

  it('counts recorded events by kind as the event log holds them', async () => {
    const rows = await ctx.deps.db
      .selectFrom('events')
      .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
      .groupBy('type')
      .execute();
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(scrape.value('doorloom_events_recorded_total', { type: row.type }), row.type).toBe(Number(row.n));
    expect(scrape.total('doorloom_events_recorded_total')).toBe(rows.reduce((sum, r) => sum + Number(r.n), 0));
  });

  it('counts HTTP requests by route template, never by raw path', async () => {
    expect(scrape.value('doorloom_http_requests_total', { route: '/api/integrations/v1/me', method: 'GET', status: '200' })).toBe(meCalls);
    expect(scrape.value('doorloom_http_requests_total', { route: '/api/integrations/v1/properties', method: 'POST', status: '201' })).toBe(7);
    expect(scrape.value('doorloom_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(2);
    // parse-prometheus-text-format folds a histogram's labelled series into one (it keeps only the
    // unlabelled shape of prom2json), so the labelled count is read off its exposition line
    expect(scrape.families.get('doorloom_http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(rawText).toContain(`doorloom_http_request_duration_seconds_count{route="/api/integrations/v1/me",method="GET"} ${meCalls}\n`);
    const routes = new Set(scrape.families.get('doorloom_http_requests_total')!.metrics.map((m) => m.labels!.route));
    for (const route of routes) expect(route).not.toMatch(/\/\d+(\/|$)/); // ids only appear as :params
    expect(routes).toContain('/api/staff/v1/integrations');
  });

  it('reports backlog, oldest undelivered age and integrations by status at scrape time', async () => {
    const pending = async (id: number) => (await deliveryRows(ctx.deps.db, id, 'pending')).length;
    expect(scrape.value('doorloom_webhook_backlog_events', { integration: healthy.slug })).toBe(0);
    expect(scrape.value('doorloom_webhook_oldest_undelivered_seconds', { integration: healthy.slug })).toBe(0);
    for (const i of [failing, slow, refused, quiet]) {
      expect(scrape.value('doorloom_webhook_backlog_events', { integration: i.slug }), i.slug).toBe(await pending(i.id));
      expect(scrape.value('doorloom_webhook_oldest_undelivered_seconds', { integration: i.slug })).toBeGreaterThanOrEqual(0);
    }
    expect(await pending(quiet.id)).toBeGreaterThan(0);
    expect(scrape.value('doorloom_integrations', { status: 'active' })).toBe(5);
    expect(scrape.value('doorloom_integrations', { status: 'paused' })).toBe(0);

    // the gauges are read at each scrape: the service clock moves, the age follows; a disabled
    // integration leaves the backlog families and moves to its status
    await ctx.advanceClock(3_600);
    await ctx.staff('PATCH', `/integrations/${refused.id}`, { status: 'disabled' });
    const later = parseScrape((await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${STAFF_TOKEN}` } })).body);
    expect(later.value('doorloom_webhook_oldest_undelivered_seconds', { integration: quiet.slug })).toBeGreaterThanOrEqual(3_600);
    expect(later.value('doorloom_webhook_backlog_events', { integration: refused.slug })).toBeUndefined();
    expect(later.value('doorloom_integrations', { status: 'disabled' })).toBe(1);
    expect(later.value('doorloom_integrations', { status: 'active' })).toBe(4);
  });

  it("includes the process's default metrics and, on PostgreSQL, the pool", async () => {
    expect(scrape.families.has('process_cpu_user_seconds_total')).toBe(true);
    expect(scrape.families.has('nodejs_eventloop_lag_seconds')).toBe(true);
    if (ctx.deps.engine === 'postgres') {
      expect(scrape.value('doorloom_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(scrape.value('doorloom_db_pool_connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    } else {
      expect(scrape.families.has('doorloom_db_pool_connections')).toBe(false);
    }
  });

  it('answers only the staff token or METRICS_TOKEN', async () => {
    const get = (authorization?: string) => ctx.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
    const none = await get();
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject(failure('UNAUTHENTICATED'));
    expect((await get(`Bearer ${METRICS_TOKEN}x`)).statusCode).toBe(401);
    const partner = await get(`Bearer ${healthy.apiKey}`);
    expect(partner.statusCode).toBe(403);
    expect(partner.json()).toMatchObject(failure('NOT_STAFF_TOKEN'));
    expect((await get(`Bearer ${STAFF_TOKEN}`)).statusCode).toBe(200);
    expect((await get(`bearer ${METRICS_TOKEN}`)).statusCode).toBe(200);
  });

  it('classifies attempt outcomes', () => {
    const r = (ok: boolean, status: number | null, error: string | null) => deliveryOutcome({ ok, status, error, durationMs: 1 });
    expect(r(true, 204, null)).toBe('success');
    expect(r(false, 302, null)).toBe('http_error');
    expect(r(false, null, 'RESPONSE_TIMEOUT: no complete answer within 10 s')).toBe('timeout');
    expect(r(false, null, 'CONNECT_TIMEOUT: no connection within 5 s')).toBe('timeout');
    expect(r(false, null, 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1')).toBe('refused');
    expect(r(false, null, 'FORBIDDEN_ADDRESS: loopback')).toBe('refused');
    expect(r(false, null, 'ECONNRESET: socket hang up')).toBe('network_error');
    expect(r(false, null, 'ABORTED: delivery stopped by the worker')).toBeNull();
  });

  it('refuses a malformed METRICS_TOKEN at start', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_TOKEN: 'has spaces in it, which is not a token' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
  });
});
