import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { createVilla, lastSequence } from '../../test/bookings/fixtures.js';
import type { TestContext, TestIntegration } from '../../test/helpers/context.js';
import {
  addDays,
  closeService,
  differences,
  httpMirror,
  kolkataDate,
  openService,
  startCli,
  until,
  type Cli as BaseCli,
  type Service,
} from './sync-helpers.js';
import { freePort } from '../../scripts/lib.js';

const HORIZON = 60;
const READ_TOKEN = 'mirror-read-token-for-the-test-0123456789';

let ctx: TestContext;
let service: Service;

beforeAll(async () => {
  // The test polls GET /me beside the CLI's own calls; the request tiers are not what it tests.
  ({ ctx, service } = await openService({ RATE_LIMITS: 'off' }));
});
afterAll(() => closeService({ ctx, service }));

interface Cli extends BaseCli {
  url: string;
}

/** `doorloom-partner mirror …` under umask 000: the store's modes must not depend on it. */
function startMirrorCli(args: string[], port: number, env: Record<string, string> = {}): Cli {
  return { ...startCli(args, env, { umask: '000' }), url: `http://127.0.0.1:${port}` };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function status(cli: Cli): Promise<{ applied_through: number; last_event_at: string | null } | null> {
  try {
    const res = await fetch(`${cli.url}/mirror/status`, { headers: bearer(READ_TOKEN) });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

/** A request with a Host header of the test's choosing (fetch does not let one be set). */
function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
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
    const cli = startMirrorCli(['mirror', '--base-url', 'http://127.0.0.1:1', '--listen', 'nowhere'], 0);
    expect(await cli.exited).toBe(2);
    expect(cli.output().trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: /)]);
  });

  it('refuses to start without a read token (naming the variable and the file flag), with a too short secret or read token, or on a taken port', async () => {
    const env = { DOORLOOM_URL: 'http://127.0.0.1:1', DOORLOOM_API_KEY: 'dlk_x', DOORLOOM_WEBHOOK_SECRET: 'whsec_MDEyMzQ1Njc4OWFiY2RlZg==' };
    const cli = startMirrorCli(['mirror', '--listen', '127.0.0.1:0', '--store', path.join(os.tmpdir(), 'never-created')], 0, env);
    expect(await cli.exited).toBe(2);
    expect(cli.output().trim().split('\n')).toEqual([
      expect.stringMatching(/^configuration error: .*DOORLOOM_MIRROR_READ_TOKEN \(or --read-token-file PATH\)/),
    ]);
    // a secret as a flag (ps shows it) is refused, pointing to the variable
    for (const [flag, variable] of [
      ['--api-key', 'DOORLOOM_API_KEY'],
      ['--webhook-secret', 'DOORLOOM_WEBHOOK_SECRET'],
      ['--read-token', 'DOORLOOM_MIRROR_READ_TOKEN'],
    ]) {
      const flagged = startMirrorCli(
        ['mirror', '--listen', '127.0.0.1:0', '--store', path.join(os.tmpdir(), 'never-created'), flag, 'a-secret-value-long-enough-for-anything-0123'],
        0,
        { ...env, DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN },
      );
      expect(await flagged.exited, flag).toBe(2);
      expect(flagged.output().trim().split('\n'), flag).toEqual([
        `configuration error: ${flag} is refused: a flag shows in ps to every user of this machine; set ${variable}, or give ${flag}-file PATH (doorloom-partner mirror --help)`,
      ]);
    }
    const short = startMirrorCli(['mirror', '--listen', '127.0.0.1:0', '--store', path.join(os.tmpdir(), 'never-created')], 0, {
      ...env,
      DOORLOOM_MIRROR_READ_TOKEN: 'x'.repeat(31),
    });
    expect(await short.exited).toBe(2);
    expect(short.output().trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: .*the read token needs at least 32 characters/)]);

    // a secret too short to be a key, and a port already taken, are the operator's to fix too
    const weak = startMirrorCli(['mirror', '--listen', '127.0.0.1:0', '--store', path.join(os.tmpdir(), 'never-created')], 0, {
      ...env,
      DOORLOOM_WEBHOOK_SECRET: 'whsec_',
      DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN,
    });
    expect(await weak.exited).toBe(2);
    expect(weak.output()).toMatch(/^configuration error: DOORLOOM_WEBHOOK_SECRET \(or --webhook-secret-file PATH\)/);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-cli-'));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const busy = startMirrorCli(['mirror', '--listen', `127.0.0.1:${port}`, '--store', dir], port, { ...env, DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN });
      expect(await busy.exited).toBe(2);
      expect(busy.output().trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: cannot listen on .*EADDRINUSE/)]);
    } finally {
      taken.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('mirrors the service, survives kill -9 mid-stream on the same store, and exits 0 on SIGTERM', async () => {
    const integration = await ctx.createIntegration({ horizon_days: HORIZON });
    const port = await freePort();
    const parent = await mkdtemp(path.join(os.tmpdir(), 'doorloom-cli-'));
    const dir = path.join(parent, 'store', 'mirror'); // created by the CLI, under umask 000
    // the credentials from the environment, as the README runs it, and the API key from a file
    const env = { DOORLOOM_URL: service.baseUrl, DOORLOOM_WEBHOOK_SECRET: integration.webhookSecret, DOORLOOM_MIRROR_READ_TOKEN: READ_TOKEN };
    const keyFile = path.join(parent, 'api-key');
    await writeFile(keyFile, `${integration.apiKey}\n`, { mode: 0o600 });
    const args = ['mirror', '--api-key-file', keyFile, '--listen', `127.0.0.1:${port}`, '--store', dir, '--poll-ms', '500'];
    let cli = startMirrorCli(args, port, env);
    onTestFailed(() => console.error(cli.output()));
    try {
      await until(async () => (await status(cli)) !== null, 30_000, `the CLI to listen: ${cli.output()}`);
      expect((await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: `${cli.url}/webhooks` } })).statusCode).toBe(200);

      // a stream of events: killed while it is being applied
      const first = await createVilla(ctx, integration, 2, 'CLI-1');
      await createVilla(ctx, integration, 2, 'CLI-2');
      await until(async () => ((await status(cli))?.applied_through ?? 0) > 5, 30_000, 'some events applied');
      const writes = Promise.all([createVilla(ctx, integration, 2, 'CLI-3'), book(integration, 'CLI-1', 5), book(integration, 'CLI-2', 9)]);
      await new Promise((r) => setTimeout(r, 30));
      cli.child.kill('SIGKILL');
      expect(await cli.exited).toBe(-1);
      await writes;
      const before = await status({ ...cli, url: cli.url }); // nothing answers while it is down
      expect(before).toBeNull();
      await ctx.staff('PUT', `/properties/${first.id}/calendar`, {
        from: addDays(kolkataDate(ctx.deps.clock.now()), 2),
        to: addDays(kolkataDate(ctx.deps.clock.now()), 4),
        block_scope: 'everywhere',
      });

      cli = startMirrorCli(args, port, env);
      await until(
        async () => ((await status(cli))?.applied_through ?? -1) === (await lastSequence(ctx, integration.id)),
        60_000,
        `the restarted CLI to catch up: ${cli.output()}`,
      );
      await book(integration, 'CLI-3', 12);
      await until(async () => ((await status(cli))?.applied_through ?? -1) === (await lastSequence(ctx, integration.id)), 30_000, 'the last booking');
      const mirrorStatus = await status(cli);
      expect(mirrorStatus).toEqual({ applied_through: await lastSequence(ctx, integration.id), last_event_at: expect.stringMatching(/\+05:30$/) });
      expect(await differences(ctx, integration, httpMirror(cli.url, READ_TOKEN), HORIZON)).toEqual([]);

      // guest data only with the read token
      const bookings = await fetch(`${cli.url}/mirror/bookings`, { headers: bearer(READ_TOKEN) });
      expect(bookings.status).toBe(200);
      expect(JSON.stringify(await bookings.json())).toContain('CLI Guest');
      for (const headers of [{}, bearer(`${READ_TOKEN.slice(0, -1)}X`), bearer(''), { authorization: READ_TOKEN }, { authorization: `Basic ${READ_TOKEN}` }]) {
        const res = await fetch(`${cli.url}/mirror/bookings`, { headers });
        expect(res.status, JSON.stringify(headers)).toBe(401);
        const text = await res.text();
        expect(text).not.toContain('CLI Guest');
        expect(JSON.parse(text)).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
      }
      expect((await fetch(`${cli.url}/mirror/properties/${first.id}/rates?from=2026-01-01&to=2026-01-02`)).status).toBe(401);

      // another Host (DNS rebinding) gets nothing on any path, even with the token
      for (const [pathname, method] of [
        ['/mirror/bookings', 'GET'],
        ['/mirror/status', 'GET'],
        ['/webhooks', 'POST'],
        ['/elsewhere', 'GET'],
      ]) {
        const res = await request(
          `${cli.url}${pathname}`,
          method,
          { host: `rebound.example:${port}`, ...bearer(READ_TOKEN) },
          method === 'POST' ? '{}' : undefined,
        );
        expect(res.status, pathname).toBe(421);
        expect(res.body).not.toContain('CLI Guest');
        expect(JSON.parse(res.body)).toMatchObject({ success: false, code: 'HOST_NOT_ALLOWED' });
      }
      // the listen address and localhost, with or without the port, are served
      for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'localhost', `LOCALHOST:${port}`]) {
        expect((await request(`${cli.url}/mirror/status`, 'GET', { host, ...bearer(READ_TOKEN) })).status, host).toBe(200);
      }

      // read-only, with the contract's envelope for bad input
      expect((await fetch(`${cli.url}/mirror/properties`, { method: 'POST', headers: bearer(READ_TOKEN) })).status).toBe(405);
      const bad = await fetch(`${cli.url}/mirror/properties/${first.id}/rates?from=2026-13-01`, { headers: bearer(READ_TOKEN) });
      expect(bad.status).toBe(422);
      expect(await bad.json()).toMatchObject({ success: false, code: 'VALIDATION_FAILED', errors: { from: expect.any(Array), to: expect.any(Array) } });
      expect((await fetch(`${cli.url}/mirror/properties/999999/rates?from=2026-01-01&to=2026-01-02`, { headers: bearer(READ_TOKEN) })).status).toBe(404);

      // the store is private although the CLI ran under umask 000
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      const files = await readdir(dir);
      expect(files).toContain('journal.log');
      for (const file of files) expect((await stat(path.join(dir, file))).mode & 0o777, file).toBe(0o600);
      // an unsigned delivery is refused
      const forged = await fetch(`${cli.url}/webhooks`, {
        method: 'POST',
        body: JSON.stringify({ id: 'x', type: 'booking.changed', sequence: 999999, data: {} }),
      });
      expect(forged.status).toBe(401);

      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await rm(parent, { recursive: true, force: true });
    }
  });
});
