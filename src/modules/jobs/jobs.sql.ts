import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Claims a job's run for a day: true for the one caller (of every process) that inserts it first. */
export async function claimJobRun(db: Kysely<DB>, name: string, day: string, at: Date): Promise<boolean> {
  const claimed = await db
    .insertInto('job_runs')
    .values({ name, day, started_at: at })
    .onConflict((oc) => oc.columns(['name', 'day']).doNothing())
    .returning('name')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function finishJobRun(db: Kysely<DB>, name: string, day: string, at: Date): Promise<void> {
  await db.updateTable('job_runs').set({ finished_at: at }).where('name', '=', name).where('day', '=', day).execute();
}
