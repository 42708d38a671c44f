import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createTestContext, databaseUrl, poolMode, type TestContext } from '../helpers/context.js';
import { createOk } from '../properties/fixtures.js';

let ctx: TestContext;
/** A second handle on the same tables: writes of "another process", unseen by ctx's counters. */
let other: Database;

beforeAll(async () => {
  ctx = await createTestContext();
  const shared = (globalThis as unknown as { __pglite?: Promise<PGlite> }).__pglite;
  other = await openDatabase({ url: databaseUrl, dataDir: '', schema: ctx.schema, pglite: databaseUrl ? undefined : await shared, poolMode });
});
afterAll(async () => {
  await other.close();
  await ctx.close();
});

const me = async (apiKey: string) => {
  const res = await ctx.api(apiKey, 'GET', '/me');
  expect(res.statusCode).toBe(200);
  return res.json().data;
};

describe('table change notes', () => {
  it('a noted write moves the version of its tables, and of no other', () => {
    const changes = ctx.deps.state.changes;
    const brands = changes.version(['brands']);
    const events = changes.version(['events']);
    changes.wrote(['brands']);
    expect(changes.version(['brands'])).toBe(brands + 1);
    expect(changes.version(['events'])).toBe(events);
    expect(changes.version(['brands', 'events'])).toBe(brands + events + 1);
  });
});

describe('GET /me cache', () => {
  it('shows every write of this process at once', async () => {
    const integration = await ctx.createIntegration();
    expect((await me(integration.apiKey)).covered_properties).toBe(0);
    const created = await createOk(ctx, integration);
    const after = await me(integration.apiKey);
    expect(after.covered_properties).toBe(1);
    expect(after.webhook.last_sequence).toBeGreaterThan(0);
    expect(after.webhook.undelivered_events).toBe(after.webhook.last_sequence);

    await ctx.staff('PATCH', `/integrations/${integration.id}`, { name: 'Renamed', webhook: { event_types: ['booking.changed'] } });
    const renamed = await me(integration.apiKey);
    expect(renamed.name).toBe('Renamed');
    expect(renamed.webhook.event_types).toEqual(['booking.changed']);

    // coverage changes by staff, each shown at once
    expect((await ctx.staff('DELETE', `/integrations/${integration.id}/coverage/${created.doorloom_id}`)).statusCode).toBe(200);
    expect((await me(integration.apiKey)).covered_properties).toBe(0);
    expect((await ctx.staff('PUT', `/integrations/${integration.id}/coverage/${created.doorloom_id}`, {})).statusCode).toBe(201);
    expect((await me(integration.apiKey)).covered_properties).toBe(1);
  });

  it('serves a cached view: a write by another process shows only after its bound (PostgreSQL) or the next local write', async () => {
    const integration = await ctx.createIntegration({ name: 'Before' });
    expect((await me(integration.apiKey)).name).toBe('Before');
    await other.db.updateTable('integrations').set({ name: 'Elsewhere' }).where('id', '=', integration.id).execute();
    expect((await me(integration.apiKey)).name).toBe('Before');

    if (ctx.deps.engine === 'postgres') {
      await ctx.advanceClock(2); // past the 1 s bound for writes of other processes
    } else {
      await ctx.staff('PATCH', `/integrations/${integration.id}`, { horizon_days: 200 });
    }
    expect((await me(integration.apiKey)).name).toBe('Elsewhere');
  });
});
