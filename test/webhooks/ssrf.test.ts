import type { LookupOptions } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenTargetError, guardedLookup } from '../../src/modules/webhooks/webhooks.url.js';
import type { DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { failure, type TestContext } from '../helpers/context.js';
import type { Receiver } from '../helpers/receiver.js';
import { attemptsOf, closeDeliveryContext, eventually, openDeliveryContext, recordEvents, staffView } from './helpers.js';

// WEBHOOK_ALLOW_INSECURE off: https only, and no loopback, private, link-local, CGNAT, mapped or
// metadata targets, whether named in the URL or reached through DNS at delivery time.
let ctx: TestContext;
let receiver: Receiver;
let worker: DeliveryWorker;

beforeAll(async () => {
  ({ ctx, receiver, worker } = await openDeliveryContext({ WEBHOOK_ALLOW_INSECURE: '0', WEBHOOK_ALLOW_PRIVATE: '0' }));
});
afterAll(() => closeDeliveryContext({ ctx, receiver, worker }));

const port = () => new URL(receiver.url).port;

describe('SSRF guard', () => {
  it('refuses unsafe URLs when staff set them', async () => {
    const brandId = await ctx.createBrand();
    const bad = [
      `http://hooks.example.com/x`,
      `https://127.0.0.1:${port()}/x`,
      'https://10.1.2.3/x',
      'https://172.16.0.1/x',
      'https://192.168.1.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://[fd00::1]/x',
      'https://localhost/x',
      'https://metadata.google.internal/x',
    ];
    for (const url of bad) {
      const res = await ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'Unsafe', webhook: { url } });
      expect(res.statusCode, url).toBe(422);
      expect(res.json(), url).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { 'webhook.url': expect.any(Array) } });
    }
    const ok = await ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'Safe', webhook: { url: 'https://hooks.example.com/doorloom' } });
    expect(ok.statusCode).toBe(201);
    const patched = await ctx.staff('PATCH', `/integrations/${ok.json().data.integration.id}`, { webhook: { url: 'https://169.254.169.254/' } });
    expect(patched.statusCode).toBe(422);
  });

  it('refuses at delivery time a URL that became unsafe (a name now resolving to loopback, a literal, plain http)', async () => {
    const cases = [
      // "localhost" resolves to 127.0.0.1: the guard judges the resolved address, as for a rebound DNS name
      { url: `https://localhost:${port()}/rebound`, error: /^FORBIDDEN_ADDRESS: localhost resolves to (127\.0\.0\.1|::1)/ },
      { url: `https://127.0.0.1:${port()}/literal`, error: /^FORBIDDEN_ADDRESS: 127\.0\.0\.1 is a loopback/ },
      { url: `https://[::ffff:127.0.0.1]:${port()}/mapped`, error: /^FORBIDDEN_ADDRESS/ },
      { url: `${receiver.url}/plain`, error: /^FORBIDDEN_ADDRESS: http: URLs are not allowed/ },
    ];
    for (const c of cases) {
      const integration = await ctx.createIntegration({ webhook: { url: 'https://hooks.example.com/later' } });
      // written behind the staff check, as if DNS or policy changed after it was set
      await ctx.deps.db.updateTable('integrations').set({ webhook_url: c.url }).where('id', '=', integration.id).execute();
      await recordEvents(ctx, integration.id, 1);
      await eventually(async () => (await staffView(ctx, integration.id)).webhook.consecutive_failures === 1, 10_000, c.url);
      const [attempt] = await attemptsOf(ctx, integration.id);
      expect(attempt.success, c.url).toBe(false);
      expect(attempt.status_code, c.url).toBeNull();
      expect(attempt.error, c.url).toMatch(c.error);
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('judges every resolved address (DNS rebinding)', async () => {
    const answers: Record<string, Array<{ address: string; family: number }>> = {
      'public.example.com': [{ address: '93.184.216.34', family: 4 }],
      'rebound.example.com': [{ address: '10.0.0.7', family: 4 }],
      'mixed.example.com': [
        { address: '93.184.216.34', family: 4 },
        { address: '::ffff:169.254.169.254', family: 6 },
      ],
    };
    const fakeResolver = ((host: string, _options: LookupOptions, cb: (e: Error | null, a: unknown) => void) => cb(null, answers[host])) as never;
    const lookup = guardedLookup(fakeResolver);
    const resolve = (host: string, all = false) =>
      new Promise<unknown>((res, rej) => lookup(host, { all }, (error, address, family) => (error ? rej(error) : res(all ? address : { address, family }))));

    await expect(resolve('public.example.com')).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(resolve('public.example.com', true)).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(resolve('rebound.example.com')).rejects.toBeInstanceOf(ForbiddenTargetError);
    await expect(resolve('mixed.example.com', true)).rejects.toThrow(/169\.254\.169\.254/);
  });
});
