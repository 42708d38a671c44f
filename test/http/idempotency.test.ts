import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, buildApp } from '../../src/app.js';
import { integrationAuth } from '../../src/modules/integrations/integrations.auth.js';
import { claimIdempotencyKey, canonicalJson, idempotent, requestFingerprint } from '../../src/http/idempotency.js';
import { AppError } from '../../src/http/errors.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { countProperties, create, createBody, newKey } from '../properties/fixtures.js';

let ctx: TestContext;
let probe: FastifyInstance;
/** What the probe route does next; each call records itself. */
const probeState = {
  calls: 0,
  gate: null as Promise<void> | null,
  fail: false,
};

beforeAll(async () => {
  ctx = await createTestContext();
  // The real app plus one idempotent probe route whose handler the tests control, to reach the
  // states a real create passes through too quickly (in progress, crashed, failed with a 5xx).
  probe = await buildApp(ctx.deps);
  await probe.register(
    async (api) => {
      api.addHook('onRequest', integrationAuth(ctx.deps));
      // a route of this test only: hidden, as the document describes the service's own routes
      api.post('/probe', { ...idempotent(ctx.deps), schema: { hide: true } }, async (request, reply) => {
        const call = ++probeState.calls;
        if (probeState.gate) await probeState.gate;
        if (probeState.fail) throw new Error('boom');
        if ((request.body as { refuse?: boolean } | undefined)?.refuse) throw new AppError('UNAVAILABLE', 'Refused.');
        return reply.code(201).header('content-type', 'application/vnd.probe+json').send(`{ "call" : ${call} }`);
      });
    },
    { prefix: `${API_PREFIX}/test` },
  );
  await probe.ready();
});
afterAll(async () => {
  await probe?.close();
  await ctx.close();
});

const callProbe = (integration: TestIntegration, body: unknown, key: string) =>
  probe.inject({
    method: 'POST',
    url: `${API_PREFIX}/test/probe`,
    headers: { authorization: `Bearer ${integration.apiKey}`, 'content-type': 'application/json', 'idempotency-key': key },
    payload: JSON.stringify(body),
  });

