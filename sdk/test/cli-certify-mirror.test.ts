import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import { createVilla, lastSequence } from '../../test/bookings/fixtures.js';
import type { TestContext } from '../../test/helpers/context.js';
import { closeService, openService, startCli, until, type Service } from './sync-helpers.js';
import { freePort } from '../../scripts/lib.js';

/** The mirror's read API may ask for a token; both processes get the same one. */
const READ_TOKEN = 'certify-read-token-0123456789abcdef';

let ctx: TestContext;
let service: Service;

beforeAll(async () => {
  ({ ctx, service } = await openService({ RATE_LIMITS: 'off' }));
});
afterAll(() => closeService({ ctx, service }));

async function appliedThrough(url: string): Promise<number | null> {
  try {
    const res = await fetch(`${url}/mirror/status`, { headers: { Authorization: `Bearer ${READ_TOKEN}` } });
    return res.ok ? ((await res.json()) as { applied_through: number }).applied_through : null;
  } catch {
    return null;
  }
}

it("the SDK's own mirror (the real CLI, in sync with a real service) passes every certify check, and stays in sync after", async () => {
  const integration = await ctx.createIntegration({ horizon_days: 40 });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-certify-'));
  const mirror = startCli(['mirror', '--base-url', service.baseUrl, '--listen', `127.0.0.1:${port}`, '--store', dir, '--poll-ms', '500'], {
    DOORLOOM_API_KEY: integration.apiKey,
    DOORLOOM_WEBHOOK_SECRET: integration.webhookSecret,
    DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN,
  });
  onTestFailed(() => console.error(mirror.output()));
  try {
    await until(async () => (await appliedThrough(url)) !== null, 30_000, `the mirror to listen: ${mirror.output()}`);
    expect((await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: `${url}/webhooks` } })).statusCode).toBe(200);
    await createVilla(ctx, integration, 1, 'CERT-1');
    await until(async () => (await appliedThrough(url)) === (await lastSequence(ctx, integration.id)), 60_000, 'the mirror to catch up');

    const certify = startCli(['certify', '--receiver', `${url}/webhooks`, '--webhook-secret', integration.webhookSecret, '--state-url', url, '--json'], {
      DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN,
    });
    expect(await certify.exited).toBe(0);
    const report = JSON.parse(certify.stdout()) as { passed: boolean; checks: Array<{ name: string; passed: boolean }> };
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c) => c.name)).toContain('sequence-rule');
    expect(report.checks).toHaveLength(15);

    // the fictional events did not get in the way of the real ones
    await createVilla(ctx, integration, 1, 'CERT-2');
    await until(
      async () => (await appliedThrough(url)) === (await lastSequence(ctx, integration.id)),
      60_000,
      `the mirror to apply the next real events: ${mirror.output()}`,
    );
  } finally {
    mirror.child.kill('SIGKILL');
    await mirror.exited;
    await rm(dir, { recursive: true, force: true });
  }
});
