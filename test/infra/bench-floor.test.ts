import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgbenchArgs, TARGETS_TABLE } from '../../bench/scenarios/floor.js';
import { bookingBody, integrationWithVilla, postBooking } from '../bookings/fixtures.js';
import { createTestContext, databaseUrl, transactionPooled, type TestContext } from '../helpers/context.js';

/**
 * The bench's floor (bench/floor/create.sql) stands for a booking create's own statements, kept in
 * step with the service by hand. This test makes one create through the service and one
 * transaction of the script, each on a property of its own, and compares what each added to every
 * table: a create that starts writing somewhere else, or more rows, fails it until the script
 * follows. PostgreSQL only (the script is pgbench's), and only where pgbench is installed.
 */
const hasPgbench = spawnSync('pgbench', ['--version']).status === 0;
const run = promisify(execFile);

let ctx: TestContext;
beforeAll(async () => {
  if (databaseUrl && hasPgbench) ctx = await createTestContext();
});
afterAll(() => ctx?.close());

/** Rows in every table of the context's schema. */
async function rowCounts(): Promise<Record<string, number>> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = ${ctx.schema} and table_type = 'BASE TABLE' order by table_name
  `.execute(ctx.deps.db);
  const counts: Record<string, number> = {};
  for (const { table_name } of rows) {
    const { rows: n } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)}`.execute(ctx.deps.db);
    counts[table_name] = n[0].n;
  }
  return counts;
}

const added = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.keys(after)
      .filter((t) => after[t] !== before[t])
      .map((t) => [t, after[t] - (before[t] ?? 0)]),
  );

// pgbench's prepared statements and its search_path option need a session: not through a transaction pooler.
describe.skipIf(!databaseUrl || !hasPgbench || transactionPooled)('the bench floor script', () => {
  it('adds to the same tables as a create through the service, as many rows', async () => {
    const service = await integrationWithVilla(ctx, 20);
    const floor = await integrationWithVilla(ctx, 20);
    // client 0 of pgbench books among slots 0–7: all of them the floor's property here
    await sql.raw(TARGETS_TABLE).execute(ctx.deps.db);
    await sql`
      insert into bench_floor_targets
      select s, ${floor.integ.id}, ${floor.villa.id}, ${floor.villa.externalId}, ${sql.val(floor.villa.unitIds)}::int[] from generate_series(0, 7) s
    `.execute(ctx.deps.db);

    const before = await rowCounts();
    const res = await postBooking(ctx, service.integ, bookingBody(ctx, service.villa));
    expect(res.statusCode).toBe(201);
    const afterService = await rowCounts();

    const url = new URL(databaseUrl!);
    url.searchParams.set('options', `-csearch_path=${ctx.schema}`);
    const { stdout } = await run('pgbench', pgbenchArgs('create.sql', 1, ['-t', 1], url.toString()));
    expect(stdout).toMatch(/actually processed: 1\/1/);
    expect(stdout).toMatch(/failed transactions: 0 /);
    const afterFloor = await rowCounts();

    // The floor counts its rate limits in a window of its own, so its counter rows are all new.
    const { rate_limit_counters: _serviceCounters, ...byService } = added(before, afterService);
    const { rate_limit_counters: _floorCounters, ...byFloor } = added(afterService, afterFloor);
    expect(byService).toMatchObject({ bookings: 1, events: 2, unit_nights: 2, idempotency_keys: 1 });
    expect(byFloor).toEqual(byService);

    // …and leaves its idempotency record completed, as the service's create does.
    const { rows } = await sql<{ state: string }>`select state from idempotency_keys where integration_id = ${floor.integ.id} and key ~ '^k[0-9]+$'`.execute(
      ctx.deps.db,
    );
    expect(rows.map((r) => r.state)).toEqual(['completed']);
  });
});
