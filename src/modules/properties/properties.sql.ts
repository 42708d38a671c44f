import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { CoveredProperty } from './properties.resolve.js';
import type { PropertiesTable, UnitsTable } from './properties.tables.js';

type Q = Kysely<DB> | Transaction<DB>;

export type PropertyRow = Selectable<PropertiesTable>;
export type UnitRow = Selectable<UnitsTable>;

export function selectProperty(db: Q, id: number): Promise<PropertyRow | undefined> {
  return db.selectFrom('properties').selectAll().where('id', '=', id).executeTakeFirst();
}

export function selectPropertiesByIds(db: Q, ids: number[]): Promise<PropertyRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('properties').selectAll().where('id', 'in', ids).execute();
}

/** Units of the given properties in their order (position, then id). */
export function selectUnits(db: Q, propertyIds: number[]): Promise<UnitRow[]> {
  if (propertyIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('units')
    .selectAll()
    .where('property_id', 'in', propertyIds)
    .orderBy('property_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** An integration's aliases (external_unit_id) of the units of the given properties: unit id → alias. */
export async function selectAliases(db: Q, integrationId: number, propertyIds: number[]): Promise<Map<number, string>> {
  if (propertyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('unit_aliases as a')
    .innerJoin('units as u', 'u.id', 'a.unit_id')
    .select(['a.unit_id', 'a.external_id'])
    .where('a.integration_id', '=', integrationId)
    .where('u.property_id', 'in', propertyIds)
    .execute();
  return new Map(rows.map((r) => [r.unit_id, r.external_id]));
}

/** Which units hold the given aliases within an integration, and of which property. */
export function selectAliasHolders(db: Q, integrationId: number, externalIds: string[]) {
  if (externalIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('unit_aliases as a')
    .innerJoin('units as u', 'u.id', 'a.unit_id')
    .select(['a.external_id', 'a.unit_id', 'u.property_id'])
    .where('a.integration_id', '=', integrationId)
    .where('a.external_id', 'in', externalIds)
    .execute();
}

/** The property an integration has mapped to `externalId`, if any. */
export function selectCoverageByExternalId(db: Q, integrationId: number, externalId: string) {
  return db
    .selectFrom('coverage')
    .select(['property_id', 'external_id'])
    .where('integration_id', '=', integrationId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export function selectCoverage(db: Q, integrationId: number, propertyId: number) {
  return db
    .selectFrom('coverage')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
}

/** Ids of the properties the integration covers, ascending; with `among`, only those of them. */
export async function selectCoveredPropertyIds(db: Q, integrationId: number, among?: number[]): Promise<number[]> {
  let q = db.selectFrom('coverage').select('property_id').where('integration_id', '=', integrationId);
  if (among) q = q.where('property_id', 'in', among);
  return (await q.orderBy('property_id').execute()).map((r) => r.property_id);
}

/** Every coverage row, as a derived table other modules join (PostgreSQL flattens it into a plain join). */
export function coverageSource(db: Q) {
  return db.selectFrom('coverage').select(['integration_id', 'property_id', 'external_id', 'created_at']);
}

/** Coverage rows of a property (staff view). */
export function selectCoverageOfProperty(db: Q, propertyId: number) {
  return db.selectFrom('coverage').select(['integration_id', 'external_id']).where('property_id', '=', propertyId).orderBy('integration_id').execute();
}

/**
 * A covered property named exactly by service id or by external id (bulk update items say which
 * one they give, unlike a path segment), optionally locked for the write.
 */
export async function selectCoveredBy(
  db: Q,
  integrationId: number,
  by: { id: number } | { externalId: string },
  forUpdate = false,
): Promise<CoveredProperty | null> {
  let q = db
    .selectFrom('coverage as c')
    .innerJoin('properties as p', 'p.id', 'c.property_id')
    .select(['p.id', 'c.external_id', 'p.status', 'p.brand_id'])
    .where('c.integration_id', '=', integrationId);
  q = 'id' in by ? q.where('p.id', '=', by.id) : q.where('c.external_id', '=', by.externalId);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? { id: row.id, externalId: row.external_id, status: row.status, brandId: row.brand_id } : null;
}

/** One page of an integration's covered properties, by property id, and the total. */
export async function selectCoveredPage(
  db: Q,
  integrationId: number,
  options: { status?: string; limit: number; offset: number },
): Promise<{ rows: Array<{ id: number; external_id: string | null }>; total: number }> {
  let base = db
    .selectFrom('coverage as c')
    .innerJoin('properties as p', 'p.id', 'c.property_id')
    .where('c.integration_id', '=', integrationId);
  if (options.status) base = base.where('p.status', '=', options.status as PropertyRow['status']);
  const rows = await base.select(['p.id', 'c.external_id']).orderBy('p.id').limit(options.limit).offset(options.offset).execute();
  const count = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}

export function insertProperty(db: Q, values: Insertable<PropertiesTable>): Promise<PropertyRow> {
  return db.insertInto('properties').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertUnits(db: Q, values: Array<Insertable<UnitsTable>>): Promise<UnitRow[]> {
  if (values.length === 0) return [];
  const rows = await db.insertInto('units').values(values).returningAll().execute();
  return rows.sort((a, b) => a.position - b.position || a.id - b.id);
}

export async function insertAliases(db: Q, integrationId: number, aliases: Array<{ unitId: number; externalId: string }>): Promise<void> {
  if (aliases.length === 0) return;
  await db
    .insertInto('unit_aliases')
    .values(aliases.map((a) => ({ integration_id: integrationId, unit_id: a.unitId, external_id: a.externalId })))
    .execute();
}

export async function deleteAliases(db: Q, integrationId: number, unitIds: number[]): Promise<void> {
  if (unitIds.length === 0) return;
  await db.deleteFrom('unit_aliases').where('integration_id', '=', integrationId).where('unit_id', 'in', unitIds).execute();
}

/** Integration and brand of a staff coverage change. */
