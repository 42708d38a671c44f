import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { deliveryHeaders, signingKey } from '../../src/modules/webhooks/webhooks.sign.js';
import { certify, type CertifyOptions } from '../src/cli/certify-kit.js';
import { generateWebhookSecret } from '../src/webhooks.js';
import { createWebhookVerifier } from '../src/webhooks.js';
import { startTestReceiver, type Flaw } from './certify-receivers.js';
import { runCli } from './sync-helpers.js';

const SECRET = generateWebhookSecret();

const ALL = [
  'valid-delivery',
  'bad-signature',
  'missing-signature',
  'stale-timestamp',
  'future-timestamp',
  'tampered-body',
  'raw-body',
  'rotation',
  'scheme-stripe',
  'scheme-standard',
  'duplicate',
  'replay-older',
  'unknown-type',
  'large-payload',
];

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function receiver(flaw: Flaw | null) {
  const r = await startTestReceiver(SECRET, flaw);
  closers.push(r.close);
  return r;
}

const run = (options: Partial<CertifyOptions> & { receiver: string }) => certify({ secret: SECRET, scheme: 'both', timeoutMs: 10_000, ...options });
const failed = (report: Awaited<ReturnType<typeof certify>>) => report.checks.filter((c) => !c.passed).map((c) => c.name);

/** `doorloom-partner certify …` from source; resolves with its exit code and output. */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(['certify', ...args], env);

describe('certify against receivers of its own', () => {
  it('passes a correct receiver on every check, the sequence rule included', async () => {
    const r = await receiver(null);
    const report = await run({ receiver: r.url, stateUrl: r.stateUrl });
    expect(failed(report)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([...ALL, 'sequence-rule']);
    const large = report.checks.find((c) => c.name === 'large-payload')!;
    // a month of a 50-unit property: about 30 KB
    expect(Number(/(\d+) bytes/.exec(large.evidence.sent)![1])).toBeGreaterThan(25_000);
  });

  it.each<[Flaw, string[]]>([
    ['accepts-bad-signature', ['bad-signature', 'tampered-body']],
    ['ignores-timestamps', ['stale-timestamp', 'future-timestamp']],
    ['first-v1-only', ['rotation']],
    ['unknown-type-500', ['unknown-type']],
    ['small-body-limit', ['large-payload']],
    ['stripe-only', ['scheme-standard']],
    ['last-write-wins', ['sequence-rule']],
    ['re-serialises', ['raw-body']],
  ])('fails a receiver that %s on exactly %j', async (flaw, expected) => {
    const r = await receiver(flaw);
    const report = await run({ receiver: r.url, stateUrl: r.stateUrl });
    expect(failed(report)).toEqual(expected);
    expect(report.passed).toBe(false);
  });

  it('fails a receiver slower than the timeout, and does not wait out the timeout again for each other check', async () => {
    const r = await receiver('slow');
    const report = await run({ receiver: r.url, timeoutMs: 1000, stateUrl: r.stateUrl });
    expect(failed(report)).toEqual([...ALL, 'sequence-rule']);
    expect(report.checks[0].evidence).toMatchObject({ status: null, error: 'no complete answer within 1 s' });
    for (const check of report.checks.slice(1)) expect(check.evidence.error).toBe('not run: valid-delivery got no complete answer within 1 s');
  });

  it('fails every check when nothing listens, with the connection error as evidence', async () => {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const report = await run({ receiver: `http://127.0.0.1:${port}/webhooks` });
    expect(failed(report)).toEqual(ALL);
    expect(report.checks[0].evidence.error).toMatch(/ECONNREFUSED/);
  });

  it('checks only the scheme a receiver claims: a Stripe-style-only receiver passes with --scheme stripe', async () => {
    const r = await receiver('stripe-only');
    const report = await run({ receiver: r.url, scheme: 'stripe' });
    expect(report.checks.map((c) => c.name)).toEqual(ALL.filter((n) => n !== 'scheme-standard'));
    expect(failed(report)).toEqual([]);
  });

  it("signs as the service does: receivers built on the SDK's verifier, Stripe's library and the standardwebhooks library pass (Stripe's but for future timestamps)", async () => {
    const verifier = createWebhookVerifier({ secrets: SECRET });
    const stripe = new Stripe('sk_test_certify');
    const standard = new Webhook(SECRET);
    const verifiers: Record<string, (body: string, headers: http.IncomingHttpHeaders) => void> = {
      sdk: (body, headers) => verifier.verify(body, headers),
      stripe: (body, headers) => stripe.webhooks.constructEvent(body, String(headers['x-service-signature']), SECRET, 300),
      standard: (body, headers) => standard.verify(body, headers as Record<string, string>),
    };
    for (const [name, verify] of Object.entries(verifiers)) {
      const server = http.createServer(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += chunk;
        try {
          verify(body, req.headers);
        } catch {
          return void res.writeHead(401).end();
        }
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(() => resolve())));
      const { port } = server.address() as AddressInfo;
      const scheme = name === 'sdk' ? 'both' : name === 'stripe' ? 'stripe' : 'standard';
      const report = await run({ receiver: `http://127.0.0.1:${port}/`, scheme });
      // Stripe's library refuses only old timestamps; the contract's tolerance is both ways
      expect({ name, failed: failed(report) }).toEqual({ name, failed: name === 'stripe' ? ['future-timestamp'] : [] });
    }
  });

  it("sends the service's own headers, byte for byte, and its event envelope", async () => {
    const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
    const server = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      seen.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    await run({ receiver: `http://127.0.0.1:${port}/` });
    const { headers, body } = seen[0];
    const event = JSON.parse(body);
    const service = deliveryHeaders({
      slug: event.integration.slug,
      id: event.id,
      timestamp: Number(headers['webhook-timestamp']),
      body,
      keys: [signingKey(SECRET)],
    });
    const sent = Object.fromEntries(Object.keys(service).map((name) => [name, headers[name.toLowerCase()]]));
    expect(sent).toEqual(service);
    // the envelope's members in the service's order (events.log's appendEvents)
    expect(Object.keys(event)).toEqual(['id', 'type', 'sequence', 'origin', 'version', 'created_at', 'integration', 'property', 'window', 'data']);
    expect(event).toMatchObject({ id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/), version: '2026-09', created_at: expect.stringMatching(/\+05:30$/) });
    expect(Object.keys(event.data.dates[0])).toEqual(['date', 'available_units', 'total_units', 'is_blocked', 'block_scope', 'units_cap']);
  });
});

