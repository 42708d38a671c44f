import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp, STAFF_PREFIX } from '../../src/app.js';
import { createTestContext, STAFF_TOKEN, type TestContext } from '../helpers/context.js';
import { startOfNextWindow } from './rate-limit.helpers.js';

/**
 * TRUST_PROXY: X-Forwarded-For is believed only from a listed proxy. The per-address tier, the
 * staff lockout and the request log then use the forwarded client address; from any other peer
 * the header is ignored and the peer's own address counts.
 */

const PROXY = '10.20.0.5';
const STRANGER = '192.0.2.44';
const BAD_STAFF_TOKEN = 'dls_WrongToken000000000000000000000000000000';

let trusting: TestContext;
let plain: TestContext;

beforeAll(async () => {
  [trusting, plain] = await Promise.all([
    createTestContext({ TRUST_PROXY: `${PROXY},10.30.0.0/16`, STAFF_AUTH_FAILURE_LIMIT: '3' }),
    createTestContext({ STAFF_AUTH_FAILURE_LIMIT: '3' }),
  ]);
  await Promise.all([startOfNextWindow(trusting), startOfNextWindow(plain)]);
});
afterAll(async () => {
  await trusting?.close();
  await plain?.close();
});

/** An unauthenticated API call: counted against its source address only; returns what is left of that bucket. */
async function remainingFor(ctx: TestContext, peer: string, forwardedFor?: string): Promise<number> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `${API_PREFIX}/me`,
    remoteAddress: peer,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });
  expect(res.statusCode).toBe(401);
  return Number(res.headers['x-ratelimit-remaining']);
}

function staffCall(ctx: TestContext, token: string, peer: string, forwardedFor?: string) {
  return ctx.app.inject({
    method: 'GET',
    url: `${STAFF_PREFIX}/brands`,
    remoteAddress: peer,
    headers: { authorization: `Bearer ${token}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
}

describe('TRUST_PROXY unset: no proxy is trusted', () => {
  it('a spoofed X-Forwarded-For is ignored: every call from one peer shares its bucket', async () => {
    const first = await remainingFor(plain, '10.40.0.1', '203.0.113.1');
    const second = await remainingFor(plain, '10.40.0.1', '203.0.113.2');
    const third = await remainingFor(plain, '10.40.0.1');
    expect([first - second, second - third]).toEqual([1, 1]);
  });

  it('bad staff tokens behind any forwarded address lock the peer out', async () => {
    for (let i = 0; i < 3; i++) expect((await staffCall(plain, BAD_STAFF_TOKEN, '10.40.0.2', `198.51.100.${i}`)).statusCode).toBe(401);
    expect((await staffCall(plain, STAFF_TOKEN, '10.40.0.2', '198.51.100.99')).statusCode).toBe(429);
  });
});

describe('TRUST_PROXY set', () => {
  it('two forwarded addresses behind the trusted proxy get separate buckets', async () => {
    const a1 = await remainingFor(trusting, PROXY, '203.0.113.10');
    const a2 = await remainingFor(trusting, PROXY, '203.0.113.10');
    const b1 = await remainingFor(trusting, PROXY, '203.0.113.11');
    expect(a1 - a2).toBe(1);
    // the second address starts a bucket of its own, untouched by the first's calls
    expect(b1).toBe(a1);
    // a proxy inside a trusted CIDR, and a chain of proxies: the address the trusted hop saw
    const c1 = await remainingFor(trusting, '10.30.7.7', '203.0.113.12');
    const c2 = await remainingFor(trusting, PROXY, `198.18.0.1, 203.0.113.12`);
    expect(c1 - c2).toBe(1);
  });

  it('an untrusted peer cannot choose its bucket with X-Forwarded-For', async () => {
    const s1 = await remainingFor(trusting, STRANGER, '203.0.113.20');
    const s2 = await remainingFor(trusting, STRANGER, '203.0.113.21');
    expect(s1 - s2).toBe(1);
    // nor spend the forwarded address's bucket
    const f1 = await remainingFor(trusting, PROXY, '203.0.113.20');
    expect(f1).toBe(s1);
  });

  it('the staff lockout is per forwarded address: one client guessing locks out only itself', async () => {
    for (let i = 0; i < 3; i++) expect((await staffCall(trusting, BAD_STAFF_TOKEN, PROXY, '198.51.100.7')).statusCode).toBe(401);
    expect((await staffCall(trusting, STAFF_TOKEN, PROXY, '198.51.100.7')).statusCode).toBe(429);
    expect((await staffCall(trusting, STAFF_TOKEN, PROXY, '198.51.100.8')).statusCode).toBe(200);
    // a stranger sending the locked address in the header is not locked out by it, nor can it escape its own
    expect((await staffCall(trusting, STAFF_TOKEN, STRANGER, '198.51.100.7')).statusCode).toBe(200);
  });

  it('the request log names the forwarded client address, and the peer when it is not trusted', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const app = await buildApp(trusting.deps, { logger: pino({ level: 'info' }, sink) });
    try {
      await app.inject({ method: 'GET', url: '/healthz', remoteAddress: PROXY, headers: { 'x-forwarded-for': '203.0.113.30' } });
      await app.inject({ method: 'GET', url: '/healthz', remoteAddress: STRANGER, headers: { 'x-forwarded-for': '203.0.113.31' } });
    } finally {
      await app.close();
    }
    const addresses = lines
      .map((line) => JSON.parse(line) as { msg?: string; req?: { remoteAddress?: string } })
      .filter((entry) => entry.msg === 'incoming request')
      .map((entry) => entry.req?.remoteAddress);
    expect(addresses).toEqual(['203.0.113.30', STRANGER]);
  });
});
