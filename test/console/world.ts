import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { chromium, type Browser } from 'playwright-core';
import type { Deps } from '../../src/deps.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import type { TestContext, TestIntegration } from '../helpers/context.js';
import { createOk } from '../properties/fixtures.js';

/** What the failing receiver answers: partner-controlled bytes the console must show as text. */
export const HOSTILE_ANSWER = '<script>window.__pwned=1</script>';

/**
 * CHROMIUM_PATH, else the system's /usr/bin/chromium, else the build that @sparticuz/chromium
 * ships inside its npm package (unpacked once into the temp directory), so `npm install` is all
 * a fresh machine needs.
 */
export async function chromiumPath(): Promise<string> {
  if (process.env.CHROMIUM_PATH) {
    if (!existsSync(process.env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist`);
    return process.env.CHROMIUM_PATH;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  // the package carries an x86-64 Linux build only
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`No Chromium for ${process.platform}-${process.arch}: install one and set CHROMIUM_PATH. The console's browser tests need a real browser.`);
  }
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start
  // LANG: the packaged build reads LANG=C as the tag en-US@posix, which Intl.NumberFormat rejects
  const executablePath = await chromiumPath();
  try {
    return await chromium.launch({
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      env: { ...process.env, LANG: 'en_US.UTF-8' },
    });
  } catch (error) {
    // an unpacking that was cut short leaves a broken copy that is never unpacked again
    throw new Error(`Chromium at ${executablePath} did not start; if it is the packaged one, delete it to unpack it again`, { cause: error });
  }
}

/** A built service (not listening yet) and its staff token: the tests' context, or a runtime of its own. */
export interface Service {
  app: FastifyInstance;
  deps: Deps;
  staffToken: string;
  close(): Promise<void>;
}

export interface ConsoleWorld {
  deps: Deps;
  /** http://127.0.0.1:port of the running service. */
  base: string;
  receiver: Receiver;
  healthy: TestIntegration;
  failing: TestIntegration;
  /** The failing receiver answers 500 with HOSTILE_ANSWER while this is true. */
  setFailing(failing: boolean): void;
  api: TestContext['api'];
  staff(method: InjectOptions['method'], path: string, body?: unknown): Promise<{ statusCode: number; json(): any }>;
  advanceClock(seconds: number): Promise<void>;
  worker: DeliveryWorker;
  close(): Promise<void>;
}

/**
 * The service listening on a loopback port with its delivery worker, and two integrations whose
 * webhooks go to a real loopback receiver: one answered 200, one answered 500 with a script.
 */
export async function startConsoleWorld(service: Service): Promise<ConsoleWorld> {
  const { app, deps } = service;
  const inject = (prefix: string, token: string | null, method: InjectOptions['method'], path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: prefix + path,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
  const staff = (method: InjectOptions['method'], path: string, body?: unknown) => inject('/api/staff/v1', service.staffToken, method, path, body);
  const api: TestContext['api'] = (key, method, path, body, headers) => inject('/api/integrations/v1', key, method, path, body, headers);
  const created = async (res: { statusCode: number; body: string; json(): any }, what: string) => {
    if (res.statusCode !== 201) throw new Error(`${what} failed: ${res.body}`);
    return res.json().data;
  };

  let failingNow = true;
  let failingSlug = '';
  const receiver = await startReceiver((r) =>
    failingNow && r.integration === failingSlug
      ? { status: 500, body: HOSTILE_ANSWER, headers: { 'content-type': 'text/html' } }
      : { status: 200, body: '{"ok":true}' },
  );
  const brand = await created(await staff('POST', '/brands', { name: 'Sunrise Stays' }), 'brand');
  const integration = async (name: string, path: string): Promise<TestIntegration> => {
    const data = await created(
      await staff('POST', '/integrations', {
        brand_id: brand.id,
        name,
        slug: `${path}-${randomBytes(2).toString('hex')}`,
        webhook: { url: `${receiver.url}/${path}` },
        horizon_days: 40,
      }),
      'integration',
    );
    return { id: data.integration.id, slug: data.integration.slug, apiKey: data.api_key, webhookSecret: data.webhook_secret, brandId: brand.id };
  };
  const healthy = await integration('Acme PMS', 'acme');
  const failing = await integration('Broken Channel <b>', 'broken');
  failingSlug = failing.slug;

  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const worker = startDeliveryWorker(deps, { pollMs: 100 });
  const ctx = { api } as TestContext;
  await createOk(ctx, healthy, { name: 'Sea Breeze Villa' });
  await createOk(ctx, failing, { name: 'Hill View Cottage' });

  return {
    deps,
    base,
    receiver,
    healthy,
    failing,
    setFailing(value) {
      failingNow = value;
    },
    api,
    staff,
    async advanceClock(seconds) {
      const res = await staff('POST', '/clock', { advance_seconds: seconds });
      if (res.statusCode !== 200) throw new Error(`clock move failed: ${res.body}`);
    },
    worker,
    async close() {
      await worker.stop();
      await receiver.close();
      await service.close();
    },
  };
}
