import { sql } from 'kysely';
import type { TestContext } from './context.js';

/**
 * Tables that a refused request may legitimately write: request counters and logs, not state.
 * rate_limit_counters (refusals count against their tier), idempotency_keys (refusals are stored
 * and replayed), sync_quota (sync refusals count against the day's six calls), delivery_attempts
 * (the webhook log, written by the background worker, not by requests), staff_tokens (its
 * last_used_at is recorded by any staff call, a refused one too, at most once a minute),
 * staff_auth_known (which staff credential verified from which address, at most once an hour).
 */
export const COUNTER_TABLES = ['rate_limit_counters', 'idempotency_keys', 'sync_quota', 'delivery_attempts', 'staff_tokens', 'staff_auth_known'];

export type Digest = Record<string, string>;

const tableLists = new WeakMap<TestContext, Promise<string[]>>();

function tablesOf(ctx: TestContext): Promise<string[]> {
  let tables = tableLists.get(ctx);
  if (!tables) {
    tables = sql<{ table_name: string }>`
      select table_name from information_schema.tables
      where table_schema = ${ctx.schema} and table_type = 'BASE TABLE' order by table_name
    `
      .execute(ctx.deps.db)
      .then((r) => r.rows.map((row) => row.table_name).filter((t) => !t.startsWith('kysely_')));
    tableLists.set(ctx, tables);
  }
  return tables;
}

/**
 * A digest of every table of the test's schema except `exclude`: per table the row count and the
 * sum of a 64-bit hash of each row version's identity, its physical place and the transaction that
 * wrote it (`ctid`, `xmin`). Any insert, update (even one writing the same values) or delete that
 * commits changes it; a rolled-back one does not, and neither does a row lock. Order-independent,
 * so no sort, and no row body is read (event payloads stay in their TOAST tables), so it stays
 * cheap as tables grow. One statement for all tables.
 */
export async function tableDigest(ctx: TestContext, exclude: readonly string[] = COUNTER_TABLES): Promise<Digest> {
  const tables = (await tablesOf(ctx)).filter((t) => !exclude.includes(t));
  const parts = tables.map(
    (t) =>
      sql`select ${t}::text as t, count(*)::text as n, coalesce(sum(hashtextextended(x.ctid::text || x.xmin::text, 0)), 0)::text as h from ${sql.table(`${ctx.schema}.${t}`)} x`,
  );
  const { rows } = await sql<{ t: string; n: string; h: string }>`${sql.join(parts, sql` union all `)}`.execute(ctx.deps.db);
  return Object.fromEntries(rows.map((r) => [r.t, `${r.n}:${r.h}`]));
}

/** The tables whose digest differs ([] when none). */
export function changedTables(before: Digest, after: Digest): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((t) => before[t] !== after[t]).sort();
}
