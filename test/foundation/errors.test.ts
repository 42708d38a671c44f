import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';

let ctx: TestContext;
let integration: TestIntegration;

beforeAll(async () => {
  ctx = await createTestContext();
  integration = await ctx.createIntegration();
});
afterAll(() => ctx.close());

describe('error envelope', () => {
  it('401 UNAUTHENTICATED without a key, with a malformed header and with an unknown key', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer dlk_nope' },
      { authorization: `Bearer ${integration.apiKey}x` },
    ];
    for (const headers of variants) {
      const res = await ctx.api(null, 'GET', '/me', undefined, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(failure('UNAUTHENTICATED'));
    }
  });

  it('accepts the bearer scheme in any letter case (RFC 9110)', async () => {
    const res = await ctx.api(null, 'GET', '/me', undefined, { authorization: `bearer ${integration.apiKey}` });
    expect(res.statusCode).toBe(200);
  });

  it('401 for a key passed as a query parameter (one scheme only)', async () => {
    const res = await ctx.api(null, 'GET', `/me?api_key=${integration.apiKey}`);
    expect(res.statusCode).toBe(401);
  });

  it('403 NOT_INTEGRATION_TOKEN for a staff token on the integrations API', async () => {
    const res = await ctx.api('dls_TestStaffToken00000000000000000000000000', 'GET', '/me');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(failure('NOT_INTEGRATION_TOKEN'));
  });

  it('403 NOT_STAFF_TOKEN for an integration key on the staff API', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/staff/v1/integrations/${integration.id}`,
      headers: { authorization: `Bearer ${integration.apiKey}` },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(failure('NOT_STAFF_TOKEN'));
  });

  it('404 NOT_FOUND for unknown routes, inside and outside the prefixes', async () => {
    for (const url of ['/nope', '/api/integrations/v1/nope', '/api/staff/v1/nope']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${integration.apiKey}` } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual(failure('NOT_FOUND'));
    }
  });

  it('405 METHOD_NOT_ALLOWED with Allow for a known path and a wrong method', async () => {
    const res = await ctx.api(integration.apiKey, 'DELETE', '/me');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.json()).toEqual(failure('METHOD_NOT_ALLOWED'));
  });

  it('400 INVALID_JSON for a body that does not parse, and for prototype poisoning', async () => {
    for (const body of ['{"name":', '{"name": "x",}', '{"__proto__": {"admin": true}, "name": "x"}']) {
      const res = await ctx.staff('POST', '/brands', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(failure('INVALID_JSON'));
    }
  });

  it('413 PAYLOAD_TOO_LARGE above 1 MiB', async () => {
    const res = await ctx.staff('POST', '/brands', JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual(failure('PAYLOAD_TOO_LARGE'));
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await ctx.staff('POST', '/brands', 'name=x', { 'content-type': type });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toEqual(failure('UNSUPPORTED_MEDIA_TYPE'));
    }
  });

  it('422 VALIDATION_FAILED with dotted keys and arrays of messages', async () => {
    const res = await ctx.staff('POST', '/integrations', {
      brand_id: 'one',
      name: '',
      webhook: { timeout_seconds: 31, event_types: ['nope'] },
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toMatchObject(failure('VALIDATION_FAILED'));
    expect(Object.keys(body.errors).sort()).toEqual(['brand_id', 'name', 'webhook.event_types.0', 'webhook.timeout_seconds']);
    for (const messages of Object.values(body.errors)) {
      expect(Array.isArray(messages)).toBe(true);
      expect((messages as string[]).every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
    }
    expect(body.errors['webhook.event_types.0'][0]).toContain('booking.changed');
  });

  it('422 names a missing required field by its path', async () => {
    const res = await ctx.staff('POST', '/integrations', { name: 'x' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual({ brand_id: ['is required'] });
  });

  it('500 INTERNAL_ERROR leaks nothing', async () => {
    const app = await buildApp(ctx.deps);
    app.get('/boom', async () => {
      throw new Error('secret detail: password=hunter2');
    });
    const res = await app.inject({ method: 'GET', url: '/boom' });
    await app.close();
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual(failure('INTERNAL_ERROR'));
    expect(res.body).not.toContain('hunter2');
  });

  it('X-Request-Id on every response, echoing a well-formed client id', async () => {
    const echoed = await ctx.api(integration.apiKey, 'GET', '/me', undefined, { 'x-request-id': 'abc-123' });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await ctx.api(null, 'GET', '/me');
    expect(generated.headers['x-request-id']).toMatch(/^req-/);
    const hostile = await ctx.api(null, 'GET', '/me', undefined, { 'x-request-id': 'bad id\twith spaces' });
    expect(hostile.headers['x-request-id']).toMatch(/^req-/);
  });

  it('health and readiness answer outside the prefixes without a key', async () => {
    const health = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    const ready = await ctx.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data.status).toBe('ready');
  });
});
