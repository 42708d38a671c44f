import { createHmac, randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import { launchBrowser } from '../console/world.js';
import { databaseUrl, STAFF_TOKEN } from '../helpers/context.js';
import { newKey } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createBody } from '../properties/fixtures.js';
import { eventually } from '../webhooks/helpers.js';
import { scratchDatabase, startServer, type ScratchDatabase, type ServerProcess } from '../webhooks/process.js';

const ALERT_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The escalation of an undelivered booking, black-box: the service as a process (its own
 * background loops and test clock), a partner receiver that fails, an ALERT_WEBHOOK_URL receiver,
 * and the console in Chromium. Only HTTP crosses between them.
 */
describe(`an undelivered booking escalates (${databaseUrl ? 'PostgreSQL' : 'PGlite on disk'})`, () => {
  let db: ScratchDatabase;
  let server: ServerProcess;
  let partners: Receiver;
  let pager: Receiver;
  let browser: Browser;
  let partnerFails = true;
  let failing: { id: number; slug: string; key: string };
  let healthy: { id: number; slug: string; key: string };
  let booking: { id: number; external_booking_id: string };

  const call = async (path: string, method = 'GET', body?: unknown, token = STAFF_TOKEN, headers: Record<string, string> = {}) => {
    const res = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const staff = (path: string, method = 'GET', body?: unknown) => call(`/api/staff/v1${path}`, method, body);
  const partner = (key: string, path: string, body: unknown) => call(`/api/integrations/v1${path}`, 'POST', body, key, { 'idempotency-key': newKey() });
  const undelivered = async (id: number) => (await staff(`/integrations/${id}`)).json.data.webhook.undelivered_events as number;

  beforeAll(async () => {
    partners = await startReceiver((r) =>
      partnerFails && r.integration === failing?.slug ? { status: 500, body: 'receiver down' } : { status: 200, body: 'ok' },
    );
    pager = await startReceiver();
    db = await scratchDatabase(databaseUrl);
    server = await startServer(db, { TEST_CLOCK: '1', ALERT_WEBHOOK_URL: `${pager.url}/doorloom-alerts`, ALERT_WEBHOOK_SECRET: ALERT_SECRET });
    await server.ready();

    const brand = (await staff('/brands', 'POST', { name: 'Coastal Homes' })).json.data;
    const integration = async (name: string, path: string) => {
      const res = await staff('/integrations', 'POST', { brand_id: brand.id, name, webhook: { url: `${partners.url}/${path}` }, horizon_days: 20 });
      expect(res.status).toBe(201);
      return { id: res.json.data.integration.id, slug: res.json.data.integration.slug, key: res.json.data.api_key };
    };
    failing = await integration('Lagoon PMS', 'lagoon');
    healthy = await integration('Harbour PMS', 'harbour');
    for (const i of [failing, healthy]) expect((await partner(i.key, '/properties', createBody({ external_id: `villa-${i.slug}` }))).status).toBe(201);
    const today = kolkataDate(new Date((await staff('/clock')).json.data.now));
    const created = await partner(failing.key, '/bookings', {
      external_booking_id: `LAG-${randomBytes(4).toString('hex')}`,
      property: { external_id: `villa-${failing.slug}` },
      units: [{ adults: 2 }],
      check_in: addDays(today, 10),
      check_out: addDays(today, 12),
      guest: { name: 'Meera Nair', phone_code: '+91', mobile: '9876500000' },
      pricing: { total: 24000, currency: 'INR' },
      source: { channel: 'direct', reference: 'WEB-1' },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    booking = created.json.data;
    await eventually(async () => (await undelivered(healthy.id)) === 0, 20_000, 'the healthy integration delivered');
    await partners.waitFor((rs) => rs.some((r) => r.integration === failing.slug), 20_000, 'a failed attempt');
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.child.kill('SIGTERM');
    await server?.exited;
    await partners?.close();
    await pager?.close();
    await db?.drop();
  });

  it('lists the booking in the staff alerts once the test clock is 31 minutes on', async () => {
    expect((await staff('/alerts')).json.data).toEqual([]);
    expect((await staff('/clock', 'POST', { advance_seconds: 31 * 60 })).status).toBe(200);
    const res = await staff('/alerts');
    expect(res.status).toBe(200);
    expect(res.json.pagination).toEqual({ page: 1, per_page: 50, total: 2, last_page: 1 });
    expect(res.json.data.map((a: { name: string }) => a.name)).toEqual(['booking_undelivered_30m', 'booking_undelivered_15m']);
    expect(res.json.data[0]).toMatchObject({
      severity: 'critical',
      integration: { id: failing.id, slug: failing.slug },
      detail: { booking_id: booking.id, external_booking_id: booking.external_booking_id },
    });
    expect(res.json.data[0].detail.event_age_seconds).toBeGreaterThanOrEqual(31 * 60);
  });

  it('tells ALERT_WEBHOOK_URL that the alerts started, signed', async () => {
    await pager.waitFor((rs) => rs.filter((r) => r.json?.status === 'firing').length >= 2, 20_000, 'both starts');
    const firing = pager.requests.filter((r) => r.json.status === 'firing');
    expect(firing.map((r) => r.json.name).sort()).toEqual(['booking_undelivered_15m', 'booking_undelivered_30m']);
    const key = Buffer.from(ALERT_SECRET.slice('whsec_'.length), 'base64');
    for (const r of firing) {
      expect(r.path).toBe('/doorloom-alerts');
      expect(r.json).toMatchObject({ integration: { id: failing.id, slug: failing.slug }, detail: { booking_id: booking.id } });
      const signed = `${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`;
      expect(r.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signed).digest('base64')}`);
    }
  });

  it('shows the integration first on the console, in red, with the booking and its age', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(`${server.url}/console`);
    await page.locator('#token').fill(STAFF_TOKEN);
    await page.locator('#signin button[type=submit]').click();
    const panel = page.locator('#escalations');
    await panel.waitFor();
    // the first thing on the page
    expect(await page.locator('#main > *').first().getAttribute('id')).toBe('escalations');
    const item = panel.locator(`li[data-integration="${failing.id}"]`);
    expect(await item.getAttribute('data-booking')).toBe(String(booking.id));
    expect(await item.textContent()).toContain(`#${booking.id}`);
    expect(await item.textContent()).toContain(booking.external_booking_id);
    expect(await item.locator('.booking-age').textContent()).toBe('31m');
    expect(await panel.evaluate((node) => getComputedStyle(node).color)).toBe('rgb(180, 35, 24)');
    expect(await panel.locator('li').count()).toBe(1);
    // and first among the integrations, marked late
    const first = page.locator('#integrations tbody tr').first();
    expect(await first.getAttribute('data-id')).toBe(String(failing.id));
    expect(await first.getAttribute('class')).toContain('late');
    expect(await first.locator('.badge').textContent()).toBe('Booking late');
    await page.context().close();
  });

  it('tells ALERT_WEBHOOK_URL that they ended once the booking is delivered, and the console clears', async () => {
    partnerFails = false;
    expect((await staff(`/integrations/${failing.id}/webhook/resume`, 'POST')).status).toBe(200);
    await eventually(async () => (await undelivered(failing.id)) === 0, 20_000, 'the booking delivered');
    expect((await staff('/alerts')).json.data).toEqual([]);
    await pager.waitFor((rs) => rs.filter((r) => r.json?.status === 'resolved').length >= 2, 20_000, 'both ends');
    const resolved = pager.requests.filter((r) => r.json.status === 'resolved').map((r) => r.json);
    expect(resolved.map((n) => n.name).sort()).toEqual(['booking_undelivered_15m', 'booking_undelivered_30m']);
    for (const n of resolved) {
      expect(n).toMatchObject({ integration: { id: failing.id }, detail: { booking_id: booking.id } });
      expect(Date.parse(n.ended_at)).toBeGreaterThan(Date.parse(n.since));
    }
    // each start and each end once
    expect(pager.requests.map((r) => `${r.json.name} ${r.json.status}`).sort()).toEqual([
      'booking_undelivered_15m firing',
      'booking_undelivered_15m resolved',
      'booking_undelivered_30m firing',
      'booking_undelivered_30m resolved',
    ]);

    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.url}/console`);
    await page.locator('#token').fill(STAFF_TOKEN);
    await page.locator('#signin button[type=submit]').click();
    await page.locator('#integrations tbody tr').first().waitFor();
    expect(await page.locator('#escalations').count()).toBe(0);
    await page.context().close();
  });
});
