import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, STAFF_TOKEN } from '../helpers/context.js';
import { deliveryRows, eventually } from '../webhooks/helpers.js';
import { HOSTILE_ANSWER, launchBrowser, startConsoleWorld, type ConsoleWorld } from './world.js';

/** Drives the failing integration into `paused` the way production does: five failures, six hours. */
async function pauseByFailures(world: ConsoleWorld): Promise<void> {
  const { failing } = world;
  const state = () =>
    world.deps.db
      .selectFrom('integrations as i')
      .innerJoin('webhook_delivery_state as s', 's.integration_id', 'i.id')
      .select(['i.status', 's.consecutive_failures'])
      .where('i.id', '=', failing.id)
      .executeTakeFirstOrThrow();
  // each failure is waited for in the database: the clock moves only once its retry is scheduled
  const failures = (n: number) => eventually(async () => (await state()).consecutive_failures >= n, 15_000, `failure ${n} recorded`);
  await failures(1);
  for (const [step, n] of [
    [60, 2],
    [300, 3],
    [900, 4],
    [1800, 5],
  ] as const) {
    await world.advanceClock(step);
    await failures(n);
  }
  await world.advanceClock(6 * 3600);
  await eventually(async () => (await state()).status === 'paused', 15_000, 'the failing integration paused');
}

