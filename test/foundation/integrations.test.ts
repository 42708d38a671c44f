import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext } from '../helpers/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/;

describe('brands', () => {
  it('creates a brand with an active plan and switches the plan', async () => {
    const created = await ctx.staff('POST', '/brands', { name: 'Sunrise Stays' });
    expect(created.statusCode).toBe(201);
    const brand = created.json().data;
    expect(brand).toEqual({ id: expect.any(Number), name: 'Sunrise Stays', plan: { active: true }, sandbox: false });
    const off = await ctx.staff('PUT', `/brands/${brand.id}/plan`, { active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().data.plan.active).toBe(false);
    expect((await ctx.staff('PUT', '/brands/999999/plan', { active: true })).statusCode).toBe(404);
    expect((await ctx.staff('PUT', '/brands/abc/plan', { active: true })).statusCode).toBe(404);
  });
});

describe('integrations', () => {
  it('creates an integration and shows its credentials once', async () => {
    const brandId = await ctx.createBrand('Hill Homes');
    const res = await ctx.staff('POST', '/integrations', {
      brand_id: brandId,
      name: 'Acme PMS',
      webhook: { url: 'https://hooks.example.com/doorloom', event_types: ['booking.changed'], timeout_seconds: 5 },
    });
    expect(res.statusCode).toBe(201);
    const { integration, api_key, webhook_secret } = res.json().data;
    expect(api_key).toMatch(/^dlk_[A-Za-z0-9]{40}$/);
    expect(webhook_secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(integration).toMatchObject({
      slug: 'acme-pms',
      name: 'Acme PMS',
      status: 'active',
      brand: { id: brandId, name: 'Hill Homes' },
      api_version: '2026-09',
      horizon_days: 365,
      covered_properties: 0,
      webhook: { configured: true, url: 'https://hooks.example.com/doorloom', event_types: ['booking.changed'], last_sequence: 0, undelivered_events: 0 },
      delivery: { cursor_sequence: 0, next_attempt_at: null, attempts: 0 },
    });
    const read = await ctx.staff('GET', `/integrations/${integration.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(api_key);
    expect(read.body).not.toContain(webhook_secret);

    // the credentials are stored hashed and sealed, never as written
    const row = await ctx.deps.db.selectFrom('integrations').selectAll().where('id', '=', integration.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(api_key.slice(4));
    expect(JSON.stringify(row)).not.toContain(webhook_secret.slice(6));
    expect(ctx.deps.secrets.decrypt(row.webhook_secret_enc, integration.id)).toBe(webhook_secret);

    // a second integration with the same name gets the next free slug
    const again = await ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'Acme PMS' });
    expect(again.json().data.integration.slug).toBe('acme-pms-2');
    const taken = await ctx.staff('POST', '/integrations', { brand_id: brandId, name: 'X', slug: 'acme-pms' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject(failure('SLUG_EXISTS'));
  });

  it('refuses an unknown brand and a bad webhook URL', async () => {
    const noBrand = await ctx.staff('POST', '/integrations', { brand_id: 987654, name: 'x' });
    expect(noBrand.statusCode).toBe(422);
    expect(noBrand.json().errors).toHaveProperty('brand_id');
    const insecure = await createTestContext({ WEBHOOK_ALLOW_INSECURE: '0', WEBHOOK_ALLOW_PRIVATE: '0' });
    try {
      const brandId = await insecure.createBrand();
      for (const url of [
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://10.1.2.3/',
        'https://[::1]/',
        'https://169.254.169.254/latest',
        'https://localhost/x',
        'not a url',
      ]) {
        const res = await insecure.staff('POST', '/integrations', { brand_id: brandId, name: 'x', webhook: { url } });
        expect(res.statusCode, url).toBe(422);
        expect(res.json().errors).toHaveProperty(['webhook.url']);
      }
    } finally {
      await insecure.close();
    }
  });

  it('GET /me returns the Integration resource', async () => {
    const integration = await ctx.createIntegration({ name: 'Me Test' });
    const res = await ctx.api(integration.apiKey, 'GET', '/me');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(typeof body.message).toBe('string');
    expect(body.data).toEqual({
      id: integration.id,
      slug: integration.slug,
      name: 'Me Test',
      status: 'active',
      brand: { id: integration.brandId, name: 'Test Brand' },
      api_version: '2026-09',
      webhook: {
        configured: false,
        url: null,
        event_types: ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed'],
        timeout_seconds: 10,
        last_sequence: 0,
        undelivered_events: 0,
        consecutive_failures: 0,
        last_success_at: null,
        last_failure_at: null,
        paused_at: null,
        paused_reason: null,
      },
      horizon_days: 365,
      covered_properties: 0,
    });
  });

  it('PATCH changes name, webhook, horizon and status', async () => {
    const integration = await ctx.createIntegration();
    const res = await ctx.staff('PATCH', `/integrations/${integration.id}`, {
      name: 'Renamed',
      horizon_days: 120,
      webhook: { url: 'https://partner.example.com/in', event_types: ['rates.changed', 'availability.changed'], timeout_seconds: 30 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Renamed',
      horizon_days: 120,
      webhook: { configured: true, url: 'https://partner.example.com/in', event_types: ['rates.changed', 'availability.changed'], timeout_seconds: 30 },
    });
    const cleared = await ctx.staff('PATCH', `/integrations/${integration.id}`, { webhook: { url: null } });
    expect(cleared.json().data.webhook).toMatchObject({ configured: false, url: null });
    const bad = await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'paused', horizon_days: 0 });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json().errors).sort()).toEqual(['horizon_days', 'status']);
    expect((await ctx.staff('PATCH', '/integrations/424242', { name: 'x' })).statusCode).toBe(404);
  });

  it('disable answers 403 INTEGRATION_DISABLED on every call; re-enable restores', async () => {
    const integration = await ctx.createIntegration();
    await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'disabled' });
    for (const [method, path] of [['GET', '/me']] as const) {
      const res = await ctx.api(integration.apiKey, method, path);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
      expect(res.json()).toEqual(failure('INTEGRATION_DISABLED'));
    }
    const me = await ctx.staff('GET', `/integrations/${integration.id}`);
    expect(me.json().data.status).toBe('disabled');
    await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'active' });
    expect((await ctx.api(integration.apiKey, 'GET', '/me')).statusCode).toBe(200);
  });

  it('API key rotation stops the old key at once', async () => {
    const integration = await ctx.createIntegration();
    const res = await ctx.staff('POST', `/integrations/${integration.id}/api-key/rotate`);
    expect(res.statusCode).toBe(200);
    const { api_key } = res.json().data;
    expect(api_key).toMatch(/^dlk_/);
    expect(api_key).not.toBe(integration.apiKey);
    expect((await ctx.api(integration.apiKey, 'GET', '/me')).statusCode).toBe(401);
    expect((await ctx.api(api_key, 'GET', '/me')).statusCode).toBe(200);
    expect((await ctx.staff('POST', '/integrations/999999/api-key/rotate')).statusCode).toBe(404);
  });

  it('webhook secret rotation keeps the previous secret live for 24 hours; a second rotation ends it', async () => {
    const { liveWebhookSecrets } = await import('../../src/modules/integrations/integrations.service.js');
    const integration = await ctx.createIntegration();
    const readRow = () => ctx.deps.db.selectFrom('integrations').selectAll().where('id', '=', integration.id).executeTakeFirstOrThrow();
    expect(liveWebhookSecrets(ctx.deps, await readRow())).toEqual([integration.webhookSecret]);

    const first = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret;
    expect(first).toMatch(/^whsec_/);
    expect(liveWebhookSecrets(ctx.deps, await readRow())).toEqual([first, integration.webhookSecret]);

    await ctx.advanceClock(23 * 3600);
    expect(liveWebhookSecrets(ctx.deps, await readRow())).toEqual([first, integration.webhookSecret]);
    await ctx.advanceClock(3601);
    expect(liveWebhookSecrets(ctx.deps, await readRow())).toEqual([first]);

    const second = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret;
    const third = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret;
    // rotating twice: only the newest and the one it replaced are live; `first` ended at once
    expect(liveWebhookSecrets(ctx.deps, await readRow())).toEqual([third, second]);
  });
});

describe('test clock', () => {
  it('reads and moves the service clock forward', async () => {
    const before = (await ctx.staff('GET', '/clock')).json().data;
    expect(before.now).toMatch(TIMESTAMP);
    const moved = await ctx.staff('POST', '/clock', { advance_seconds: 86400 });
    expect(moved.statusCode).toBe(200);
    expect(moved.json().data.offset_seconds).toBe(before.offset_seconds + 86400);
    expect((await ctx.staff('POST', '/clock', { advance_seconds: -5 })).statusCode).toBe(422);
  });

  it('is 404 without TEST_CLOCK', async () => {
    const plain = await createTestContext({ TEST_CLOCK: '0' });
    try {
      expect((await plain.staff('GET', '/clock')).statusCode).toBe(404);
      expect((await plain.staff('POST', '/clock', { advance_seconds: 5 })).json()).toEqual(failure('NOT_FOUND'));
    } finally {
      await plain.close();
    }
  });
});
