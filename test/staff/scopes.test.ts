import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ensureStaffToken } from '../../src/modules/integrations/integrations.service.js';
import { createTestContext, failure, STAFF_TOKEN, staffRequest, type TestContext } from '../helpers/context.js';

/** Named staff tokens: scopes (only admin mints and revokes), expiry, the paged list, the audit lines, recovery at start. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const as = (token: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, app = ctx.app) => staffRequest(app, token, method, path, body);

async function mint(body: Record<string, unknown>, by = STAFF_TOKEN) {
  const res = await as(by, 'POST', '/staff-tokens', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { staff_token: { id: number; scope: string; expires_at: string | null }; token: string };
}

describe('scopes', () => {
  it('a named token is operator unless minted admin; the bootstrap STAFF_TOKEN is admin', async () => {
    expect((await mint({ name: 'plain' })).staff_token.scope).toBe('operator');
    expect((await mint({ name: 'boss', scope: 'admin' })).staff_token.scope).toBe('admin');
    const list = (await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=200')).json().data as Array<{ name: string; kind: string; scope: string }>;
    expect(list.find((t) => t.kind === 'bootstrap')).toMatchObject({ name: 'STAFF_TOKEN', scope: 'admin' });
  });

  it('an operator token does everything else, but may neither mint nor revoke: 403 INSUFFICIENT_SCOPE', async () => {
    const { token } = await mint({ name: 'operator' });
    expect((await as(token, 'POST', '/brands', { name: 'By an operator' })).statusCode).toBe(201);
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(200);
    const victim = await mint({ name: 'victim', scope: 'admin' });
    for (const [method, path, body] of [
      ['POST', '/staff-tokens', { name: 'escalated', scope: 'admin' }],
      ['POST', '/staff-tokens', { name: 'another operator' }],
      ['DELETE', `/staff-tokens/${victim.staff_token.id}`, undefined],
    ] as const) {
      const res = await as(token, method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json()).toEqual(failure('INSUFFICIENT_SCOPE'));
    }
    // nothing was minted or revoked
    expect((await as(victim.token, 'GET', '/staff-tokens')).statusCode).toBe(200);
    const names = ((await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=200')).json().data as Array<{ name: string }>).map((t) => t.name);
    expect(names).not.toContain('escalated');
    expect(names).not.toContain('another operator');
  });

  it('an operator token may revoke itself (it takes power from no one else)', async () => {
    const { token, staff_token } = await mint({ name: 'retiring operator' });
    expect((await as(token, 'DELETE', `/staff-tokens/${staff_token.id}`)).statusCode).toBe(200);
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(401);
  });

  it('an admin named token mints and revokes', async () => {
    const admin = await mint({ name: 'admin bot', scope: 'admin' });
    const minted = await mint({ name: 'minted by bot' }, admin.token);
    expect((await as(admin.token, 'DELETE', `/staff-tokens/${minted.staff_token.id}`)).statusCode).toBe(200);
    expect((await as(minted.token, 'GET', '/staff-tokens')).statusCode).toBe(401);
  });

  it('validates scope and expires_in_days', async () => {
    for (const body of [
      { name: 'x', scope: 'root' },
      { name: 'x', scope: 'ADMIN' },
      { name: 'x', expires_in_days: 0 },
      { name: 'x', expires_in_days: -1 },
      { name: 'x', expires_in_days: 1.5 },
      { name: 'x', expires_in_days: 3651 },
      { name: 'x', expires_in_days: '7' },
    ]) {
      const res = await as(STAFF_TOKEN, 'POST', '/staff-tokens', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('expiry', () => {
  it('a token past expires_in_days answers as unknown (401) on both APIs and leaves the list', async () => {
    const { token, staff_token } = await mint({ name: 'one day', expires_in_days: 1 });
    expect(staff_token.expires_at).toMatch(/\+05:30$/);
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(200);
    expect((await ctx.api(token, 'GET', '/me')).json()).toEqual(failure('NOT_INTEGRATION_TOKEN'));
    await ctx.advanceClock(86_400 - 60);
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(200);
    await ctx.advanceClock(61);
    const staff = await as(token, 'GET', '/staff-tokens');
    expect(staff.statusCode).toBe(401);
    expect(staff.json()).toEqual(failure('UNAUTHENTICATED'));
    const partner = await ctx.api(token, 'GET', '/me');
    expect(partner.statusCode).toBe(401);
    expect(partner.json()).toEqual(failure('UNAUTHENTICATED'));
    const ids = ((await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=200')).json().data as Array<{ id: number }>).map((t) => t.id);
    expect(ids).not.toContain(staff_token.id);
    // and it cannot be revoked any more: it names no live token
    expect((await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${staff_token.id}`)).statusCode).toBe(404);
  });
});

describe('the list', () => {
  it('is paged like the other staff lists: page, per_page and pagination', async () => {
    for (let i = 0; i < 5; i++) await mint({ name: `paged ${i}` });
    const all = (await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=200')).json();
    const total = all.pagination.total as number;
    expect(total).toBe(all.data.length);
    expect(total).toBeGreaterThanOrEqual(6);
    const first = (await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=2')).json();
    expect(first.pagination).toEqual({ page: 1, per_page: 2, total, last_page: Math.ceil(total / 2) });
    expect(first.data).toHaveLength(2);
    const second = (await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=2&page=2')).json();
    expect(second.data.map((t: { id: number }) => t.id)).toEqual(all.data.slice(2, 4).map((t: { id: number }) => t.id));
    const beyond = (await as(STAFF_TOKEN, 'GET', `/staff-tokens?per_page=2&page=${Math.ceil(total / 2) + 1}`)).json();
    expect(beyond.data).toEqual([]);
    expect((await as(STAFF_TOKEN, 'GET', '/staff-tokens')).json().pagination.per_page).toBe(50);
    for (const query of ['per_page=0', 'per_page=201', 'page=0', 'page=x']) {
      expect((await as(STAFF_TOKEN, 'GET', `/staff-tokens?${query}`)).statusCode, query).toBe(422);
    }
  });
});

describe('audit lines', () => {
  it('every mint and revoke is logged at info with the acting token and the new or revoked one', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = await buildApp({ ...ctx.deps, log: logger }, { logger });
    await app.ready();
    try {
      const admin = await mint({ name: 'auditor', scope: 'admin' });
      const res = await as(admin.token, 'POST', '/staff-tokens', { name: 'audited', expires_in_days: 3 }, app);
      expect(res.statusCode).toBe(201);
      const minted = res.json().data.staff_token;
      expect((await as(admin.token, 'DELETE', `/staff-tokens/${minted.id}`, undefined, app)).statusCode).toBe(200);
      expect(lines.find((l) => l.msg === 'staff token minted')).toMatchObject({
        level: 30,
        staff_token_id: admin.staff_token.id,
        new_staff_token_id: minted.id,
        scope: 'operator',
        expires_at: minted.expires_at,
      });
      expect(lines.find((l) => l.msg === 'staff token revoked')).toMatchObject({
        level: 30,
        staff_token_id: admin.staff_token.id,
        revoked_staff_token_id: minted.id,
      });
      // the token itself is in no line
      expect(JSON.stringify(lines)).not.toContain(res.json().data.token);
    } finally {
      await app.close();
    }
  });
});

describe('STAFF_TOKEN_REVOKE_OTHERS', () => {
  it('needs STAFF_TOKEN', () => {
    expect(() => loadConfig({ STAFF_TOKEN_REVOKE_OTHERS: '1' })).toThrow(ConfigError);
    expect(() => loadConfig({ STAFF_TOKEN_REVOKE_OTHERS: '1' })).toThrow('STAFF_TOKEN_REVOKE_OTHERS needs STAFF_TOKEN');
    expect(loadConfig({ STAFF_TOKEN_REVOKE_OTHERS: '1', STAFF_TOKEN }).staffTokenRevokeOthers).toBe(true);
  });

  it('at start revokes every token but STAFF_TOKEN, named admin ones included, and says how many', async () => {
    const own = await createTestContext();
    try {
      const minted = [];
      for (const body of [{ name: 'a', scope: 'admin' }, { name: 'b' }, { name: 'c', expires_in_days: 30 }]) {
        const res = await as(STAFF_TOKEN, 'POST', '/staff-tokens', body, own.app);
        minted.push(res.json().data.token as string);
      }
      const lines: Array<Record<string, unknown>> = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
      expect(await ensureStaffToken({ ...own.deps, log, config: { ...own.deps.config, staffTokenRevokeOthers: true } })).toBeNull();
      for (const token of minted) expect((await as(token, 'GET', '/staff-tokens', undefined, own.app)).statusCode).toBe(401);
      const left = await as(STAFF_TOKEN, 'GET', '/staff-tokens', undefined, own.app);
      expect(left.statusCode).toBe(200);
      expect(left.json().data).toEqual([expect.objectContaining({ name: 'STAFF_TOKEN', kind: 'bootstrap', scope: 'admin' })]);
      expect(lines.find((l) => String(l.msg).startsWith('STAFF_TOKEN_REVOKE_OTHERS'))).toMatchObject({ level: 40, revoked: 3 });
    } finally {
      await own.close();
    }
  });
});
