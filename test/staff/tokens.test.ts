import { Signals } from '../../src/signals.js';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, STAFF_PREFIX } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createClock } from '../../src/lib/clock.js';
import { ensureStaffToken } from '../../src/modules/integrations/integrations.service.js';
import {
  createTestContext,
  databaseUrl,
  failure,
  poolMode,
  STAFF_TOKEN,
  staffRequest,
  startSecondApp,
  type SecondApp,
  type TestContext,
} from '../helpers/context.js';
import { eventually } from '../webhooks/helpers.js';

let ctx: TestContext;
/** A second app on the same database: on PostgreSQL with its own pool, as another process would be. */
let second: SecondApp;

beforeAll(async () => {
  ctx = await createTestContext();
  const database = databaseUrl ? await openDatabase({ url: databaseUrl, dataDir: '', schema: ctx.schema, poolSize: 2, poolMode }) : null;
  second = await startSecondApp(
    {
      ...ctx.deps,
      db: database ? database.db : ctx.deps.db,
      clock: createClock(0),
      log: pino({ level: 'silent' }),
      signals: new Signals(),
    },
    database,
  );
});
afterAll(async () => {
  await second?.close();
  await ctx.close();
});

const as = (token: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, app = ctx.app) => staffRequest(app, token, method, path, body);