/** A gate the probe handler waits on until opened. */
function closeGate() {
  let open!: () => void;
  probeState.gate = new Promise<void>((resolve) => (open = resolve));
  return () => {
    probeState.gate = null;
    open();
  };
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

describe('Idempotency-Key header', () => {
  it('is required on create, 8 to 128 visible ASCII characters', async () => {
    const a = await ctx.createIntegration();
    const bad: Array<Record<string, string>> = [
      {},
      { 'idempotency-key': '1234567' },
      { 'idempotency-key': 'k'.repeat(129) },
      { 'idempotency-key': 'has space 123' },
      { 'idempotency-key': 'ключ-12345678' },
    ];
    for (const headers of bad) {
      const res = await ctx.api(a.apiKey, 'POST', '/properties', createBody(), headers);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
    }
    const bulk = await ctx.api(a.apiKey, 'POST', '/properties/bulk', { properties: [createBody()] });
    expect(bulk.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
    expect(await countProperties(ctx, a.brandId)).toBe(0);

    expect((await create(ctx, a, createBody(), '12345678')).statusCode).toBe(201);
    expect((await create(ctx, a, createBody(), `~${'k'.repeat(126)}!`)).statusCode).toBe(201);
    expect(await countProperties(ctx, a.brandId)).toBe(2);
  });
});

describe('replay', () => {
  it('repeats status, Content-Type and body bytes with Idempotent-Replayed, creating nothing', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const first = await create(ctx, a, createBody(), key);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await create(ctx, a, createBody(), key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(await countProperties(ctx, a.brandId)).toBe(1);
  });

  it('ignores key order at every depth', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const body = createBody({ features: { is_veg: true, is_private: false } });
    const reordered = Object.fromEntries(
      Object.entries(body)
        .reverse()
        .map(([k, v]) => [k, v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse()) : v]),
    );
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(body));
    expect(canonicalJson(reordered)).toBe(canonicalJson(body));
    const first = await create(ctx, a, body, key);
    const again = await create(ctx, a, reordered, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it('replays byte for byte whatever the handler sent (status, Content-Type, spacing)', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const first = await callProbe(a, { n: 1 }, key);
    expect(first.statusCode).toBe(201);
    expect(first.body).toBe(`{ "call" : ${probeState.calls} }`);
    const again = await callProbe(a, { n: 1 }, key);
    expect(again.statusCode).toBe(201);
    expect(first.headers['content-type']).toMatch(/^application\/vnd.probe\+json/);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});

describe('key reuse', () => {
  it('refuses a different body under a used key, and the same key on another create endpoint', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    expect((await create(ctx, a, createBody(), key)).statusCode).toBe(201);
    const other = await create(ctx, a, createBody({ name: 'Another' }), key);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    const bulk = await ctx.api(a.apiKey, 'POST', '/properties/bulk', createBody(), { 'idempotency-key': key });
    expect(bulk.statusCode).toBe(422);
    expect(bulk.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    const probed = await callProbe(a, createBody(), key);
    expect(probed.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    expect(await countProperties(ctx, a.brandId)).toBe(1);
  });

  it('is scoped to the integration: another integration may use the same key', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const key = newKey();
    const first = await create(ctx, a, createBody(), key);
    const theirs = await create(ctx, b, createBody(), key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().data.doorloom_id).not.toBe(first.json().data.doorloom_id);
  });
});

describe('stored refusals', () => {
  it('replays a 409 PROPERTY_EXTERNAL_ID_EXISTS even after the id was freed', async () => {
    const a = await ctx.createIntegration();
    const holder = (await create(ctx, a, createBody({ external_id: 'DUP-1' }))).json().data;
    const key = newKey();
    const refused = await create(ctx, a, createBody({ external_id: 'DUP-1', name: 'Second' }), key);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ ...failure('PROPERTY_EXTERNAL_ID_EXISTS'), errors: { doorloom_id: holder.doorloom_id } });
    // The holder moves to another id: the stored refusal still answers the same key.
    expect((await ctx.api(a.apiKey, 'PUT', `/properties/${holder.doorloom_id}`, { external_id: 'DUP-1-old' })).statusCode).toBe(200);
    const again = await create(ctx, a, createBody({ external_id: 'DUP-1', name: 'Second' }), key);
    expect(again.statusCode).toBe(409);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
    expect(await countProperties(ctx, a.brandId)).toBe(1);
  });

  it('stores a 422 VALIDATION_FAILED: a corrected body needs a new key', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const invalid = createBody({ name: '' });
    const refused = await create(ctx, a, invalid, key);
    expect(refused.json()).toMatchObject(failure('VALIDATION_FAILED'));
    const again = await create(ctx, a, invalid, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
    expect((await create(ctx, a, createBody(), key)).json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
  });

  it('stores any 4xx the handler throws', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const calls = probeState.calls;
    const refused = await callProbe(a, { refuse: true }, key);
    expect(refused.statusCode).toBe(409);
    const again = await callProbe(a, { refuse: true }, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
    expect(probeState.calls).toBe(calls + 1);
  });

  it('does not store a 5xx: the retry runs again', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    probeState.fail = true;
    const failed = await callProbe(a, { n: 5 }, key);
    probeState.fail = false;
    expect(failed.statusCode).toBe(500);
    const calls = probeState.calls;
    const retried = await callProbe(a, { n: 5 }, key);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(probeState.calls).toBe(calls + 1);
  });
});

describe('in progress', () => {
  it('answers 409 IN_PROGRESS to an identical request while the first runs, then replays', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const open = closeGate();
    const calls = probeState.calls;
    const first = callProbe(a, { n: 2 }, key);
    await until(() => probeState.calls === calls + 1);
    const second = await callProbe(a, { n: 2 }, key);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject(failure('IN_PROGRESS'));
    const different = await callProbe(a, { n: 3 }, key);
    expect(different.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    open();
    expect((await first).statusCode).toBe(201);
    const third = await callProbe(a, { n: 2 }, key);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body).toBe((await first).body);
    expect(probeState.calls).toBe(calls + 1);
  });

  it('lets a request take over a record left in progress for 60 seconds', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const open = closeGate();
    const calls = probeState.calls;
    const crashed = callProbe(a, { n: 4 }, key); // stands for a request whose process died
    await until(() => probeState.calls === calls + 1);
    await ctx.advanceClock(59);
    expect((await callProbe(a, { n: 4 }, key)).json()).toMatchObject(failure('IN_PROGRESS'));
    await ctx.advanceClock(2);
    probeState.gate = null; // the take-over runs straight through
    const takeover = await callProbe(a, { n: 4 }, key);
    expect(takeover.statusCode).toBe(201);
    expect(takeover.body).toBe(`{ "call" : ${calls + 2} }`);
    // The abandoned request finishing late stores nothing over the new owner's answer.
    open();
    await crashed;
    const replay = await callProbe(a, { n: 4 }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(takeover.body);
  });

  it('lets exactly one of many simultaneous claims win (the database decides, not the process)', async () => {
    const a = await ctx.createIntegration();
    const input = {
      integrationId: a.id,
      key: newKey(),
      method: 'POST',
      path: '/x',
      fingerprint: requestFingerprint('POST', '/x', { a: 1 }),
      nowMs: ctx.deps.clock.nowMs(),
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => claimIdempotencyKey(ctx.deps.db, ctx.deps.state.idempotency, input)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ status: 409, code: 'IN_PROGRESS' });
  });

  it('creates once when two identical creates race', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    const [r1, r2] = await Promise.all([create(ctx, a, createBody(), key), create(ctx, a, createBody(), key)]);
    const original = [r1, r2].filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(original).toHaveLength(1);
    const other = original[0] === r1 ? r2 : r1;
    if (other.statusCode === 409) expect(other.json()).toMatchObject(failure('IN_PROGRESS'));
    else expect([other.statusCode, other.headers['idempotent-replayed'], other.body]).toEqual([201, 'true', original[0].body]);
    expect(await countProperties(ctx, a.brandId)).toBe(1);
  });
});

describe('expiry', () => {
  it('remembers a key for 24 hours on the service clock, then forgets it', async () => {
    const a = await ctx.createIntegration();
    const key = newKey();
    expect((await create(ctx, a, createBody(), key)).statusCode).toBe(201);
    await ctx.advanceClock(24 * 3600 - 5);
    expect((await create(ctx, a, createBody({ name: 'Later' }), key)).json()).toMatchObject(failure('IDEMPOTENCY_KEY_REUSED'));
    await ctx.advanceClock(10);
    const reused = await create(ctx, a, createBody({ name: 'Later' }), key);
    expect(reused.statusCode).toBe(201);
    expect(reused.json().data.name).toBe('Later');
    expect(await countProperties(ctx, a.brandId)).toBe(2);
  });
});
