import type { LookupOptions } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryTargetProblem, ForbiddenTargetError, guardedLookup, webhookUrlProblem } from '../../src/modules/webhooks/webhooks.url.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';
import { attemptsOf, eventually, recordEvents, staffView } from '../webhooks/helpers.js';

/**
 * Every address range a webhook may not reach (only global unicast is allowed), judged at both
 * stages: when staff set the URL (an IP literal in it) and when a delivery connects (the address a
 * name resolves to, or the literal). WEBHOOK_ALLOW_INSECURE=1 lifts the range checks.
 */
const FORBIDDEN: Array<[address: string, range: string]> = [
  ['0.0.0.0', 'this network 0/8'],
  ['0.1.2.3', 'this network 0/8'],
  ['10.0.0.1', 'private 10/8'],
  ['10.255.255.254', 'private 10/8'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['100.64.0.1', 'CGNAT 100.64/10'],
  ['100.127.255.254', 'CGNAT 100.64/10'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.254', 'private 172.16/12'],
  ['192.168.1.1', 'private 192.168/16'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.1', 'documentation TEST-NET-2'],
  ['203.0.113.1', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.254', 'benchmarking 198.18/15'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::7f00:1', 'IPv4-compatible ::/96'],
  ['::808:808', 'IPv4-compatible ::/96'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
  ['::ffff:0.0.0.0', 'IPv4-mapped ::ffff:0:0/96'],
  ['::ffff:8.8.8.8', 'IPv4-mapped ::ffff:0:0/96 (refused whatever it carries)'],
  ['::ffff:0:7f00:1', 'SIIT ::ffff:0:0:0/96'],
  ['fe80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['fc00::1', 'unique local'],
  ['fd00::1', 'unique local'],
  ['ff02::1', 'multicast'],
  ['ff0e::1', 'multicast'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['64:ff9b::a00:1', 'NAT64 64:ff9b::/96'],
  ['64:ff9b::808:808', 'NAT64 64:ff9b::/96'],
  ['64:ff9b:1::1', 'local NAT64 64:ff9b:1::/48'],
  ['2002:7f00:1::1', '6to4 2002::/16'],
  ['2002:808:808::1', '6to4 2002::/16'],
  ['2001::1', 'Teredo 2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
  ['100::1', 'discard 100::/64'],
  ['100::ffff:ffff:ffff:ffff', 'discard 100::/64'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['5f00::1', 'segment routing 5f00::/16'],
  ['4000::1', 'outside global unicast 2000::/3'],
  ['e000::1', 'outside global unicast 2000::/3'],
];

const ALLOWED = [
  '8.8.8.8',
  '93.184.216.34',
  '1.1.1.1',
  '100.128.0.1',
  '172.32.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:81c::200e',
  '2001:4860:4860::8888',
];

/** Forms of local names and of loopback that must be refused when staff set the URL. */
const FORBIDDEN_URLS = [
  'https://localhost/x',
  'https://localhost./x',
  'https://LOCALHOST./x',
  'https://localhost../x',
  'https://api.localhost./x',
  'https://printer.local./x',
  'https://metadata.google.internal./x',
  'https://router.home.arpa./x',
  'https://localhost.localdomain/x',
  'https://127.0.0.1./x',
  'https://2130706433/x',
  'https://0x7f.0.0.1/x',
  'https://0177.0.0.1/x',
  'https://[0:0:0:0:0:ffff:7f00:1]/x',
  'https://[::ffff:7f00:1]/x',
  'https://./x',
];

const STRICT = { insecure: false, private: false };
const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);

let ctx: TestContext;
let brandId: number;

beforeAll(async () => {
  ctx = await createTestContext({ WEBHOOK_ALLOW_INSECURE: '0', WEBHOOK_ALLOW_PRIVATE: '0' });
  brandId = await ctx.createBrand();
});
afterAll(async () => {
  await ctx?.close();
});

async function createWith(url: string) {
  return ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'SSRF probe', webhook: { url } });
}

describe('when staff set the URL', () => {
  it.each(FORBIDDEN)('refuses %s (%s)', async (address) => {
    const url = `https://${literal(address)}/hook`;
    expect(webhookUrlProblem(url, STRICT)).toMatch(/loopback, private, link-local or reserved/);
    const res = await createWith(url);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { 'webhook.url': [expect.any(String)] } });
  });

  it.each(FORBIDDEN_URLS)('refuses %s', async (url) => {
    expect(webhookUrlProblem(url, STRICT)).not.toBeNull();
    const res = await createWith(url);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { 'webhook.url': [expect.any(String)] } });
  });

  it('refuses them on PATCH too', async () => {
    const ok = await createWith('https://hooks.example.com/doorloom');
    expect(ok.statusCode).toBe(201);
    for (const url of ['https://localhost./x', 'https://[2002:7f00:1::1]/x', 'https://[100::1]/x', 'https://[::ffff:8.8.8.8]/x']) {
      const res = await ctx.staff('PATCH', `/integrations/${ok.json().data.integration.id}`, { webhook: { url } });
      expect(res.statusCode, url).toBe(422);
    }
  });

  it.each(ALLOWED)('accepts the global unicast address %s', async (address) => {
    const url = `https://${literal(address)}/hook`;
    expect(webhookUrlProblem(url, STRICT)).toBeNull();
    expect((await createWith(url)).statusCode).toBe(201);
  });

  it('accepts a public name, with or without its root dot', async () => {
    for (const url of ['https://hooks.example.com/x', 'https://hooks.example.com./x']) expect((await createWith(url)).statusCode, url).toBe(201);
  });

  it('WEBHOOK_ALLOW_PRIVATE=1 allows loopback, private and local names; plain http needs WEBHOOK_ALLOW_INSECURE too', () => {
    const privateOnly = { insecure: false, private: true };
    for (const url of ['https://127.0.0.1:8080/x', 'https://localhost./x', 'https://10.0.0.1/x', 'https://[::1]/x', 'https://[fd00::1]/x']) {
      expect(webhookUrlProblem(url, privateOnly), url).toBeNull();
      expect(deliveryTargetProblem(new URL(url), privateOnly), url).toBeNull();
    }
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', privateOnly)).toBe('must use https');
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', { insecure: true, private: true })).toBeNull();
  });

  it('WEBHOOK_ALLOW_INSECURE=1 alone allows plain http to public addresses only', () => {
    const insecureOnly = { insecure: true, private: false };
    expect(webhookUrlProblem('http://hooks.example.com/x', insecureOnly)).toBeNull();
    expect(webhookUrlProblem('http://93.184.216.34/x', insecureOnly)).toBeNull();
    for (const url of ['http://127.0.0.1:8080/x', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/x', 'http://[::1]/x', 'http://2130706433/x']) {
      expect(webhookUrlProblem(url, insecureOnly), url).not.toBeNull();
      expect(deliveryTargetProblem(new URL(url), insecureOnly), url).toMatch(/loopback, private, link-local or reserved/);
    }
    // a name is judged on what it resolves to when the delivery connects (guardedLookup, below)
    expect(webhookUrlProblem('http://localhost/x', insecureOnly)).toBe('must not point at a local host name');
    expect(webhookUrlProblem('ftp://hooks.example.com/x', insecureOnly)).toBe('must use http or https');
  });
});

describe('when a delivery connects', () => {
  /** guardedLookup over a resolver that answers `address` for every name. */
  const resolveTo = (address: string, all = false) => {
    const resolver = ((_host: string, _options: LookupOptions, cb: (e: Error | null, a: unknown) => void) =>
      cb(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as never;
    const lookup = guardedLookup(resolver);
    return new Promise<unknown>((resolve, reject) => lookup('target.example.com', { all }, (error, result) => (error ? reject(error) : resolve(result))));
  };

  it.each(FORBIDDEN)('refuses a name resolving to %s (%s)', async (address) => {
    await expect(resolveTo(address)).rejects.toBeInstanceOf(ForbiddenTargetError);
    await expect(resolveTo(address, true)).rejects.toThrow(/loopback, private, link-local or reserved/);
  });

  it.each(FORBIDDEN)('refuses the literal %s (%s) before connecting', (address) => {
    expect(deliveryTargetProblem(new URL(`https://${literal(address)}/hook`), STRICT)).toMatch(/loopback, private, link-local or reserved/);
  });

  it.each(ALLOWED)('connects to %s', async (address) => {
    await expect(resolveTo(address)).resolves.toBe(address);
    expect(deliveryTargetProblem(new URL(`https://${literal(address)}/hook`), STRICT)).toBeNull();
  });

  it('records refused deliveries as failed attempts, without any connection', async () => {
    const worker: DeliveryWorker = startDeliveryWorker(ctx.deps, { pollMs: 100 });
    try {
      for (const url of ['https://[2002:7f00:1::1]:9/6to4', 'https://[2001::1]:9/teredo', 'https://[100::1]:9/discard', 'https://[::ffff:0:7f00:1]:9/siit']) {
        const integration = await ctx.createIntegration({ webhook: { url: 'https://hooks.example.com/later' } });
        // written behind the staff check, as an older version of the service could have stored it
        await ctx.deps.db.updateTable('integrations').set({ webhook_url: url }).where('id', '=', integration.id).execute();
        await recordEvents(ctx, integration.id, 1);
        await eventually(async () => (await staffView(ctx, integration.id)).webhook.consecutive_failures === 1, 10_000, url);
        const [attempt] = await attemptsOf(ctx, integration.id);
        expect(attempt.success, url).toBe(false);
        expect(attempt.status_code, url).toBeNull();
        expect(attempt.error, url).toMatch(/^FORBIDDEN_ADDRESS: .* is a loopback, private, link-local or reserved address/);
      }
    } finally {
      await worker.stop();
    }
  });
});
