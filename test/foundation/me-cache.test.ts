import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writtenTables } from '../../src/db/changes.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createTestContext, databaseUrl, type TestContext } from '../helpers/context.js';
import { createOk } from '../properties/fixtures.js';

let ctx: TestContext;
/** A second handle on the same tables: writes of "another process", unseen by ctx's counters. */
let other: Database;

beforeAll(async () => {
  ctx = await createTestContext();
  const shared = (globalThis as unknown as { __pglite?: Promise<PGlite> }).__pglite;
  other = await openDatabase({ url: databaseUrl, dataDir: '', schema: ctx.schema, pglite: databaseUrl ? undefined : await shared });
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

describe('table change counters', () => {
  it('finds the tables a statement writes', () => {
    expect(writtenTables('insert into "events" ("a") values ($1)')).toEqual(['events']);
    expect(writtenTables('with b as (insert into "bookings" (x) values ($1) returning id) insert into unit_nights select 1')).toEqual(['bookings', 'unit_nights']);
    expect(writtenTables('update "integrations" set "last_sequence" = last_sequence + $1 where "id" = $2')).toEqual(['integrations']);
    expect(writtenTables('DELETE FROM "t_1"."coverage" where x = $1')).toEqual(['coverage']);
    expect(writtenTables('select * from "integrations" where id = $1')).toEqual([]);
  });

  it('move at commit inside a transaction, at once outside one, and not for other tables', async () => {
    const changes = ctx.deps.state.changes;
    const v0 = changes.version(['brands']);
    await ctx.deps.db.transaction().execute(async (trx) => {
      await trx.insertInto('brands').values({ name: 'In a transaction', plan_active: true, created_at: new Date(), updated_at: new Date() }).execute();
      expect(changes.version(['brands'])).toBe(v0); // not visible to anyone else yet
    });
    expect(changes.version(['brands'])).toBe(v0 + 1);

    await expect(
      ctx.deps.db.transaction().execute(async (trx) => {
        await trx.insertInto('brands').values({ name: 'Rolled back', plan_active: true, created_at: new Date(), updated_at: new Date() }).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(changes.version(['brands'])).toBe(v0 + 2);

    await ctx.deps.db.insertInto('brands').values({ name: 'Alone', plan_active: true, created_at: new Date(), updated_at: new Date() }).execute();
    expect(changes.version(['brands'])).toBe(v0 + 3);
    const events = changes.version(['events']);
    await ctx.deps.db.updateTable('brands').set({ name: 'Renamed' }).where('name', '=', 'Alone').execute();
    expect(changes.version(['events'])).toBe(events);
  });
});

describe('GET /me cache', () => {
  it('shows every write of this process at once', async () => {
    const integration = await ctx.createIntegration();
    expect((await me(integration.apiKey)).covered_properties).toBe(0);
    await createOk(ctx, integration);
    const after = await me(integration.apiKey);
    expect(after.covered_properties).toBe(1);
    expect(after.webhook.last_sequence).toBeGreaterThan(0);
    expect(after.webhook.undelivered_events).toBe(after.webhook.last_sequence);

    await ctx.staff('PATCH', `/integrations/${integration.id}`, { name: 'Renamed', webhook: { event_types: ['booking.changed'] } });
    const renamed = await me(integration.apiKey);
    expect(renamed.name).toBe('Renamed');
    expect(renamed.webhook.event_types).toEqual(['booking.changed']);
  });

  it('serves a cached view: a write by another process shows only after its bound (PostgreSQL) or the next local write', async () => {
    const integration = await ctx.createIntegration({ name: 'Before' });
    expect((await me(integration.apiKey)).name).toBe('Before');
    await other.db.updateTable('integrations').set({ name: 'Elsewhere' }).where('id', '=', integration.id).execute();
    expect((await me(integration.apiKey)).name).toBe('Before');

    if (ctx.deps.engine === 'postgres') {
      await ctx.advanceClock(2); // past the 1 s bound for writes of other processes
    } else {
      await ctx.deps.db.updateTable('integrations').set({ updated_at: new Date() }).where('id', '=', integration.id).execute();
    }
    expect((await me(integration.apiKey)).name).toBe('Elsewhere');
  });
});
