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

/**
 * The integration row and the figures /me reports beside it, in one round trip. `withHead` adds
 * the head of the delivery queue and its attempts (the staff view).
 */
export async function loadIntegrationWithFigures(db: Q, integrationId: number, withHead = false) {
  const row = await db
    .selectFrom('integrations as i')
    .innerJoin('brands as b', 'b.id', 'i.brand_id')
    .selectAll('i')
    .select((eb) => [
      'b.name as brand_name',
      eb
        .selectFrom('events')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('integration_id', '=', integrationId)
        .where('delivery_status', '=', 'pending')
        .as('undelivered'),
      eb
        .selectFrom('coverage')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('integration_id', '=', integrationId)
        .as('covered'),
    ])
    .where('i.id', '=', integrationId)
    .executeTakeFirst();
  if (!row) return undefined;
  const head = withHead
    ? await db
        .selectFrom('events')
        .select(['sequence', 'attempts'])
        .where('integration_id', '=', integrationId)
        .where('delivery_status', '=', 'pending')
        .orderBy('sequence')
        .limit(1)
        .executeTakeFirst()
    : undefined;
  const { brand_name, undelivered, covered, ...integration } = row;
  return {
    integration,
    figures: {
      brandName: brand_name,
      undelivered: Number(undelivered ?? 0),
      headSequence: head ? head.sequence : null,
      headAttempts: head?.attempts ?? 0,
      covered: Number(covered ?? 0),
    },
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
