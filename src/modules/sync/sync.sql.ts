import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

type Q = Kysely<DB> | Transaction<DB>;

/** Counts one POST /sync call against `day`, restarting the count on a new day; returns the day's calls. */
export async function countSyncCall(db: Q, integrationId: number, day: string): Promise<number> {
  const counted = await db
    .insertInto('sync_quota')
    .values({ integration_id: integrationId, day, calls: 1 })
    .onConflict((oc) =>
      oc.column('integration_id').doUpdateSet((eb) => ({
        calls: eb
          .case()
          .when('sync_quota.day', '=', eb.ref('excluded.day'))
          .then(eb('sync_quota.calls', '+', 1))
          .else(1)
          .end(),
        day: eb.ref('excluded.day'),
      })),
    )
    .returning('calls')
    .executeTakeFirstOrThrow();
  return counted.calls;
}

/** The integration's last accepted sync, its quota row locked until the transaction ends. */
export async function lockLastAccepted(trx: Transaction<DB>, integrationId: number): Promise<Date | null> {
  const quota = await trx.selectFrom('sync_quota').select('last_accepted_at').where('integration_id', '=', integrationId).forUpdate().executeTakeFirstOrThrow();
  return quota.last_accepted_at;
}

export async function insertSyncJob(trx: Transaction<DB>, integrationId: number, propertyIds: number[], types: string[], at: Date): Promise<void> {
  await trx
    .insertInto('sync_jobs')
    .values({ integration_id: integrationId, property_ids: propertyIds, types, created_at: at, started_at: null, finished_at: null })
    .execute();
  await trx.updateTable('sync_quota').set({ last_accepted_at: at }).where('integration_id', '=', integrationId).execute();
}

/** The oldest unfinished jobs. */
export function selectOpenSyncJobs(db: Q, limit: number) {
  return db.selectFrom('sync_jobs').select('id').where('finished_at', 'is', null).orderBy('id').limit(limit).execute();
}

export function lockSyncJob(trx: Transaction<DB>, jobId: number) {
  return trx.selectFrom('sync_jobs').selectAll().where('id', '=', jobId).forUpdate().executeTakeFirst();
}

/** Moves a job's progress; sent ahead, with the step's events, to go out with its COMMIT. */
export function advanceSyncJob(uow: UnitOfWork, jobId: number, set: { next_index?: number; started_at: Date; finished_at?: Date }): void {
  uow.send(uow.updateTable('sync_jobs').set(set).where('id', '=', jobId));
}

/** Deletes finished jobs created before `cutoff`; returns how many. */
export async function deleteFinishedSyncJobs(db: Q, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('sync_jobs').where('finished_at', 'is not', null).where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
