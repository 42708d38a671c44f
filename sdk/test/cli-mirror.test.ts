import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestIntegration } from '../../test/helpers/context.js';
import { addDays, differences, httpMirror, kolkataDate, startService, until, type Service } from './sync-helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HORIZON = 60;

let ctx: TestContext;
let service: Service;

beforeAll(async () => {
  // The test polls GET /me beside the CLI's own calls; the request tiers are not what it tests.
  ctx = await createTestContext({ RATE_LIMITS: 'off' });
  service = await startService(ctx);
});
afterAll(async () => {
  await service.stop();
  await ctx.close();
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Cli {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
  output(): string;
}

/** `doorloom-partner mirror …` run from source through tsx's loader (the signal reaches the CLI itself). */
function startCli(args: string[], port: number): Cli {
  const child = spawn(process.execPath, ['--import', 'tsx', 'sdk/src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { child, url: `http://127.0.0.1:${port}`, exited, output: () => output };
}

async function status(cli: Cli): Promise<{ applied_through: number; last_event_at: string | null } | null> {
  try {
    const res = await fetch(`${cli.url}/mirror/status`);
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

const lastSequence = async (integration: TestIntegration) => (await ctx.api(integration.apiKey, 'GET', '/me')).json().data.webhook.last_sequence as number;

async function createProperty(integration: TestIntegration, externalId: string) {
  const res = await ctx.api(
    integration.apiKey,
    'POST',
    '/properties',
    {
      external_id: externalId,
      name: `CLI Villa ${externalId}`,
      description: 'For the CLI test.',
      address: { address_line_1: '1 CLI Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: 2, washrooms: 1 },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: [{ name: 'Room 1', external_id: `${externalId}-U1` }, { name: 'Room 2', external_id: `${externalId}-U2` }],
    },
    { 'idempotency-key': `cli-${externalId}` },
  );
  if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
  return res.json().data as { doorloom_id: number };
}

async function book(integration: TestIntegration, externalId: string, offset: number) {
  const today = kolkataDate(ctx.deps.clock.now());
  const res = await ctx.api(
    integration.apiKey,
    'POST',
    '/bookings',
    {
      external_booking_id: `CLI-${externalId}-${offset}`,
      property: { external_id: externalId },
      units: [{ adults: 2 }],
      check_in: addDays(today, offset),
      check_out: addDays(today, offset + 2),
      guest: { name: 'CLI Guest' },
      pricing: { total: 10000, currency: 'INR' },
      source: { channel: 'direct' },
    },
    { 'idempotency-key': `cli-booking-${externalId}-${offset}` },
  );
  if (res.statusCode !== 201) throw new Error(`book: ${res.statusCode} ${res.body}`);
  return res.json().data as { id: number };
}

describe('doorloom-partner mirror', () => {
  it('refuses a bad configuration with one line and exit code 2', async () => {
    const cli = startCli(['mirror', '--base-url', 'http://127.0.0.1:1', '--listen', 'nowhere'], 0);
    expect(await cli.exited).toBe(2);
    expect(cli.output().trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: /)]);
  });

  it('mirrors the service, survives kill -9 mid-stream on the same store, and exits 0 on SIGTERM', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const port = await freePort();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-cli-'));
    const args = [
      'mirror',
      '--base-url', service.baseUrl,
      '--api-key', integration.apiKey,
      '--webhook-secret', integration.webhookSecret,
      '--listen', `127.0.0.1:${port}`,
      '--store', dir,
      '--poll-ms', '500',
    ];
    let cli = startCli(args, port);
    try {
      await until(async () => (await status(cli)) !== null, 30_000, `the CLI to listen: ${cli.output()}`);
      expect((await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: `${cli.url}/webhooks` } })).statusCode).toBe(200);

      // a stream of events: killed while it is being applied
      const first = await createProperty(integration, 'CLI-1');
      await createProperty(integration, 'CLI-2');
      await until(async () => ((await status(cli))?.applied_through ?? 0) > 5, 30_000, 'some events applied');
      const writes = Promise.all([createProperty(integration, 'CLI-3'), book(integration, 'CLI-1', 5), book(integration, 'CLI-2', 9)]);
      await new Promise((r) => setTimeout(r, 30));
      cli.child.kill('SIGKILL');
      expect(await cli.exited).toBe(-1);
      await writes;
      const before = await status({ ...cli, url: cli.url }); // nothing answers while it is down
      expect(before).toBeNull();
      await ctx.staff('PUT', `/properties/${first.doorloom_id}/calendar`, { from: addDays(kolkataDate(ctx.deps.clock.now()), 2), to: addDays(kolkataDate(ctx.deps.clock.now()), 4), block_scope: 'everywhere' });

      cli = startCli(args, port);
      await until(async () => ((await status(cli))?.applied_through ?? -1) === (await lastSequence(integration)), 60_000, `the restarted CLI to catch up: ${cli.output()}`);
      await book(integration, 'CLI-3', 12);
      await until(async () => ((await status(cli))?.applied_through ?? -1) === (await lastSequence(integration)), 30_000, 'the last booking');
      const mirrorStatus = await status(cli);
      expect(mirrorStatus).toEqual({ applied_through: await lastSequence(integration), last_event_at: expect.stringMatching(/\+05:30$/) });
      expect(await differences(ctx, integration, httpMirror(cli.url), HORIZON)).toEqual([]);

      // read-only, with the contract's envelope for bad input
      expect((await fetch(`${cli.url}/mirror/properties`, { method: 'POST' })).status).toBe(405);
      const bad = await fetch(`${cli.url}/mirror/properties/${first.doorloom_id}/rates?from=2026-13-01`);
      expect(bad.status).toBe(422);
      expect(await bad.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED', errors: { from: expect.any(Array), to: expect.any(Array) } });
      expect((await fetch(`${cli.url}/mirror/properties/999999/rates?from=2026-01-01&to=2026-01-02`)).status).toBe(404);
      // an unsigned delivery is refused
      const forged = await fetch(`${cli.url}/webhooks`, { method: 'POST', body: JSON.stringify({ id: 'x', type: 'booking.changed', sequence: 999999, data: {} }) });
      expect(forged.status).toBe(401);

      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    } catch (error) {
      console.error(cli.output());
      throw error;
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
