import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { API_PREFIX } from '../../src/app.js';
import type { TestContext } from '../helpers/context.js';

let addressCounter = 0;

/** A source address no other test of the file uses, so the per-IP tier stays out of the way. */
export function freshAddress(): string {
  addressCounter++;
  return `10.${(addressCounter >> 8) & 255}.${addressCounter & 255}.7`;
}

export interface CallOptions {
  ip?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request to the integrations API of `app` from a given source address. */
export function call(
  app: FastifyInstance,
  key: string | null,
  method: InjectOptions['method'],
  path: string,
  options: CallOptions = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url: API_PREFIX + path,
    remoteAddress: options.ip ?? '127.0.0.1',
    headers: {
      accept: 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
}

/**
 * Moves the service clock to 1–2 s past the start of the next minute, so that a test has a whole
 * fresh window ahead of it whatever the real time is.
 */
export async function startOfNextWindow(ctx: TestContext): Promise<void> {
  const intoMinute = ctx.deps.clock.nowMs() % 60_000;
  await ctx.advanceClock(Math.ceil((60_000 - intoMinute) / 1000) + 1);
}

export interface ListItem {
  name: string;
  params: Record<string, number>;
}

/** A Structured Fields list of `"name";k=1;k=2` items (the IETF RateLimit fields use nothing more). */
export function parseList(field: string | string[] | number | undefined): ListItem[] {
  expect(typeof field).toBe('string');
  return String(field)
    .split(/\s*,\s*/)
    .map((item) => {
      const [name, ...params] = item.split(';');
      expect(name).toMatch(/^"[a-z][a-z0-9-]*"$/);
      return {
        name: JSON.parse(name) as string,
        params: Object.fromEntries(
          params.map((param) => {
            expect(param).toMatch(/^[a-z]+=\d+$/);
            const [k, v] = param.split('=');
            return [k, Number(v)];
          }),
        ),
      };
    });
}

export interface RateHeaders {
  limit: number;
  remaining: number;
  policies: ListItem[];
  limits: ListItem[];
}

/** The four rate-limit fields of a response, checked for shape and agreement with each other. */
export function rateHeaders(res: LightMyRequestResponse): RateHeaders {
  const limit = Number(res.headers['x-ratelimit-limit']);
  const remaining = Number(res.headers['x-ratelimit-remaining']);
  expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  const policies = parseList(res.headers['ratelimit-policy']);
  const limits = parseList(res.headers.ratelimit);
  expect(limits.map((l) => l.name)).toEqual(policies.map((p) => p.name));
  for (const policy of policies) {
    expect(policy.params.w).toBe(60);
    expect(policy.params.q).toBeGreaterThan(0);
  }
  for (const [i, l] of limits.entries()) {
    expect(l.params.r).toBeGreaterThanOrEqual(0);
    expect(l.params.r).toBeLessThanOrEqual(policies[i].params.q);
    expect(l.params.t).toBeGreaterThanOrEqual(1);
    expect(l.params.t).toBeLessThanOrEqual(60);
  }
  // X-RateLimit-* are the tightest tier: the least remaining of all the policies.
  expect(remaining).toBe(Math.min(...limits.map((l) => l.params.r)));
  expect(policies.some((p, i) => p.params.q === limit && limits[i].params.r === remaining)).toBe(true);
  return { limit, remaining, policies, limits };
}

/** Remaining quota of one named policy. */
export function remainingOf(res: LightMyRequestResponse, policy: string): number | undefined {
  return parseList(res.headers.ratelimit).find((l) => l.name === policy)?.params.r;
}

/** A 429 RATE_LIMITED with Retry-After (seconds to the window's end) equal to errors.retry_after. */
export function expectRateLimited(res: LightMyRequestResponse, ctx: TestContext, limit: number): void {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body).toMatchObject({ success: false, code: 'RATE_LIMITED', message: expect.any(String) });
  const retryAfter = Number(res.headers['retry-after']);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(body.errors).toEqual({ retry_after: retryAfter });
  const secondsToWindowEnd = Math.ceil((60_000 - (ctx.deps.clock.nowMs() % 60_000)) / 1000);
  // measured after the answer: the window's end can only have come closer since it was computed
  expect(retryAfter).toBeGreaterThanOrEqual(secondsToWindowEnd);
  expect(retryAfter).toBeLessThanOrEqual(secondsToWindowEnd + 2);
  const headers = rateHeaders(res);
  expect(headers.limit).toBe(limit);
  expect(headers.remaining).toBe(0);
  for (const l of headers.limits) expect(l.params.t).toBe(retryAfter);
}
