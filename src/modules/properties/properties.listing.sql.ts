import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

/**
 * A page of properties for staff, by id: those of a brand, those an integration covers (with its
 * external id for each), or both filters at once, or every property.
 */
export async function selectStaffPropertyPage(
  db: Q,
  filters: { integrationId: number | null; brandId: number | null },
  options: { limit: number; offset: number },
) {
  let base = db.selectFrom('properties as p');
  if (filters.brandId !== null) base = base.where('p.brand_id', '=', filters.brandId);
  if (filters.integrationId !== null) {
    base = base.innerJoin('coverage as c', (join) => join.onRef('c.property_id', '=', 'p.id').on('c.integration_id', '=', filters.integrationId));
  }
  const externalId = filters.integrationId !== null ? sql<string | null>`c.external_id` : sql<string | null>`null`;
  const [rows, total] = await Promise.all([
    base
      .select((eb) => [
        'p.id',
        'p.brand_id',
        'p.name',
        'p.status',
        'p.city',
        'p.created_at',
        'p.updated_at',
        externalId.as('external_id'),
        eb
          .selectFrom('coverage as cc')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('cc.property_id', '=', 'p.id')
          .as('covering_integrations'),
      ])
      .orderBy('p.id')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** How many properties each of the brands has (brands with none are absent). */
export async function countPropertiesByBrand(db: Q, brandIds: number[]): Promise<Map<number, number>> {
  if (brandIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('properties')
    .select((eb) => ['brand_id', eb.fn.countAll<number>().as('n')])
    .where('brand_id', 'in', brandIds)
    .groupBy('brand_id')
    .execute();
  return new Map(rows.map((r) => [r.brand_id, Number(r.n)]));
}

/** How many properties each of the integrations covers (integrations with none are absent). */
export async function countCoverageByIntegration(db: Q, integrationIds: number[]): Promise<Map<number, number>> {
  if (integrationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('coverage')
    .select((eb) => ['integration_id', eb.fn.countAll<number>().as('n')])
    .where('integration_id', 'in', integrationIds)
    .groupBy('integration_id')
    .execute();
  return new Map(rows.map((r) => [r.integration_id, Number(r.n)]));
}
