import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDoorloomClient, DoorloomApiError, DoorloomNetworkError, type RetryInfo, type RetryOptions } from '../src/index.js';

/**
 * A scripted failing server: each request takes the next step of the script (the last one
 * repeats), and every request is recorded with its headers and body.
 */
type Step = { status: number; body?: unknown; headers?: Record<string, string> } | { hang: true } | { reset: true };

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

let server: Server;
let origin: string;
let script: Step[] = [];
let seen: Seen[] = [];
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const step = script[Math.min(seen.length - 1, script.length - 1)];
      if ('hang' in step) return void hanging.push(res);
      if ('reset' in step) return void req.socket.destroy();
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(JSON.stringify(step.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  seen = [];
});

const ok = (status: number, data: unknown = { doorloom_id: 7 }): Step => ({ status, body: { success: true, message: 'ok', data } });
const fail = (status: number, code: string, extra: { errors?: unknown; headers?: Record<string, string> } = {}): Step => ({
  status,
  body: { success: false, code, message: code.toLowerCase(), ...(extra.errors ? { errors: extra.errors } : {}) },
  headers: extra.headers,
});

function clientWith(retry: RetryOptions = {}) {
  const retries: RetryInfo[] = [];
  const client = createDoorloomClient({
    baseUrl: origin,
    apiKey: 'dlk_test',
    retry: { baseDelayMs: 20, maxDelayMs: 200, inProgressDelayMs: 50, timeoutMs: 2000, ...retry, onRetry: (info) => retries.push(info) },
  });
  return { client, retries };
}

const property = { name: 'Villa' } as never;
const keysOf = () => seen.map((s) => s.headers['idempotency-key']);

