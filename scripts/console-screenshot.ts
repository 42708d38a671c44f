/**
 * Takes docs/console.png: a running service (embedded database in memory, test clock) with a
 * healthy and a failing integration whose webhooks reach real loopback receivers, signed in, in
 * Chromium (CHROMIUM_PATH, /usr/bin/chromium, or the one @sparticuz/chromium ships).
 * Run: npx tsx scripts/console-screenshot.ts [list|integration] [out.png]
 */
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ensureStaffToken } from '../src/modules/integrations/integrations.service.js';
import { createRuntime } from '../src/runtime.js';
import { launchBrowser, startConsoleWorld } from '../test/console/world.js';

const view = process.argv[2] ?? 'list';
const out = process.argv[3] ?? 'docs/console.png';
const staffToken = 'dls_ScreenshotStaffToken00000000000000000000';

const config = loadConfig({
  DATABASE_URL: 'memory:',
  STAFF_TOKEN: staffToken,
  TEST_CLOCK: '1',
  WEBHOOK_ALLOW_INSECURE: '1',
  WEBHOOK_ALLOW_PRIVATE: '1',
  LOG_LEVEL: 'silent',
});
const { deps, database } = await createRuntime(config, pino({ level: 'silent' }));
await ensureStaffToken(deps);
const app = await buildApp(deps);
const world = await startConsoleWorld({ app, deps, staffToken, close: async () => (await app.close(), await database.close()) });
const browser = await launchBrowser();
try {
  await world.receiver.waitFor((rs) => rs.some((r) => r.integration === world.failing.slug), 15_000, 'a failed delivery');
  await world.advanceClock(60); // a second failure, and a backlog that has aged
  await new Promise((r) => setTimeout(r, 1500));
  const page = await browser.newPage({ viewport: { width: 1360, height: view === 'list' ? 400 : 1400 } });
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`${world.base}/console`);
  await page.locator('#token').fill(staffToken);
  await page.locator('#signin button[type=submit]').click();
  await page.locator('#integrations tbody tr').first().waitFor();
  if (view !== 'list') {
    await page.locator(`#integrations tbody tr[data-slug="${world.failing.slug}"]`).click();
    await page.locator('#attempts').waitFor();
    await new Promise((r) => setTimeout(r, 500));
  }
  await page.screenshot({ path: out, fullPage: view !== 'list' });
  console.log(`written ${out}`);
} finally {
  await browser.close();
  await world.close();
}
