import { sql, type RawBuilder } from 'kysely';
import type { Deps } from '../../deps.js';

/** Days the contract keeps events (GET /events replays them; older is CURSOR_EXPIRED). */
export const RETENTION_DAYS = 30;

/**
 * Rows per delete statement, so a large backlog never holds long locks (and, on the embedded engine,
 * other queries run between the chunks).
 */
export const RETENTION_CHUNK = 10_000;

/**
 * Runs in the statement that deletes an integration's expired events, with the deleted rows as the
 * CTE `gone` (sequence, delivery_status): the webhooks module keeps its undelivered count there.
 */
export type OnEventsDeleted = (gone: string, integrationId: number) => RawBuilder<unknown>;

/**
 * Events go as a prefix per integration: everything up to the newest sequence recorded before the
 * cutoff. Sequences are allocated in commit order but `created_at` is read just before, so two
 * events a millisecond apart may straddle the cutoff in the other order; deleting by sequence keeps
 * the retained log gap-free, which is what GET /events' CURSOR_EXPIRED rule relies on. Undelivered
 * events age out too: a partner away for 30 days rebuilds from snapshots.
 *
 * Each integration's expired prefix, in chunks bounded on both sides of the primary key: `sequence
 * between lo and hi`, lo being the oldest sequence still stored. A chunk bounded only above would
 * walk the index entries its predecessors left dead: 1M expired events of one integration took
 * 43–46 s that way, 4.9 s bounded (bench BENCH_ONLY=growth).
 *
 * Within a chunk only the rows up to its last expired sequence go, so what remains is still a
 * suffix of the log, whatever order two events a millisecond apart got their `created_at` in; when
 * a chunk holds unexpired events the integration is done (an expired straggler beyond goes on a
 * later day).
 */
export async function deleteExpiredEvents(
  deps: Deps,
  cutoff: Date,
  integrationIds: number[],
  onDeleted: OnEventsDeleted,
  chunk = RETENTION_CHUNK,
): Promise<number> {
  // each integration's oldest stored event, one index read each, where that one has expired
  const { rows: expired } = await sql<{ id: number; oldest: number }>`
    select i.id, o.sequence as oldest from unnest(${integrationIds}::int[]) as i(id)
    cross join lateral (
      select sequence, created_at from events where integration_id = i.id order by sequence limit 1
    ) o
    where o.created_at < ${cutoff}
    order by i.id
  `.execute(deps.db);
  let deleted = 0;
  for (const { id, oldest } of expired) {
    for (let lo = Number(oldest); ; lo += chunk) {
      const hi = lo + chunk - 1;
      const result = await sql<{ deleted: number; last: number | null; kept: boolean }>`
        with upto as (
          select max(sequence) as s from events
          where integration_id = ${id} and sequence between ${lo} and ${hi} and created_at < ${cutoff}
        ), gone as (
          delete from events
          where integration_id = ${id} and sequence between ${lo} and (select s from upto)
          returning sequence, delivery_status
        ), counted as (
          ${onDeleted('gone', id)}
        )
        select count(*)::int as deleted, (select s from upto) as last,
          exists (
            select 1 from events
            where integration_id = ${id} and sequence between ${lo} and ${hi} and sequence > coalesce((select s from upto), ${lo} - 1)
          ) as kept
        from gone
      `.execute(deps.db);
      const row = result.rows[0];
      deleted += Number(row.deleted);
      // done at a chunk with nothing expired, one that keeps events, or the end of the log
      if (row.last === null || row.kept || Number(row.last) < hi) break;
    }
  }
  return deleted;
}
