import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

export function findBrand(db: Q, id: number) {
  return db.selectFrom('brands').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findIntegration(db: Q, id: number) {
  return db.selectFrom('integrations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function slugExists(db: Q, slug: string) {
  return db.selectFrom('integrations').select('id').where('slug', '=', slug).executeTakeFirst();
}

/** The figures /me reports beside the integration row, in one round trip. */
export async function integrationFigures(db: Q, integrationId: number) {
  const row = await db
    .selectFrom('integrations as i')
    .innerJoin('brands as b', 'b.id', 'i.brand_id')
    .select((eb) => [
      'b.name as brand_name',
      eb
        .selectFrom('events')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('integration_id', '=', integrationId)
        .where('delivery_status', '=', 'pending')
        .as('undelivered'),
      eb
        .selectFrom('events')
        .select((e) => e.fn.min<number>('sequence').as('s'))
        .where('integration_id', '=', integrationId)
        .where('delivery_status', '=', 'pending')
        .as('head_sequence'),
      eb
        .selectFrom('coverage')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('integration_id', '=', integrationId)
        .as('covered'),
    ])
    .where('i.id', '=', integrationId)
    .executeTakeFirstOrThrow();
  const head =
    row.head_sequence == null
      ? null
      : await db
          .selectFrom('events')
          .select('attempts')
          .where('integration_id', '=', integrationId)
          .where('sequence', '=', Number(row.head_sequence))
          .executeTakeFirst();
  return {
    brandName: row.brand_name,
    undelivered: Number(row.undelivered ?? 0),
    headSequence: row.head_sequence == null ? null : Number(row.head_sequence),
    headAttempts: head?.attempts ?? 0,
    covered: Number(row.covered ?? 0),
  };
}

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
