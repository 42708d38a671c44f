import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintainOnce, startMaintenance } from '../../src/db/maintenance.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

const tableBytes = async (table: string) =>
  Number((await sql<{ n: string }>`select pg_table_size(${sql.lit(table)})::text as n`.execute(ctx.deps.db)).rows[0].n);

describe('embedded engine maintenance', () => {
  it('vacuums a table that rows were updated in, so repeated updates reuse its space', async () => {
    await sql`create table maintained (id int primary key, v text not null)`.execute(ctx.deps.db);
    await sql`insert into maintained select g, repeat('x', 200) from generate_series(1, 2000) g`.execute(ctx.deps.db);
    if (ctx.deps.engine === 'pglite') {
      const steps = [];
      // 20 full updates, a maintenance round after each (as the loop would every 30 s)
      for (let i = 0; i < 20; i++) {
        await sql`update maintained set v = v || ''`.execute(ctx.deps.db);
        steps.push(...(await maintainOnce(ctx.deps.db)));
      }
      expect(steps.filter((s) => s.table === 'maintained' && s.action.startsWith('vacuum')).length).toBeGreaterThanOrEqual(15);
      // two versions of each row at most: the table's size stays near twice the data, where
      // without VACUUM 20 updates leave 21 versions
      const rowBytes = 2000 * 240;
      expect(await tableBytes('maintained')).toBeLessThan(rowBytes * 3);
    } else {
      // PostgreSQL runs autovacuum and its checkpointer: the loop starts nothing there
      const loop = startMaintenance(ctx.deps, 10);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await loop.stop();
      await sql`update maintained set v = v || ''`.execute(ctx.deps.db);
      expect(await tableBytes('maintained')).toBeGreaterThan(0);
    }
  });

  it('analyzes a small table once more than 50 + 10 % of its rows changed, so its plans see its size', async () => {
    if (ctx.deps.engine !== 'pglite') return expect(ctx.deps.engine).toBe('postgres');
    await sql`create table small (id int primary key)`.execute(ctx.deps.db);
    await sql`insert into small select generate_series(1, 40)`.execute(ctx.deps.db);
    expect((await maintainOnce(ctx.deps.db)).some((s) => s.table === 'small')).toBe(false);
    await sql`insert into small select generate_series(41, 120)`.execute(ctx.deps.db);
    const steps = await maintainOnce(ctx.deps.db);
    expect(steps.find((s) => s.table === 'small')?.action).toBe('analyze');
    const stats = await sql<{ n: number }>`select reltuples::int as n from pg_class where oid = 'small'::regclass`.execute(ctx.deps.db);
    expect(stats.rows[0].n).toBe(120);
  });

  it('checkpoints once enough WAL was written since the last checkpoint', async () => {
    if (ctx.deps.engine !== 'pglite') return expect(ctx.deps.engine).toBe('postgres');
    await maintainOnce(ctx.deps.db);
    // about 40 MB of WAL: rows of 4 KB, inserted and deleted
    await sql`create table churn (id int primary key, v text not null)`.execute(ctx.deps.db);
    // stored as is: compressed, the repeated text would write next to no WAL
    await sql`alter table churn alter column v set storage plain`.execute(ctx.deps.db);
    for (let i = 0; i < 4; i++) {
      await sql`insert into churn select g, repeat(md5(g::text), 128) from generate_series(1, 2500) g`.execute(ctx.deps.db);
      await sql`delete from churn`.execute(ctx.deps.db);
    }
    const steps = await maintainOnce(ctx.deps.db);
    const checkpoint = steps.find((s) => s.action === 'checkpoint');
    expect(checkpoint?.trigger).toBeGreaterThanOrEqual(16 * 2 ** 20);
    expect((await maintainOnce(ctx.deps.db)).some((s) => s.action === 'checkpoint')).toBe(false);
    // pg_wal keeps two 16 MB segments (min_wal_size = max_wal_size = 32 MB), not the four the
    // defaults kept after the same churn
    const wal = await sql<{ n: number }>`select count(*)::int as n from pg_ls_waldir()`.execute(ctx.deps.db);
    expect(wal.rows[0].n).toBeLessThanOrEqual(2);
  });
});