describe('client retries against a scripted server', () => {
  it('retries a create after 5xx with the same Idempotency-Key and the identical body', async () => {
    script = [fail(500, 'INTERNAL'), { status: 502, body: 'Bad Gateway' }, fail(503, 'UNAVAILABLE_TRY_LATER'), ok(201)];
    const { client, retries } = clientWith();
    const created = await client.createProperty(property);
    expect(created).toEqual({ doorloom_id: 7 });
    expect(seen).toHaveLength(4);
    const keys = keysOf();
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set([JSON.stringify(property)]));
    expect(seen.every((s) => s.headers.authorization === 'Bearer dlk_test' && s.url === '/api/integrations/v1/properties')).toBe(true);
    expect(retries.map((r) => r.reason)).toEqual(['status 500', 'status 502', 'status 503']);
  });

  it('a new logical call gets a new key; a given key is sent as it is', async () => {
    script = [ok(201)];
    const { client } = clientWith();
    await client.createProperty(property);
    await client.createProperty(property);
    await client.createBooking({} as never, { idempotencyKey: 'partner-key-0001' });
    const keys = keysOf();
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('partner-key-0001');
  });

  it('waits out 409 IN_PROGRESS with the same key, at least the in-progress delay each time', async () => {
    script = [fail(409, 'IN_PROGRESS'), fail(409, 'IN_PROGRESS'), ok(201)];
    const { client, retries } = clientWith({ inProgressDelayMs: 150 });
    await client.createBooking({} as never);
    expect(seen).toHaveLength(3);
    expect(new Set(keysOf()).size).toBe(1);
    expect(retries.map((r) => r.reason)).toEqual(['409 IN_PROGRESS', '409 IN_PROGRESS']);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(140);
    expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(140);
  });

  it('honours 429 Retry-After (seconds) before sending the same request again', async () => {
    script = [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '1' }, errors: { retry_after: 1 } }), ok(200, { id: 1 })];
    const { client, retries } = clientWith();
    const me = await client.me();
    expect(me).toEqual({ id: 1 });
    expect(seen).toHaveLength(2);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
    expect(retries).toMatchObject([{ reason: '429 RATE_LIMITED', delayMs: 1000 }]);
  });

  it('takes errors.retry_after when a 429 has no Retry-After header', async () => {
    script = [fail(429, 'RATE_LIMITED', { errors: { retry_after: 1 } }), ok(200, { id: 1 })];
    const { client, retries } = clientWith();
    await client.me();
    expect(retries).toMatchObject([{ delayMs: 1000 }]);
  });

  it('hands back a Retry-After longer than it waits for, and never waits out SYNC_TOO_SOON', async () => {
    script = [fail(429, 'RATE_LIMITED', { headers: { 'retry-after': '600' } })];
    const { client } = clientWith({ maxRetryAfterMs: 5000 });
    await expect(client.me()).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 600, attempts: 1 });
    expect(seen).toHaveLength(1);

    seen = [];
    script = [fail(429, 'SYNC_TOO_SOON', { headers: { 'retry-after': '30' }, errors: { retry_after: 30 } })];
    await expect(client.sync()).rejects.toMatchObject({ code: 'SYNC_TOO_SOON', retryAfter: 30 });
    expect(seen).toHaveLength(1);
  });

  it('never retries a 422, a 409 PROPERTY_EXTERNAL_ID_EXISTS or another 4xx', async () => {
    const { client, retries } = clientWith();
    for (const step of [
      fail(422, 'VALIDATION_FAILED', { errors: { name: ['is required'] } }),
      fail(409, 'PROPERTY_EXTERNAL_ID_EXISTS', { errors: { external_id: ['taken'], doorloom_id: 3 } }),
      fail(409, 'UNAVAILABLE'),
      fail(404, 'NOT_FOUND'),
      fail(400, 'BAD_REQUEST'),
      fail(401, 'UNAUTHENTICATED'),
      fail(413, 'PAYLOAD_TOO_LARGE'),
    ]) {
      script = [step, ok(201)];
      seen = [];
      const error = await client.createProperty(property).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DoorloomApiError);
      expect(seen).toHaveLength(1);
      const expected = step as { status: number; body: { code: string; errors?: unknown } };
      expect(error).toMatchObject({ status: expected.status, code: expected.body.code, attempts: 1 });
      expect((error as DoorloomApiError).errors).toEqual(expected.body.errors);
      expect((error as DoorloomApiError).response.status).toBe(expected.status);
    }
    expect(retries).toEqual([]);
  });

  it('retries an attempt that timed out, with the same key', async () => {
    script = [{ hang: true }, ok(201)];
    const { client, retries } = clientWith({ timeoutMs: 300 });
    await client.createProperty(property);
    expect(seen).toHaveLength(2);
    expect(new Set(keysOf()).size).toBe(1);
    expect(retries.map((r) => r.reason)).toEqual(['timeout']);
  });

  it('retries a dropped connection', async () => {
    script = [{ reset: true }, ok(201)];
    const { client, retries } = clientWith();
    await client.createProperty(property);
    expect(seen).toHaveLength(2);
    expect(retries.map((r) => r.reason)).toEqual(['network error']);
  });

  it('gives up after maxAttempts with the last answer, or a network error', async () => {
    script = [fail(503, 'DOWN')];
    const { client } = clientWith({ maxAttempts: 3 });
    await expect(client.me()).rejects.toMatchObject({ status: 503, code: 'DOWN', attempts: 3 });
    expect(seen).toHaveLength(3);

    const closed = createDoorloomClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await closed.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DoorloomNetworkError);
    expect(error).toMatchObject({ attempts: 2, timedOut: false });
  });

  it('backs off exponentially up to the cap, with jitter inside each step', async () => {
    script = [fail(500, 'X')];
    const high = clientWith({ maxAttempts: 6, baseDelayMs: 10, maxDelayMs: 40, random: () => 0.999999 });
    await high.client.me().catch(() => {});
    expect(high.retries.map((r) => r.delayMs)).toEqual([10, 20, 40, 40, 40]);
    const low = clientWith({ maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 40, random: () => 0 });
    await low.client.me().catch(() => {});
    expect(low.retries.map((r) => r.delayMs)).toEqual([5, 10, 20]);
  });

  it('retry: false sends once', async () => {
    script = [fail(503, 'DOWN'), ok(200)];
    const client = createDoorloomClient({ baseUrl: origin, apiKey: 'k', retry: false });
    await expect(client.me()).rejects.toMatchObject({ status: 503 });
    expect(seen).toHaveLength(1);
  });

  it('stops waiting when the caller aborts', async () => {
    script = [fail(503, 'DOWN')];
    const { client } = clientWith({ baseDelayMs: 5000, maxDelayMs: 5000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    await expect(client.me({ signal: controller.signal })).rejects.toThrow('stop');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
