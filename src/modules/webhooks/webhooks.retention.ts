import type { Deps } from '../../deps.js';

/**
 * Attempts older than the cutoff, in id ranges of `chunk` bounded on both sides (for the reason
 * given in events.retention.ts). Ids follow `attempted_at` closely but not exactly (several
 * workers): the last range ends at the id of the newest expired attempt, and each range deletes
 * only what has expired.
 */
export async function deleteExpiredAttempts(deps: Deps, cutoff: Date, chunk: number): Promise<number> {
  const first = await deps.db.selectFrom('delivery_attempts').select('id').orderBy('id').limit(1).executeTakeFirst();
  if (!first) return 0;
  const last = await deps.db
    .selectFrom('delivery_attempts')
    .select('id')
    .where('attempted_at', '<', cutoff)
    .orderBy('attempted_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!last) return 0;
  let deleted = 0;
  for (let lo = Number(first.id); lo <= Number(last.id); lo += chunk) {
    const result = await deps.db
      .deleteFrom('delivery_attempts')
      .where('id', '>=', lo)
      .where('id', '<=', Math.min(lo + chunk - 1, Number(last.id)))
      .where('attempted_at', '<', cutoff)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows ?? 0);
  }
  return deleted;
}

/** Marks older than the cutoff: their events have expired, as a mark is made after its event. */
export async function deleteExpiredMarks(deps: Deps, cutoff: Date): Promise<number> {
  const result = await deps.db.deleteFrom('delivery_marks').where('marked_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
