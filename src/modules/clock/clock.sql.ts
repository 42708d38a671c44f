import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/** The test clock's offset, shared by every process on the database (service_clock, one row). */
export async function loadClockOffset(db: Q): Promise<number> {
  const row = await db.selectFrom('service_clock').select('offset_seconds').where('id', '=', 1).executeTakeFirst();
  return row?.offset_seconds ?? 0;
}

/** Moves the shared offset forward atomically (several processes may share one database). */
export async function advanceClockOffset(db: Q, seconds: number): Promise<number> {
  const row = await db
    .updateTable('service_clock')
    .set((eb) => ({ offset_seconds: eb('offset_seconds', '+', seconds) }))
    .where('id', '=', 1)
    .returning('offset_seconds')
    .executeTakeFirstOrThrow();
  return row.offset_seconds;
}

/** Reads the clock row, which the migrations create: the readiness probe's one query. */
export async function probeClockRow(db: Q): Promise<void> {
  await db.selectFrom('service_clock').select('id').executeTakeFirstOrThrow();
}

/** Locks the clock row, which always exists: a lock for rare one-time work (the first start's bootstrap token). */
export async function lockClockRow(trx: Transaction<DB>): Promise<void> {
  await trx.selectFrom('service_clock').select('id').where('id', '=', 1).forUpdate().execute();
}
