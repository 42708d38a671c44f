import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, vi } from 'vitest';
import { book, createVilla, day, lastSequence } from '../../test/bookings/fixtures.js';
import type { TestContext, TestIntegration } from '../../test/helpers/context.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../../test/helpers/receiver.js';
import { createWebhookVerifier } from '../src/webhooks.js';
import { closeService, openService, startCli, until, type Service } from './sync-helpers.js';

/** How long the CLI stays stopped (SIGSTOP) while events are recorded. */
const STOPPED_MS = 20_000;

let ctx: TestContext;
let service: Service;

beforeAll(async () => {
  ({ ctx, service } = await openService());
});
afterAll(() => closeService({ ctx, service }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every way a partner may verify a delivery: the SDK (each scheme), standardwebhooks, Stripe. */
function verdicts(secret: string, request: ReceivedRequest): string[] {
  const failed: string[] = [];
  for (const scheme of ['service', 'standard'] as const) {
    if (!createWebhookVerifier({ secrets: secret, scheme }).accepts(request.body, request.headers)) failed.push(`sdk ${scheme}`);
  }
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  } catch (error) {
    failed.push(`standardwebhooks: ${(error as Error).message}`);
  }
  try {
    new Stripe('sk_test_not_used').webhooks.constructEvent(request.body, String(request.headers['x-service-signature']), secret);
  } catch (error) {
    failed.push(`stripe: ${(error as Error).message}`);
  }
  return failed;
}

describe('doorloom-partner listen', () => {
  it('refuses a bad configuration with one line and exit code 2', async () => {
    const env = { DOORLOOM_URL: 'http://127.0.0.1:1', DOORLOOM_API_KEY: 'dlk_x', DOORLOOM_WEBHOOK_SECRET: `whsec_${'A'.repeat(32)}` };
    for (const args of [
      [],
      ['--forward-to', 'ftp://127.0.0.1/x'],
      ['--forward-to', 'http://127.0.0.1:9/x', '--from-sequence', '-3'],
      ['--forward-to', 'http://127.0.0.1:9/x', '--from-sequence=1.5'],
    ]) {
      const cli = startCli(['listen', ...args], env);
      expect(await cli.exited, args.join(' ')).toBe(2);
      expect(cli.output().trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^configuration error: /)]);
    }
    const weak = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x'], { ...env, DOORLOOM_WEBHOOK_SECRET: 'whsec_' });
    expect(await weak.exited).toBe(2);
    expect(weak.output()).toMatch(/^configuration error: DOORLOOM_WEBHOOK_SECRET \(or --webhook-secret-file PATH\)/);
  });

  it('refuses a secret given as a flag, pointing to the variable, and reads it from a file instead', async () => {
    const env = { DOORLOOM_URL: 'http://127.0.0.1:1', DOORLOOM_API_KEY: 'dlk_x', DOORLOOM_WEBHOOK_SECRET: `whsec_${'A'.repeat(32)}` };
    for (const [flag, variable] of [
      ['--api-key', 'DOORLOOM_API_KEY'],
      ['--webhook-secret', 'DOORLOOM_WEBHOOK_SECRET'],
    ]) {
      const cli = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x', flag, `whsec_${'B'.repeat(32)}`], env);
      expect(await cli.exited, flag).toBe(2);
      expect(cli.output().trim().split('\n'), flag).toEqual([
        `configuration error: ${flag} is refused: a flag shows in ps to every user of this machine; set ${variable}, or give ${flag}-file PATH (doorloom-partner listen --help)`,
      ]);
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-listen-'));
    try {
      // from files, without the variables: a bad key in the file is the service's to refuse (exit 2 after its 401)
      const integration = await ctx.createIntegration({ horizon_days: 30 });
      await writeFile(path.join(dir, 'key'), 'dlk_not-a-key\n', { mode: 0o600 });
      await writeFile(path.join(dir, 'secret'), `${integration.webhookSecret}\n`, { mode: 0o600 });
      const files = [
        '--api-key-file',
        path.join(dir, 'key'),
        '--webhook-secret-file',
        path.join(dir, 'secret'),
        '--cursor-file',
        path.join(dir, 'cursor.json'),
      ];
      const refused = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x', '--base-url', service.baseUrl, ...files]);
      expect(await refused.exited).toBe(2);
      expect(refused.output()).toMatch(/the service refused the credentials/);
      await writeFile(path.join(dir, 'key'), `${integration.apiKey}\n`);
      const accepted = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x', '--base-url', service.baseUrl, ...files]);
      try {
        await until(() => accepted.output().includes(`listening as ${integration.slug}`), 30_000, `the CLI to start: ${accepted.output()}`);
      } finally {
        accepted.child.kill('SIGTERM');
        expect(await accepted.exited).toBe(0);
      }
      const missing = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x', '--api-key-file', path.join(dir, 'nope')], env);
      expect(await missing.exited).toBe(2);
      expect(missing.output()).toMatch(/^configuration error: --api-key-file: cannot read .*nope/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a plain http base URL to another machine (it would sign whatever that answers); loopback is accepted', async () => {
    const secrets = { DOORLOOM_API_KEY: 'dlk_x', DOORLOOM_WEBHOOK_SECRET: `whsec_${'A'.repeat(32)}` };
    for (const url of ['http://api.doorloom.example', 'http://10.0.0.5:8080', 'http://[fd00::1]:8080', 'http://127.0.0.1.nip.io']) {
      const cli = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x'], { ...secrets, DOORLOOM_URL: url });
      expect(await cli.exited, url).toBe(2);
      expect(cli.output().trim().split('\n'), url).toEqual([expect.stringMatching(/^configuration error: --base-url .* is plain http to another machine/)]);
    }
    // an https URL and the loopback names pass the check (and then fail to connect, retrying: stopped with SIGTERM)
    for (const url of ['https://127.0.0.1:1', 'http://localhost:1', 'http://127.0.0.2:1', 'http://[::1]:1']) {
      const cli = startCli(['listen', '--forward-to', 'http://127.0.0.1:9/x'], { ...secrets, DOORLOOM_URL: url });
      await until(() => /reading the service failed/.test(cli.output()), 30_000, `${url}: a failed read: ${cli.output()}`);
      cli.child.kill('SIGTERM');
      expect(await cli.exited, url).toBe(0);
    }
  });

  it('forwards every event in order, signed as the service signs, across SIGSTOP, kill -9 and a failing receiver', async () => {
    const integration: TestIntegration = await ctx.createIntegration({ horizon_days: 60 });
    const secret = integration.webhookSecret;
    const bad: string[] = [];
    let failNext = 0;
    let delayMs = 0;
    const cursorDuringFailures: number[] = [];
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-listen-'));
    const cursorFile = path.join(dir, 'cursor.json');
    const cursorNow = async () => (JSON.parse(await readFile(cursorFile, 'utf8')) as { after_sequence: number }).after_sequence;
    const receiver: Receiver = await startReceiver(async (request) => {
      if (request.path !== '/listen') return { status: 200 };
      const failed = verdicts(secret, request);
      if (failed.length > 0) {
        bad.push(`${request.json?.sequence}: ${failed.join('; ')}`);
        return { status: 401 };
      }
      if (failNext > 0) {
        failNext--;
        cursorDuringFailures.push(await cursorNow());
        return { status: 500 };
      }
      return { status: 200, delayMs };
    });
    // the service's own deliveries, to compare headers with
    expect((await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: `${receiver.url}/service` } })).statusCode).toBe(200);
    const forwarded = () => receiver.requests.filter((r) => r.path === '/listen');
    const arrived = async (through: number) => {
      await until(() => forwarded().some((r) => r.json?.sequence === through), 60_000, `sequence ${through} to be forwarded: ${cli.output()}`);
    };

    // events before the first run are not forwarded: it starts at the integration's last sequence
    const villa = await createVilla(ctx, integration, 2);
    const start = await lastSequence(ctx, integration.id);
    expect(start).toBeGreaterThan(0);
    const env = { DOORLOOM_URL: service.baseUrl, DOORLOOM_API_KEY: integration.apiKey, DOORLOOM_WEBHOOK_SECRET: secret };
    const args = ['listen', '--forward-to', `${receiver.url}/listen`, '--cursor-file', cursorFile];
    let cli = startCli(args, env);
    onTestFailed(() => console.error(cli.output()));
    try {
      await until(async () => (await stat(cursorFile).catch(() => null)) !== null, 30_000, `the cursor file: ${cli.output()}`);
      expect(await cursorNow()).toBe(start);
      expect((await stat(cursorFile)).mode & 0o777).toBe(0o600);

      await book(ctx, integration, villa, dates(5));
      await arrived(await lastSequence(ctx, integration.id));

      // stopped (a laptop asleep) while events are recorded: all of them arrive after SIGCONT
      cli.child.kill('SIGSTOP');
      const second = await createVilla(ctx, integration, 3);
      await book(ctx, integration, second, dates(8));
      const beforeStop = forwarded().length;
      await sleep(STOPPED_MS);
      expect(forwarded().length).toBe(beforeStop);
      cli.child.kill('SIGCONT');
      await arrived(await lastSequence(ctx, integration.id));

      // a receiver that fails: the same event again after a backoff, the cursor still before it
      failNext = 3;
      const failing = (await lastSequence(ctx, integration.id)) + 1;
      await book(ctx, integration, villa, dates(15));
      await arrived(await lastSequence(ctx, integration.id));
      expect(forwarded().filter((r) => r.json?.sequence === failing)).toHaveLength(4);
      expect(cursorDuringFailures).toEqual([failing - 1, failing - 1, failing - 1]);
      expect(
        cli
          .output()
          .split('\n')
          .filter((l) => l.includes(`sequence=${failing} `))
          .map((l) => / status=(\d+) ms=\d+$/.exec(l)?.[1]),
      ).toEqual(['500', '500', '500', '200']);

      // killed with -9 mid-stream and restarted: nothing lost (the file's cursor wins over --from-sequence)
      delayMs = 150;
      const killedAt = forwarded().length;
      await createVilla(ctx, integration, 2);
      await until(() => forwarded().length >= killedAt + 2, 60_000, 'the stream to start');
      cli.child.kill('SIGKILL');
      expect(await cli.exited).toBe(-1);
      delayMs = 0;
      await book(ctx, integration, second, dates(20));
      const last = await lastSequence(ctx, integration.id);
      expect(forwarded().some((r) => r.json?.sequence === last)).toBe(false);
      cli = startCli([...args, '--from-sequence', '0'], env);
      await arrived(last);

      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      expect(await cursorNow()).toBe(last);

      // every delivery verified with each library; in order; each event of (start, last] at least once
      expect(bad).toEqual([]);
      const sequences = forwarded().map((r) => r.json.sequence as number);
      for (let i = 1; i < sequences.length; i++)
        expect(sequences[i], sequences.slice(Math.max(0, i - 3), i + 2).join(',')).toBeGreaterThanOrEqual(sequences[i - 1]);
      const expected = Array.from({ length: last - start }, (_, i) => start + 1 + i);
      expect([...new Set(sequences)]).toEqual(expected);

      // byte for byte the stored envelope, with the headers of the service's own delivery of it
      const stored = new Map(
        (await ctx.deps.db.selectFrom('events').select(['sequence', 'body']).where('integration_id', '=', integration.id).execute()).map((r) => [
          r.sequence,
          r.body,
        ]),
      );
      await receiver.waitFor((all) => all.filter((r) => r.path === '/service' && r.json?.sequence === last).length > 0, 60_000, 'the service to deliver');
      const own = new Map(receiver.requests.filter((r) => r.path === '/service').map((r) => [r.json.sequence as number, r]));
      const names = (r: ReceivedRequest) => Object.keys(r.headers).sort();
      for (const request of forwarded()) {
        const sequence = request.json.sequence as number;
        expect(request.body, `sequence ${sequence}`).toBe(stored.get(sequence));
        const theirs = own.get(sequence)!;
        expect(request.body).toBe(theirs.body);
        expect(names(request)).toEqual(names(theirs));
        for (const header of ['content-type', 'accept', 'user-agent', 'x-service-integration', 'x-service-event-id', 'webhook-id']) {
          expect(request.headers[header], header).toBe(theirs.headers[header]);
        }
      }
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('loses nothing while the service cannot be reached (network drop, service restart)', async () => {
    const integration = await ctx.createIntegration({ horizon_days: 30 });
    const receiver = await startReceiver();
    const link = await relay(service.baseUrl);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-listen-'));
    const env = { DOORLOOM_URL: link.url, DOORLOOM_API_KEY: integration.apiKey, DOORLOOM_WEBHOOK_SECRET: integration.webhookSecret };
    const cli = startCli(['listen', '--forward-to', `${receiver.url}/listen`, '--cursor-file', path.join(dir, 'cursor.json')], env);
    onTestFailed(() => console.error(cli.output()));
    try {
      await until(() => cli.output().includes('listening as'), 30_000, `the CLI to start: ${cli.output()}`);
      const start = await lastSequence(ctx, integration.id);
      await link.cut();
      const villa = await createVilla(ctx, integration, 2);
      await book(ctx, integration, villa, dates(3));
      const last = await lastSequence(ctx, integration.id);
      await until(() => /reading the service failed/.test(cli.output()), 30_000, `a failed read: ${cli.output()}`);
      expect(receiver.requests).toHaveLength(0);
      await link.open();
      await receiver.waitFor((all) => all.some((r) => r.json?.sequence === last), 60_000, 'the events after the drop');
      const sequences = [...new Set(receiver.requests.map((r) => r.json.sequence as number))];
      expect(sequences).toEqual(Array.from({ length: last - start }, (_, i) => start + 1 + i));
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await link.cut().catch(() => {});
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('waits out a 429 on GET /events for its Retry-After, then forwards what was recorded meanwhile', async () => {
    const integration = await ctx.createIntegration({ horizon_days: 30 });
    const receiver = await startReceiver();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-listen-'));
    const env = { DOORLOOM_URL: service.baseUrl, DOORLOOM_API_KEY: integration.apiKey, DOORLOOM_WEBHOOK_SECRET: integration.webhookSecret };
    const cli = startCli(['listen', '--forward-to', `${receiver.url}/listen`, '--cursor-file', path.join(dir, 'cursor.json')], env);
    onTestFailed(() => console.error(cli.output()));
    try {
      await until(() => cli.output().includes('listening as'), 30_000, `the CLI to start: ${cli.output()}`);
      // The service (in this process) reads a stopped clock: its minute window ends only when the
      // test moves the clock, not while the CLI is slow to poll on a loaded machine.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      const intoWindow = (ctx.deps.clock.nowMs() / 1000) % 60;
      await ctx.advanceClock(Math.ceil(57 - intoWindow + 60) % 60 || 60);
      let retryAfter = 0;
      for (let i = 0; i < 130 && retryAfter === 0; i++) {
        const res = await ctx.api(integration.apiKey, 'GET', '/events?after_sequence=0&limit=1');
        if (res.statusCode === 429) retryAfter = Number(res.headers['retry-after']);
      }
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(4);
      await createVilla(ctx, integration, 1);
      const last = await lastSequence(ctx, integration.id);
      await until(() => /429 RATE_LIMITED, retrying in \d+ ms/.test(cli.output()), 30_000, `a 429: ${cli.output()}`);
      expect(receiver.requests).toHaveLength(0);
      // the window ends: the CLI's next read, after its wait, is answered
      await ctx.advanceClock(retryAfter);
      await receiver.waitFor((all) => all.some((r) => r.json?.sequence === last), 60_000, 'the events after the window');
      // each wait is the Retry-After the service gave (on the stopped clock, the same every time), not a tight loop
      const waits = [...cli.output().matchAll(/429 RATE_LIMITED, retrying in (\d+) ms/g)].map((m) => Number(m[1]));
      expect(waits.length).toBeGreaterThan(0);
      expect(waits).toEqual(waits.map(() => retryAfter * 1000));
      cli.child.kill('SIGINT');
      expect(await cli.exited).toBe(0);
    } finally {
      vi.useRealTimers();
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A TCP relay to the service that can be cut (every connection dropped, the port closed) and opened again on the same port. */
async function relay(target: string): Promise<{ url: string; cut(): Promise<void>; open(): Promise<void> }> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(targetPort), hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await open();
  return {
    url: `http://127.0.0.1:${port}`,
    open,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server!.close(() => resolve());
      }),
  };
}

/** A stay `offset` days ahead, two nights. */
function dates(offset: number): { check_in: string; check_out: string } {
  return { check_in: day(ctx, offset), check_out: day(ctx, offset + 2) };
}
