import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { DB } from '../../src/db/schema.js';
import { Signals } from '../../src/signals.js';
import { createAlertNotifier, type AlertNotifier } from '../../src/modules/alerts/alerts.notify.js';
import { createMetrics } from '../../src/modules/metrics/metrics.js';
import { createClaims, type Claims } from '../../src/modules/leases/leases.claims.js';
import { pauseIntegration } from '../../src/modules/webhooks/webhooks.outcomes.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { freePort } from '../../scripts/lib.js';
import { book, createVilla, type Villa } from '../bookings/fixtures.js';
import { createTestContext, failure, STAFF_TOKEN, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { parseScrape } from '../metrics/scrape.js';
import { eventually, staffView } from '../webhooks/helpers.js';

const ALERT_SECRET = `whsec_${Buffer.from('alert-receiver-secret-0123456789').toString('base64')}`;
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('alerts the service evaluates itself', () => {
  let ctx: TestContext;
  let partners: Receiver;
  let pager: Receiver;
  let worker: DeliveryWorker;
  let claims: Claims;
  let notifier: AlertNotifier;
  let failing: TestIntegration;
  let healthy: TestIntegration;
  let villa: Villa;
  let booking: { id: number; external_booking_id: string };
  let partnerFails = true;

  const alerts = async (query = '') => {
    const res = await ctx.staff('GET', `/alerts${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const scrape = async () => parseScrape((await ctx.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${STAFF_TOKEN}` } })).body);
  const notices = () => pager.requests.map((r) => r.json);

  beforeAll(async () => {
    pager = await startReceiver();
    partners = await startReceiver((r) => (partnerFails && r.integration === failing.slug ? { status: 503, body: 'down' } : { status: 200, body: 'ok' }));
    ctx = await createTestContext({ ALERT_WEBHOOK_URL: `${pager.url}/alerts`, ALERT_WEBHOOK_SECRET: ALERT_SECRET });
    const brandId = await ctx.createBrand();
    failing = await ctx.createIntegration({ brandId, name: 'Failing PMS', webhook: { url: `${partners.url}/f` }, horizon_days: 20 });
    healthy = await ctx.createIntegration({ brandId, name: 'Healthy PMS', webhook: { url: `${partners.url}/h` }, horizon_days: 20 });
    worker = startDeliveryWorker(ctx.deps, { pollMs: 100 });
    claims = createClaims(ctx.deps);
    notifier = createAlertNotifier(ctx.deps, claims);
    villa = await createVilla(ctx, failing, 1);
    booking = await book(ctx, failing, villa);
    const other = await createVilla(ctx, healthy, 1);
    await book(ctx, healthy, other);
    await partners.waitFor((rs) => rs.some((r) => r.integration === failing.slug && r.json?.type === 'property.changed'), 15_000, 'a failed attempt');
    await eventually(async () => (await staffView(ctx, healthy.id)).webhook.undelivered_events === 0, 15_000, 'the healthy integration delivered');
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await notifier?.close();
    await claims?.close();
    await partners?.close();
    await pager?.close();
    await ctx?.close();
  });

  it('lists nothing while every booking is younger than 15 minutes', async () => {
    const body = await alerts();
    expect(body).toMatchObject({ success: true, data: [], pagination: { page: 1, per_page: 50, total: 0, last_page: 1 } });
    await notifier.tick();
    expect(pager.requests).toHaveLength(0);
  });

  it('warns at 15 minutes and escalates at 30, critical first, with the booking and the age', async () => {
    await ctx.advanceClock(16 * 60);
    let body = await alerts();
    expect(body.data, JSON.stringify(body.data)).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      id: `booking_undelivered_15m:${failing.id}`,
      name: 'booking_undelivered_15m',
      severity: 'warning',
      integration: { id: failing.id, slug: failing.slug },
      runbook: 'docs/operations.md#bookingundelivered',
      detail: { booking_id: booking.id, external_booking_id: booking.external_booking_id },
    });
    expect(body.data[0].detail.event_age_seconds).toBeGreaterThanOrEqual(16 * 60);
    expect(body.data[0].detail.event_age_seconds).toBeLessThan(30 * 60);

    await ctx.advanceClock(15 * 60);
    body = await alerts();
    expect(body.data.map((a: { name: string }) => a.name)).toEqual(['booking_undelivered_30m', 'booking_undelivered_15m']);
    expect(body.data[0]).toMatchObject({ severity: 'critical', detail: { booking_id: booking.id, external_booking_id: booking.external_booking_id } });
    expect(body.data[0].detail.event_age_seconds).toBeGreaterThanOrEqual(31 * 60);
    // since: the moment the threshold was crossed
    const recorded = Date.parse(body.data[0].detail.event_recorded_at);
    expect(Date.parse(body.data[0].since) - recorded).toBe(30 * 60_000);
    expect(Date.parse(body.data[1].since) - recorded).toBe(15 * 60_000);
    expect(body.data.every((a: { integration: { id: number } }) => a.integration.id === failing.id)).toBe(true);

    const metrics = await scrape();
    expect(metrics.value('doorloom_webhook_oldest_undelivered_booking_seconds', { integration: failing.slug })).toBeGreaterThanOrEqual(31 * 60);
    expect(metrics.value('doorloom_webhook_oldest_undelivered_booking_seconds', { integration: healthy.slug })).toBe(0);
  });

  it('pages, and filters by severity and integration', async () => {
    const first = await alerts('?per_page=1');
    expect(first.pagination).toEqual({ page: 1, per_page: 1, total: 2, last_page: 2 });
    expect(first.data[0].name).toBe('booking_undelivered_30m');
    const second = await alerts('?per_page=1&page=2');
    expect(second.data[0].name).toBe('booking_undelivered_15m');
    expect((await alerts('?severity=warning')).data.map((a: { name: string }) => a.name)).toEqual(['booking_undelivered_15m']);
    expect((await alerts(`?integration_id=${healthy.id}`)).data).toEqual([]);
    const bad = await ctx.staff('GET', '/alerts?severity=loud');
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject(failure('VALIDATION_FAILED'));
    const partner = await ctx.app.inject({ method: 'GET', url: '/api/staff/v1/alerts', headers: { authorization: `Bearer ${healthy.apiKey}` } });
    expect(partner.statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/staff/v1/alerts' })).statusCode).toBe(401);
  });

  it('sends each start once, signed as partner deliveries are, and sends again what the receiver refused', async () => {
    pager.script({ status: 500, body: 'pager down' });
    await expect(notifier.tick()).rejects.toThrow(/refused the firing notice/);
    await notifier.tick();
    await notifier.tick(); // nothing new: nothing sent
    const firing = notices().filter((n) => n.status === 'firing');
    // the refused notice, then both starts, in the order they started
    expect(pager.requests).toHaveLength(3);
    expect(firing.map((n) => n.name)).toEqual(['booking_undelivered_15m', 'booking_undelivered_15m', 'booking_undelivered_30m']);
    expect(pager.requests[0].headers['webhook-id']).toBe(pager.requests[1].headers['webhook-id']);
    expect(firing[2]).toMatchObject({
      status: 'firing',
      severity: 'critical',
      integration: { id: failing.id, slug: failing.slug },
      detail: { booking_id: booking.id, external_booking_id: booking.external_booking_id },
    });
    expect(firing[2].ended_at).toBeUndefined();
    // the Standard Webhooks signature (standardwebhooks' own check of the timestamp against the
    // real time would refuse the test clock's, so the signature is checked on its own)
    const key = Buffer.from(ALERT_SECRET.slice('whsec_'.length), 'base64');
    for (const r of pager.requests) {
      expect(r.headers['content-type']).toBe('application/json');
      const signed = `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`;
      expect(r.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
      // signed at the service clock's time, as partner deliveries are
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - ctx.deps.clock.nowMs() / 1000)).toBeLessThan(60);
    }
    // and a Standard Webhooks library accepts it once its clock agrees with the service's
    const sample = pager.requests[2];
    const realNow = Date.now;
    Date.now = () => Number(sample.headers['webhook-timestamp']) * 1000;
    try {
      expect(new Webhook(ALERT_SECRET.slice('whsec_'.length)).verify(sample.body, sample.headers as Record<string, string>)).toEqual(sample.json);
    } finally {
      Date.now = realNow;
    }
  });

  it('sends the end of each alert once the booking is delivered', async () => {
    partnerFails = false;
    expect((await ctx.staff('POST', `/integrations/${failing.id}/webhook/resume`)).statusCode).toBe(200);
    await eventually(async () => (await alerts()).data.length === 0, 15_000, 'the booking delivered');
    const before = pager.requests.length;
    await notifier.tick();
    const resolved = pager.requests.slice(before).map((r) => r.json);
    expect(resolved.map((n) => [n.name, n.status])).toEqual([
      ['booking_undelivered_15m', 'resolved'],
      ['booking_undelivered_30m', 'resolved'],
    ]);
    for (const n of resolved) {
      expect(Date.parse(n.ended_at)).toBeGreaterThan(Date.parse(n.since));
      expect(n.detail.booking_id).toBe(booking.id);
    }
    await notifier.tick();
    expect(pager.requests.length).toBe(before + 2);
    expect(await ctx.deps.db.selectFrom('alert_notices').selectAll().execute()).toEqual([]);
    const metrics = await scrape();
    expect(metrics.value('doorloom_webhook_oldest_undelivered_booking_seconds', { integration: failing.slug })).toBe(0);
  });

  it('lists a paused integration with its reason, in the metrics too', async () => {
    // no delivery from here on: the pause stays until staff resume it
    await worker.stop();
    await pauseIntegration(ctx.deps, { integrationId: failing.id, slug: failing.slug }, 'delivery_failures');
    const body = await alerts();
    expect(body.data).toEqual([
      expect.objectContaining({
        name: 'integration_paused',
        severity: 'warning',
        integration: { id: failing.id, slug: failing.slug },
        detail: expect.objectContaining({ paused_reason: 'delivery_failures' }),
      }),
    ]);
    const metrics = await scrape();
    expect(metrics.value('doorloom_integration_paused', { integration: failing.slug, reason: 'delivery_failures' })).toBe(1);
    expect(metrics.value('doorloom_integration_paused', { integration: healthy.slug, reason: 'delivery_failures' })).toBeUndefined();
    await notifier.tick();
    expect(pager.requests.at(-1)!.json).toMatchObject({ name: 'integration_paused', status: 'firing', detail: { paused_reason: 'delivery_failures' } });
    expect((await ctx.staff('POST', `/integrations/${failing.id}/webhook/resume`)).statusCode).toBe(200);
    expect((await alerts()).data).toEqual([]);
    expect((await scrape()).families.get('doorloom_integration_paused')?.metrics ?? []).toEqual([]);
    await notifier.tick();
    expect(pager.requests.at(-1)!.json).toMatchObject({ name: 'integration_paused', status: 'resolved' });
  });

  it('reports readiness and the events retained', async () => {
    const metrics = await scrape();
    expect(metrics.value('doorloom_ready')).toBe(1);
    const { n } = await ctx.deps.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBeGreaterThan(0);
    expect(metrics.value('doorloom_events_retained')).toBe(Number(n));
  });

  it('still answers a scrape, with doorloom_ready 0, when the database does not', async () => {
    const port = await freePort();
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: `postgres://nobody@127.0.0.1:${port}/none`, connectionTimeoutMillis: 1_000 }) }),
    });
    try {
      const metrics = createMetrics({ db, clock: ctx.deps.clock, signals: new Signals() });
      const away = parseScrape(await metrics.text());
      expect(away.value('doorloom_ready')).toBe(0);
      // the database's figures are left out rather than reported as zeros
      expect(away.value('doorloom_integrations', { status: 'active' })).toBeUndefined();
      expect(away.families.get('doorloom_webhook_oldest_undelivered_booking_seconds')?.metrics ?? []).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});

