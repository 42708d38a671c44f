import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createOk } from '../properties/fixtures.js';
import { deliveryRows, eventually, recordEvents } from '../webhooks/helpers.js';

describe('staff listings', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  let brandA: number;
  let brandB: number;
  let healthy: TestIntegration;
  let failing: TestIntegration;
  let quiet: TestIntegration;

  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver((r) => (r.integration === failing.slug ? { status: 503, body: 'down for maintenance' } : { status: 200, body: 'ok' }));
    brandA = await ctx.createBrand('Alpha Stays');
    brandB = await ctx.createBrand('Beta 100% Homes');
    healthy = await ctx.createIntegration({ brandId: brandA, name: 'Healthy Channel', webhook: { url: `${receiver.url}/healthy` } });
    failing = await ctx.createIntegration({ brandId: brandA, name: 'Failing Channel', webhook: { url: `${receiver.url}/failing` } });
    quiet = await ctx.createIntegration({ brandId: brandB, name: 'Quiet_Channel' });
    worker = startDeliveryWorker(ctx.deps, { pollMs: 50 });
    await createOk(ctx, healthy);
    await recordEvents(ctx, failing.id, 3);
    await recordEvents(ctx, quiet.id, 2);
    await receiver.waitFor((rs) => rs.some((r) => r.integration === failing.slug), 10_000, 'a failed attempt');
    await eventually(
      async () => {
        const pending = await deliveryRows(ctx.deps.db, healthy.id, 'pending');
        return pending.length === 0;
      },
      10_000,
      'the healthy integration drained',
    );
    await eventually(
      async () => {
        const row = await ctx.deps.db
          .selectFrom('webhook_delivery_state')
          .select('consecutive_failures')
          .where('integration_id', '=', failing.id)
          .executeTakeFirstOrThrow();
        return row.consecutive_failures >= 1;
      },
      10_000,
      'the failure recorded',
    );
    // Frozen from here: the clock moves below, and the retry it makes due must not run.
    await worker.stop();
  });

  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await ctx?.close();
  });

  it('lists brands with their counts, paged and filtered by name', async () => {
    const res = await ctx.staff('GET', '/brands?per_page=1');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toEqual({ page: 1, per_page: 1, total: 2, last_page: 2 });
    expect(body.data).toEqual([
      {
        id: brandA,
        name: 'Alpha Stays',
        plan: { active: true },
        sandbox: false,
        integrations: 2,
        properties: 1,
        created_at: expect.stringMatching(/\+05:30$/),
      },
    ]);
    // LIKE wildcards in the text are matched literally
    const filtered = (await ctx.staff('GET', `/brands?q=${encodeURIComponent('100%')}`)).json();
    expect(filtered.data.map((b: { id: number }) => b.id)).toEqual([brandB]);
    expect((await ctx.staff('GET', '/brands?q=_')).json().data).toEqual([]);
  });

  it('lists integrations with health, backlog and coverage', async () => {
    const res = await ctx.staff('GET', '/integrations');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toEqual({ page: 1, per_page: 50, total: 3, last_page: 1 });
    const byId = new Map(body.data.map((r: { id: number }) => [r.id, r]));
    expect(byId.get(healthy.id)).toMatchObject({
      slug: healthy.slug,
      brand: { id: brandA, name: 'Alpha Stays' },
      status: 'active',
      consecutive_failures: 0,
      undelivered_events: 0,
      oldest_undelivered_at: null,
      oldest_undelivered_age_seconds: null,
      covered_properties: 1,
      last_success_at: expect.stringMatching(/\+05:30$/),
    });
    expect((byId.get(healthy.id) as { last_sequence: number }).last_sequence).toBeGreaterThan(3);
    expect(byId.get(failing.id)).toMatchObject({
      status: 'active',
      consecutive_failures: 1,
      last_failure_at: expect.stringMatching(/\+05:30$/),
      last_sequence: 3,
      undelivered_events: 3,
      oldest_undelivered_at: expect.stringMatching(/\+05:30$/),
      covered_properties: 0,
    });
    expect(byId.get(quiet.id)).toMatchObject({ undelivered_events: 2, webhook_url: null, brand: { id: brandB } });

    await ctx.advanceClock(600);
    const later = (await ctx.staff('GET', `/integrations?q=quiet`)).json();
    expect(later.data).toHaveLength(1);
    expect(later.data[0].oldest_undelivered_age_seconds).toBeGreaterThanOrEqual(600);
  });

  it('filters integrations by status, paused, brand and text', async () => {
    const ids = async (query: string) => {
      const res = await ctx.staff('GET', `/integrations?${query}`);
      expect(res.statusCode).toBe(200);
      return res.json().data.map((r: { id: number }) => r.id);
    };
    expect(await ids(`brand_id=${brandB}`)).toEqual([quiet.id]);
    expect(await ids('q=CHANNEL&per_page=2&page=2')).toEqual([quiet.id]);
    expect(await ids(`q=${failing.slug}`)).toEqual([failing.id]);
    expect(await ids('q=_')).toEqual([quiet.id]); // only Quiet_Channel has an underscore; slugs have none
    expect(await ids('paused=true')).toEqual([]);
    expect(await ids('paused=false')).toEqual([healthy.id, failing.id, quiet.id]);

    await ctx.staff('PATCH', `/integrations/${quiet.id}`, { status: 'disabled' });
    expect(await ids('status=disabled')).toEqual([quiet.id]);
    await ctx.deps.db.updateTable('integrations').set({ status: 'paused' }).where('id', '=', failing.id).execute();
    await ctx.deps.db
      .updateTable('webhook_delivery_state')
      .set({ paused_reason: 'delivery_failures', paused_at: ctx.deps.clock.now() })
      .where('integration_id', '=', failing.id)
      .execute();
    expect(await ids('paused=true')).toEqual([failing.id]);
    const row = (await ctx.staff('GET', '/integrations?status=paused')).json().data[0];
    expect(row).toMatchObject({ id: failing.id, status: 'paused', paused_reason: 'delivery_failures', paused_at: expect.stringMatching(/\+05:30$/) });
  });

  it('refuses bad filters with 422 in the envelope', async () => {
    for (const query of ['status=broken', 'paused=maybe', 'brand_id=0', 'per_page=201', 'page=0', 'q=']) {
      const res = await ctx.staff('GET', `/integrations?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
    }
  });

  it("shows an integration's events with their delivery state", async () => {
    const res = await ctx.staff('GET', `/integrations/${failing.id}/events?limit=2`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.cursor).toEqual({ next_after_sequence: 2, has_more: true });
    expect(body.data[0]).toMatchObject({
      sequence: 1,
      type: 'availability.changed',
      origin: 'doorloom',
      created_at: expect.stringMatching(/\+05:30$/),
      delivery: { status: 'pending', attempts: 1, delivered_at: null, last_attempt: { status_code: 503, error: null } },
    });
    expect(body.data[1].delivery).toMatchObject({ status: 'pending', attempts: 0, last_attempt: null });
    const rest = (await ctx.staff('GET', `/integrations/${failing.id}/events?after_sequence=2`)).json();
    expect(rest.data.map((e: { sequence: number }) => e.sequence)).toEqual([3]);
    expect(rest.cursor).toEqual({ next_after_sequence: 3, has_more: false });

    const delivered = (await ctx.staff('GET', `/integrations/${healthy.id}/events?delivery_status=delivered&limit=1`)).json();
    expect(delivered.data[0].delivery).toMatchObject({ status: 'delivered', delivered_at: expect.stringMatching(/\+05:30$/) });
    expect((await ctx.staff('GET', `/integrations/${healthy.id}/events?delivery_status=pending`)).json().data).toEqual([]);

    expect((await ctx.staff('GET', '/integrations/999999/events')).statusCode).toBe(404);
    expect((await ctx.staff('GET', '/integrations/abc/events')).statusCode).toBe(404);
  });

  it('shows delivery attempts newest first, with the answer kept', async () => {
    const res = await ctx.staff('GET', `/integrations/${failing.id}/deliveries/recent?limit=1`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ success: false, status_code: 503, response_body: 'down for maintenance', event: { sequence: 1 } });
    const older = (await ctx.staff('GET', `/integrations/${healthy.id}/deliveries/recent?limit=200`)).json().data;
    expect(older.length).toBeGreaterThan(1);
    const ids = older.map((a: { id: number }) => a.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const second = (await ctx.staff('GET', `/integrations/${healthy.id}/deliveries/recent?limit=1&before=${ids[0]}`)).json();
    expect(second.data[0].id).toBe(ids[1]);
  });

  it('charts attempts per minute and the backlog', async () => {
    const res = await ctx.staff('GET', `/integrations/${failing.id}/delivery-stats?hours=1`);
    expect(res.statusCode).toBe(200);
    const stats = res.json().data;
    expect(stats.step_seconds).toBe(60);
    expect(stats.minute_starts).toHaveLength(60);
    expect(stats.success).toHaveLength(60);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // the clock moved 10 minutes on after the failure: it sits in the window, not at its end
    expect(sum(stats.failure)).toBe(1);
    expect(sum(stats.success)).toBe(0);
    expect(stats.backlog[stats.backlog.length - 1]).toBe(3);
    expect(stats.backlog[0]).toBe(0);

    const healthyStats = (await ctx.staff('GET', `/integrations/${healthy.id}/delivery-stats`)).json().data;
    expect(healthyStats.minute_starts).toHaveLength(24 * 60);
    expect(sum(healthyStats.failure)).toBe(0);
    const lastSequence = (await ctx.staff('GET', `/integrations/${healthy.id}`)).json().data.webhook.last_sequence;
    expect(sum(healthyStats.success)).toBe(lastSequence);
    expect(healthyStats.backlog.every((n: number) => n === 0)).toBe(true); // recorded and delivered in the same minute
    expect((await ctx.staff('GET', `/integrations/${healthy.id}/delivery-stats?hours=0`)).statusCode).toBe(422);
  });

  it('lists properties by brand and by covering integration', async () => {
    const byBrand = (await ctx.staff('GET', `/properties?brand_id=${brandA}`)).json();
    expect(byBrand.pagination.total).toBe(1);
    expect(byBrand.data[0]).toMatchObject({ brand_id: brandA, name: 'Sea Breeze Villa', status: 'active', covering_integrations: 1, external_id: null });
    const covered = (await ctx.staff('GET', `/properties?integration_id=${healthy.id}`)).json();
    expect(covered.data.map((p: { id: number }) => p.id)).toEqual([byBrand.data[0].id]);
    expect((await ctx.staff('GET', `/properties?integration_id=${failing.id}`)).json().data).toEqual([]);
    expect((await ctx.staff('GET', `/properties?brand_id=${brandB}`)).json().pagination).toMatchObject({ total: 0, last_page: 1 });
    expect((await ctx.staff('GET', '/properties?integration_id=x')).statusCode).toBe(422);
  });

  it('is staff-only', async () => {
    for (const path of ['/brands', '/integrations', `/integrations/${healthy.id}/events`, '/properties', `/integrations/${healthy.id}/delivery-stats`]) {
      const anonymous = await ctx.app.inject({ method: 'GET', url: `/api/staff/v1${path}` });
      expect(anonymous.statusCode, path).toBe(401);
      const partner = await ctx.app.inject({ method: 'GET', url: `/api/staff/v1${path}`, headers: { authorization: `Bearer ${healthy.apiKey}` } });
      expect(partner.statusCode, path).toBe(403);
      expect(partner.json()).toMatchObject(failure('NOT_STAFF_TOKEN'));
    }
  });
});