describe('doorloom-partner certify (the command)', () => {
  it('refuses bad flags with one line and exit code 2', async () => {
    for (const args of [
      [],
      ['--receiver', 'not a url'],
      ['--receiver', 'http://127.0.0.1:1', '--scheme', 'svix'],
      ['--receiver', 'http://127.0.0.1:1', '--timeout', '0'],
      ['--receiver', 'http://127.0.0.1:1', '--bogus'],
    ]) {
      const result = await cli(args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: /)]);
    }
  });

  it('prints only the JSON report with --json and exits 1 naming the failed check; the secret may come from the environment', async () => {
    const r = await receiver('first-v1-only');
    const result = await cli(['--receiver', r.url, '--json'], { DOORLOOM_WEBHOOK_SECRET: SECRET });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(Object.keys(report)).toEqual(['passed', 'checks']);
    expect(report.passed).toBe(false);
    expect(report.checks.filter((c: { passed: boolean }) => !c.passed).map((c: { name: string }) => c.name)).toEqual(['rotation']);
    expect(Object.keys(report.checks[0]).sort()).toEqual(['evidence', 'name', 'passed']);
  });

  it('prints one line per check and exits 0 when all pass; without a secret it generates one and says so', async () => {
    const r = await receiver(null);
    const ok = await cli(['--receiver', r.url, '--webhook-secret', SECRET, '--state-url', r.stateUrl, '--timeout', '5']);
    expect(ok.code).toBe(0);
    const lines = ok.stdout.trim().split('\n');
    expect(lines.slice(0, -1).map((l) => /^(PASS|FAIL) (\S+)/.exec(l)?.slice(1))).toEqual([...ALL, 'sequence-rule'].map((n) => ['PASS', n]));
    expect(lines[0]).toMatch(/^PASS valid-delivery +status 2\d\d in \d+ ms .*sent availability\.changed seq \d+/);
    expect(lines.at(-1)).toBe('certified: all 15 checks passed');

    const generated = await cli(['--receiver', r.url]);
    expect(generated.code).toBe(1);
    expect(generated.stderr).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/m);
    expect(generated.stdout).toMatch(/^FAIL valid-delivery +status 401/m);
  });
});