describe('ALERT_WEBHOOK_URL settings', () => {
  it('needs a whsec_ secret with the URL, and the URL with the secret', () => {
    expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'https://pager.example.com/hook' })).toThrow(/ALERT_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'https://pager.example.com/hook', ALERT_WEBHOOK_SECRET: 'hunter2' })).toThrow(/whsec_/);
    expect(() => loadConfig({ ALERT_WEBHOOK_SECRET: ALERT_SECRET })).toThrow(/ALERT_WEBHOOK_URL/);
    expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'pager', ALERT_WEBHOOK_SECRET: ALERT_SECRET })).toThrow(/absolute/);
    const config = loadConfig({ ALERT_WEBHOOK_URL: 'https://pager.example.com/hook', ALERT_WEBHOOK_SECRET: ALERT_SECRET });
    expect(config).toMatchObject({ alertWebhookUrl: 'https://pager.example.com/hook', alertWebhookSecret: ALERT_SECRET });
  });

  /** `src/main.ts` with these settings: its exit code and what it wrote. */
  const start = (env: Record<string, string>) =>
    new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'memory:', PORT: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('exit', (code) => resolve({ code, output }));
    });

  it('refuses at start, one line and exit code 2, a missing secret or a URL the SSRF rules forbid', async () => {
    const missing = await start({ ALERT_WEBHOOK_URL: 'https://pager.example.com/hook' });
    expect(missing.code).toBe(2);
    expect(missing.output.trim().split('\n')).toHaveLength(1);
    expect(missing.output).toMatch(/^configuration error: ALERT_WEBHOOK_URL needs ALERT_WEBHOOK_SECRET/);
    const loopback = await start({ ALERT_WEBHOOK_URL: 'https://127.0.0.1/hook', ALERT_WEBHOOK_SECRET: ALERT_SECRET });
    expect(loopback.code).toBe(2);
    expect(loopback.output).toMatch(/^configuration error: ALERT_WEBHOOK_URL must not point at a loopback/);
    const plain = await start({ ALERT_WEBHOOK_URL: 'http://pager.example.com/hook', ALERT_WEBHOOK_SECRET: ALERT_SECRET });
    expect(plain.code).toBe(2);
    expect(plain.output).toMatch(/^configuration error: ALERT_WEBHOOK_URL must use https/);
  }, 60_000);
});