describe('operator console in Chromium', () => {
  let world: ConsoleWorld;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    const ctx = await createTestContext();
    world = await startConsoleWorld({ app: ctx.app, deps: ctx.deps, staffToken: STAFF_TOKEN, close: () => ctx.close() });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.base });
    page = await context.newPage();
    page.on('request', (r: Request) => requests.push(r.url()));
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    page.on('pageerror', (e) => consoleErrors.push(String(e)));
    await world.receiver.waitFor((rs) => rs.some((r) => r.integration === world.healthy.slug), 15_000, 'a healthy delivery');
    await pauseByFailures(world);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('serves the console under a strict Content-Security-Policy', async () => {
    const res = await fetch(`${world.base}/console`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toContain('style=');
    expect((await fetch(`${world.base}/console/../package.json`)).status).toBe(404);
    expect((await fetch(`${world.base}/console/nothing.js`)).status).toBe(404);
  });

  it('signs in with a staff token kept in sessionStorage, never in the URL', async () => {
    await page.goto(`${world.base}/console`);
    await page.locator('#token').fill('dls_not-a-real-token');
    await page.locator('#signin button[type=submit]').click();
    await expect.poll(() => page.locator('#signin-problem').textContent()).toContain('not a staff token');

    await page.locator('#token').fill(STAFF_TOKEN);
    await page.locator('#signin button[type=submit]').click();
    await page.locator('#integrations tbody tr').first().waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('doorloom.staffToken'))).toBe(STAFF_TOKEN);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(page.url()).not.toContain(STAFF_TOKEN);
    expect(requests.every((u) => !u.includes(STAFF_TOKEN))).toBe(true);
  });

  it('lists the paused, failing integration before the healthy one', async () => {
    const slugs = await page.locator('#integrations tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.slug));
    expect(slugs).toEqual([world.failing.slug, world.healthy.slug]);
    const first = page.locator('#integrations tbody tr').first();
    expect(await first.locator('td').nth(0).textContent()).toBe('Paused');
    // a partner's name is text, not markup
    expect(await first.locator('td').nth(1).textContent()).toContain('Broken Channel <b>');
    expect(await page.locator('#integrations tbody b').count()).toBe(0);

    // sortable: by name ascending puts Acme first, clicking again reverses
    await page.locator('#integrations th button', { hasText: 'Integration' }).click();
    expect(await page.locator('#integrations tbody tr').first().getAttribute('data-slug')).toBe(world.healthy.slug);
    await page.locator('#integrations th button', { hasText: 'Integration' }).click();
    expect(await page.locator('#integrations tbody tr').first().getAttribute('data-slug')).toBe(world.failing.slug);
    await page.locator('#integrations th button', { hasText: 'Health' }).click();
    expect(await page.locator('#integrations tbody tr').first().getAttribute('data-slug')).toBe(world.failing.slug);
  });

  it("shows the failing integration's attempts, its receiver's answer as text only", async () => {
    await page.locator(`#integrations tbody tr[data-slug="${world.failing.slug}"]`).click();
    await page.locator('#attempts table').waitFor();
    const rows = page.locator('#attempts tbody tr');
    expect(await rows.count()).toBe(world.receiver.of(world.failing.slug).length);
    const first = rows.first();
    expect(await first.locator('td').nth(3).textContent()).toContain('500');
    expect(await first.locator('pre.answer').textContent()).toBe(HOSTILE_ANSWER);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // the only script elements are the console's own module
    expect(await page.locator('script').evaluateAll((s) => s.map((e) => (e as HTMLScriptElement).src))).toEqual([`${world.base}/console/app.js`]);
    expect(await page.locator('#config [data-field="Status"]').textContent()).toBe('paused');
    expect(await page.locator('#chart-deliveries canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#chart-backlog canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#events tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('#properties tbody tr').first().textContent()).toContain('Hill View Cottage');
  });

  it('resumes delivery after a confirmation, and says so', async () => {
    world.setFailing(false);
    // a cancelled confirmation changes nothing
    await page.locator('#resume').click();
    await page.locator('#dialog-cancel').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('cancelled');
    expect((await world.deps.db.selectFrom('integrations').select('status').where('id', '=', world.failing.id).executeTakeFirstOrThrow()).status).toBe(
      'paused',
    );

    await page.locator('#resume').click();
    expect(await page.locator('#dialog-title').textContent()).toBe('Resume delivery');
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Webhook delivery resumed.');
    await expect.poll(() => page.locator('#config [data-field="Status"]').textContent()).toBe('active');
    // the backlog drains to the receiver, now answering 200
    await eventually(
      async () => {
        return (await deliveryRows(world.deps.db, world.failing.id, 'pending')).length === 0;
      },
      15_000,
      'the backlog delivered',
    );
  });

  it('rotates the API key and the webhook secret after a confirmation, each shown once with a copy button', async () => {
    const oldKey = world.failing.apiKey;
    expect((await world.api(oldKey, 'GET', '/me')).statusCode).toBe(200);
    await page.locator('#rotate-key').click();
    await page.locator('#dialog-ok').click();
    const secret = page.locator('[data-testid=secret]');
    await secret.waitFor();
    const newKey = (await secret.textContent())!;
    expect(newKey).toMatch(/^dlk_[A-Za-z0-9]{40}$/);
    await page.locator('[data-testid=copy]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(newKey);
    await page.locator('#dialog-cancel').click(); // Done
    await expect.poll(() => page.locator('#notice').textContent()).toContain('API key rotated.');
    await expect.poll(() => page.locator('[data-testid=secret]').count()).toBe(0); // gone once closed
    expect((await world.api(oldKey, 'GET', '/me')).statusCode).toBe(401);
    expect((await world.api(newKey, 'GET', '/me')).statusCode).toBe(200);

    // the webhook secret the same way; the next delivery is signed with it
    await page.locator('#rotate-secret').click();
    await page.locator('#dialog-ok').click();
    await page.locator('[data-testid=secret]').waitFor();
    const newSecret = (await page.locator('[data-testid=secret]').textContent())!;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await page.locator('#dialog-cancel').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Webhook secret rotated.');
    const row = await world.deps.db.selectFrom('integrations').select('webhook_secret_enc').where('id', '=', world.failing.id).executeTakeFirstOrThrow();
    expect(world.deps.secrets.decrypt(row.webhook_secret_enc, world.failing.id)).toBe(newSecret);
  });

  it('edits the webhook, disables and enables, each confirmed and reported', async () => {
    await page.locator('#edit-webhook').click();
    await page.locator('#webhook-timeout').fill('7');
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('deadline 7 s');
    await expect.poll(() => page.locator('#config [data-field="Response deadline"]').textContent()).toBe('7 s');

    await page.locator('#edit-webhook').click();
    await page.locator('#webhook-url').fill('ftp://nowhere');
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Edit webhook failed');

    await page.locator('#disable').click();
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#config [data-field="Status"]').textContent()).toBe('disabled');
    await page.locator('#enable').click();
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#config [data-field="Status"]').textContent()).toBe('active');
  });

  it('shows whether the brand is a sandbox and switches it, confirmed and reported', async () => {
    const brandOf = () => world.deps.db.selectFrom('brands').select('sandbox').where('id', '=', world.failing.brandId).executeTakeFirstOrThrow();
    await expect.poll(() => page.locator('#config [data-field="Sandbox brand"]').textContent()).toBe('no');
    await page.locator('#toggle-sandbox').click();
    await page.locator('#dialog-cancel').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('cancelled, nothing changed');
    expect((await brandOf()).sandbox).toBe(false);
    await page.locator('#toggle-sandbox').click();
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#notice').textContent()).toContain('Brand updated.');
    await expect.poll(() => page.locator('#config [data-field="Sandbox brand"]').textContent()).toContain('yes');
    expect((await brandOf()).sandbox).toBe(true);
    expect(await page.locator('#toggle-sandbox').textContent()).toBe('End sandbox');
    await page.locator('#toggle-sandbox').click();
    await page.locator('#dialog-ok').click();
    await expect.poll(() => page.locator('#config [data-field="Sandbox brand"]').textContent()).toBe('no');
    expect((await brandOf()).sandbox).toBe(false);
  });

  it('made no request outside the service and logged no script error', () => {
    expect(requests.length).toBeGreaterThan(5);
    for (const url of requests) expect(url.startsWith(`${world.base}/`), url).toBe(true);
    expect(consoleErrors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });
});