async function mint(name: string, by = STAFF_TOKEN, extra: { scope?: 'admin' | 'operator'; expires_in_days?: number } = {}) {
  const res = await as(by, 'POST', '/staff-tokens', { name, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { staff_token: { id: number; name: string }; token: string };
}

describe('STAFF_TOKEN format', () => {
  const message = 'STAFF_TOKEN must be dls_ followed by 40 letters or digits';
  it.each([
    ['dls_abc'],
    [`dls_${'a'.repeat(39)}`],
    [`dls_${'a'.repeat(41)}`],
    [`dlk_${'a'.repeat(40)}`],
    [`dls_${'a'.repeat(39)}-`],
    [`dls_${'a'.repeat(39)}é`],
    [`DLS_${'a'.repeat(40)}`],
  ])('refuses %s', (value) => {
    expect(() => loadConfig({ STAFF_TOKEN: value })).toThrow(ConfigError);
    expect(() => loadConfig({ STAFF_TOKEN: value })).toThrow(message);
  });
  it('accepts dls_ and 40 base62 characters (the test token too)', () => {
    expect(loadConfig({ STAFF_TOKEN: `dls_${'aZ09'.repeat(10)}` }).staffToken).toBe(`dls_${'aZ09'.repeat(10)}`);
    expect(loadConfig({ STAFF_TOKEN }).staffToken).toBe(STAFF_TOKEN);
    expect(loadConfig({}).staffToken).toBeNull();
  });
});

describe('named staff tokens', () => {
  it('mints a token shown once, with Cache-Control: no-store, that works at once', async () => {
    const res = await as(STAFF_TOKEN, 'POST', '/staff-tokens', { name: 'deploy bot' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { staff_token, token } = res.json().data;
    expect(token).toMatch(/^dls_[A-Za-z0-9]{40}$/);
    expect(staff_token).toEqual({
      id: expect.any(Number),
      name: 'deploy bot',
      kind: 'named',
      scope: 'operator',
      created_at: expect.stringMatching(/\+05:30$/),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
    });
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(200);
    // and it is no integration key
    const onApi = await ctx.api(token, 'GET', '/me');
    expect(onApi.statusCode).toBe(403);
    expect(onApi.json()).toEqual(failure('NOT_INTEGRATION_TOKEN'));
  });

  it('validates the name', async () => {
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 5 }]) {
      const res = await as(STAFF_TOKEN, 'POST', '/staff-tokens', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { name: expect.any(Array) } });
    }
  });

  it('lists live tokens with name, kind and dates, never the token or its hash', async () => {
    const { token, staff_token } = await mint('listed');
    const res = await as(STAFF_TOKEN, 'GET', '/staff-tokens');
    expect(res.statusCode).toBe(200);
    const list = res.json().data as Array<Record<string, unknown>>;
    expect(list.find((t) => t.id === staff_token.id)).toEqual({ ...staff_token, last_used_at: null });
    expect(list.find((t) => t.kind === 'bootstrap')).toMatchObject({ name: 'STAFF_TOKEN', revoked_at: null });
    for (const entry of list)
      expect(Object.keys(entry).sort()).toEqual(['created_at', 'expires_at', 'id', 'kind', 'last_used_at', 'name', 'revoked_at', 'scope']);
    expect(res.body).not.toContain(token);
    expect(res.body).not.toContain(token.slice(4));
    const hashes = await ctx.deps.db.selectFrom('staff_tokens').select('token_hash').execute();
    for (const { token_hash } of hashes) expect(res.body).not.toContain(token_hash);
  });

  it('revokes: the token stops at once, in this and in another instance', async () => {
    const { token, staff_token } = await mint('short-lived');
    expect((await as(token, 'GET', '/staff-tokens', undefined, second.app)).statusCode).toBe(200);
    const res = await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${staff_token.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: staff_token.id, revoked_at: expect.stringMatching(/\+05:30$/) });
    for (const app of [ctx.app, second.app]) {
      const after = await as(token, 'GET', '/staff-tokens', undefined, app);
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(failure('UNAUTHENTICATED'));
    }
    const list = (await as(STAFF_TOKEN, 'GET', '/staff-tokens')).json().data as Array<{ id: number }>;
    expect(list.map((t) => t.id)).not.toContain(staff_token.id);
    // twice, or an id that names nothing
    for (const id of [String(staff_token.id), '999999', 'abc']) {
      const again = await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${id}`);
      expect(again.statusCode, id).toBe(404);
      expect(again.json()).toEqual(failure('NOT_FOUND'));
    }
  });

  it('a token may revoke itself: that answer goes out, the next call is refused', async () => {
    const { token, staff_token } = await mint('self');
    const res = await as(token, 'DELETE', `/staff-tokens/${staff_token.id}`);
    expect(res.statusCode).toBe(200);
    expect((await as(token, 'GET', '/staff-tokens')).statusCode).toBe(401);
  });

  it('refuses to revoke the STAFF_TOKEN setting', async () => {
    const list = (await as(STAFF_TOKEN, 'GET', '/staff-tokens')).json().data as Array<{ id: number; name: string; kind: string }>;
    const configured = list.find((t) => t.kind === 'bootstrap')!;
    const { token } = await mint('ops', STAFF_TOKEN, { scope: 'admin' });
    const res = await as(token, 'DELETE', `/staff-tokens/${configured.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(failure('STAFF_TOKEN_CONFIGURED'));
    expect((await as(STAFF_TOKEN, 'GET', '/staff-tokens')).statusCode).toBe(200);
  });

  it('records the last use at most once a minute', async () => {
    const { token, staff_token } = await mint('used');
    const lastUsed = async () =>
      ((await as(STAFF_TOKEN, 'GET', '/staff-tokens')).json().data as Array<{ id: number; last_used_at: string | null }>).find((t) => t.id === staff_token.id)!
        .last_used_at;
    expect(await lastUsed()).toBeNull();
    await as(token, 'GET', '/staff-tokens');
    await eventually(async () => (await lastUsed()) !== null, 5000, 'first use recorded');
    const first = await lastUsed();
    await as(token, 'GET', '/staff-tokens');
    await new Promise((r) => setTimeout(r, 100));
    expect(await lastUsed()).toBe(first);
    await ctx.advanceClock(61);
    await as(token, 'GET', '/staff-tokens');
    await eventually(async () => (await lastUsed()) !== first, 5000, 'a use a minute later recorded');
  });
});

describe('request logs', () => {
  it('name the staff token once it is authenticated, and who revoked which token', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const app = await buildApp({ ...ctx.deps, log: logger }, { logger });
    await app.ready();
    try {
      const { staff_token } = await mint('logged');
      const res = await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${staff_token.id}`, undefined, app);
      expect(res.statusCode).toBe(200);
      const own = ((await as(STAFF_TOKEN, 'GET', '/staff-tokens', undefined, app)).json().data as Array<{ id: number; kind: string }>).find(
        (t) => t.kind === 'bootstrap',
      )!;
      const completed = lines.filter((l) => l.msg === 'request completed');
      expect(completed.length).toBeGreaterThanOrEqual(2);
      for (const line of completed) expect(line.staff_token_id).toBe(own.id);
      expect(lines.find((l) => l.msg === 'staff token revoked')).toMatchObject({ staff_token_id: own.id, revoked_staff_token_id: staff_token.id });
    } finally {
      await app.close();
    }
  });
});

describe('credentials in answers are not cached', () => {
  it('integration create and both rotations send Cache-Control: no-store', async () => {
    const brandId = await ctx.createBrand();
    const created = await ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'No store' });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const id = created.json().data.integration.id;
    for (const path of [`/integrations/${id}/api-key/rotate`, `/integrations/${id}/webhook-secret/rotate`]) {
      const res = await ctx.staff('POST', path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('no-store');
    }
    // answers without a credential keep the default
    expect((await ctx.staff('GET', `/integrations/${id}`)).headers['cache-control']).toBeUndefined();
  });
});

describe('bootstrap tokens at start', () => {
  it('STAFF_TOKEN is authoritative: a new value revokes the previous bootstrap tokens, named tokens stay', async () => {
    // the only admin tokens are the bootstrap ones (earlier tests minted named admin tokens)
    const live = (await as(STAFF_TOKEN, 'GET', '/staff-tokens?per_page=200')).json().data as Array<{ id: number; kind: string; scope: string }>;
    for (const t of live.filter((t) => t.kind === 'named' && t.scope === 'admin'))
      expect((await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${t.id}`)).statusCode).toBe(200);
    const { token: named } = await mint('survivor');
    const next = `dls_${'N'.repeat(40)}`;
    const restart = (staffToken: string | null) => ensureStaffToken({ ...ctx.deps, config: { ...ctx.deps.config, staffToken } });

    expect(await restart(next)).toBeNull();
    expect((await as(STAFF_TOKEN, 'GET', '/staff-tokens')).statusCode).toBe(401);
    expect((await as(next, 'GET', '/staff-tokens')).statusCode).toBe(200);
    expect((await as(named, 'GET', '/staff-tokens')).statusCode).toBe(200);
    const kinds = ((await as(next, 'GET', '/staff-tokens')).json().data as Array<{ kind: string }>).filter((t) => t.kind === 'bootstrap');
    expect(kinds).toHaveLength(1);

    // Without STAFF_TOKEN: the token the setting had set is revoked; named tokens stay; with no
    // live admin token left, one is generated (and printed by the caller).
    const generated = await restart(null);
    expect(generated).toMatch(/^dls_[A-Za-z0-9]{40}$/);
    expect((await as(next, 'GET', '/staff-tokens')).statusCode).toBe(401);
    expect((await as(named, 'GET', '/staff-tokens')).statusCode).toBe(200);
    expect((await as(generated!, 'GET', '/staff-tokens')).json().data).toContainEqual(
      expect.objectContaining({ kind: 'bootstrap', scope: 'admin', name: 'generated at first start' }),
    );
    // a start after that has an admin token: nothing more is generated or revoked
    expect(await restart(null)).toBeNull();
    expect((await as(generated!, 'GET', '/staff-tokens')).statusCode).toBe(200);

    // Back to the first value (this suite's token): live again, the other one revoked.
    expect(await restart(STAFF_TOKEN)).toBeNull();
    expect((await as(STAFF_TOKEN, 'GET', '/staff-tokens')).statusCode).toBe(200);
    expect((await as(next, 'GET', '/staff-tokens')).statusCode).toBe(401);
    expect((await as(named, 'GET', '/staff-tokens')).statusCode).toBe(200);
    // STAFF_TOKEN is set again: every other bootstrap token (the generated one too) is revoked
    expect((await as(generated!, 'GET', '/staff-tokens')).statusCode).toBe(401);
  });

  it('without STAFF_TOKEN, a database with no live token gets one generated token, once', async () => {
    const fresh = await createTestContext({ STAFF_TOKEN: '' });
    try {
      // createTestContext ran ensureStaffToken once already
      const rows = await fresh.deps.db.selectFrom('staff_tokens').select(['kind', 'name', 'scope', 'revoked_at']).execute();
      expect(rows).toEqual([{ kind: 'bootstrap', name: 'generated at first start', scope: 'admin', revoked_at: null }]);
      expect(await ensureStaffToken(fresh.deps)).toBeNull();
      await fresh.deps.db.updateTable('staff_tokens').set({ revoked_at: new Date() }).execute();
      const token = await ensureStaffToken(fresh.deps);
      expect(token).toMatch(/^dls_[A-Za-z0-9]{40}$/);
      const res = await fresh.app.inject({ method: 'GET', url: `${STAFF_PREFIX}/staff-tokens`, headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });

  it('refuses to revoke the last live admin token', async () => {
    // Revoke every named token, then try the last one, STAFF_TOKEN set elsewhere (no configured token here).
    const unconfigured = { ...ctx.deps, config: { ...ctx.deps.config, staffToken: null } };
    const app = await buildApp(unconfigured);
    await app.ready();
    try {
      const list = (await as(STAFF_TOKEN, 'GET', '/staff-tokens', undefined, app)).json().data as Array<{ id: number; kind: string }>;
      for (const t of list.filter((t) => t.kind === 'named'))
        expect((await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${t.id}`, undefined, app)).statusCode).toBe(200);
      const [last] = (await as(STAFF_TOKEN, 'GET', '/staff-tokens', undefined, app)).json().data as Array<{ id: number }>;
      const res = await as(STAFF_TOKEN, 'DELETE', `/staff-tokens/${last.id}`, undefined, app);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual(failure('LAST_STAFF_TOKEN'));
      expect((await as(STAFF_TOKEN, 'GET', '/staff-tokens', undefined, app)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
