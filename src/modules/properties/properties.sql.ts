import { sql, type Insertable, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AppendTarget } from '../events/events.log.js';
import { appendTargetsSource } from '../integrations/integrations.sql.js';
import { PRICE_COLUMNS } from './properties.input.js';
import type { CoveredProperty } from './properties.resolve.js';
import type { PropertiesTable, UnitsTable } from './properties.tables.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

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
  return db.selectFrom('units').selectAll().where('property_id', 'in', propertyIds).orderBy('property_id').orderBy('position').orderBy('id').execute();
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
  return db.selectFrom('coverage').selectAll().where('integration_id', '=', integrationId).where('property_id', '=', propertyId).executeTakeFirst();
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
  let base = db.selectFrom('coverage as c').innerJoin('properties as p', 'p.id', 'c.property_id').where('c.integration_id', '=', integrationId);
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

/** Sent ahead (UnitOfWork.send): a taken alias fails the unit of work at its next read or its commit. */
export function insertAliases(uow: UnitOfWork, integrationId: number, aliases: Array<{ unitId: number; externalId: string }>): void {
  if (aliases.length === 0) return;
  uow.send(uow.insertInto('unit_aliases').values(aliases.map((a) => ({ integration_id: integrationId, unit_id: a.unitId, external_id: a.externalId }))));
}

/** Sent ahead (UnitOfWork.send). */
export function deleteAliases(uow: UnitOfWork, integrationId: number, unitIds: number[]): void {
  if (unitIds.length === 0) return;
  uow.send(uow.deleteFrom('unit_aliases').where('integration_id', '=', integrationId).where('unit_id', 'in', unitIds));
}

/** Integration and brand of a staff coverage change. */

// ---------------------------------------------------------------------------------------------
// For the calendar and bookings: reads of properties' tables, whole or as fragments of their own
// statements. A fragment is a derived table or a scalar subquery, which PostgreSQL flattens into
// the caller's statement: one round trip and the plan of the same statement written inline.

/** Whether the property exists. */
export async function propertyExists(db: Q, id: number): Promise<boolean> {
  return (await db.selectFrom('properties').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The property's brand, or null when there is no such property. */
export async function propertyBrandId(db: Q, id: number): Promise<number | null> {
  const row = await db.selectFrom('properties').select('brand_id').where('id', '=', id).executeTakeFirst();
  return row?.brand_id ?? null;
}

/** A property's prices and tax flags (what its rates are built from), as a query of one row; `propertyId` is an SQL expression. */
export function pricingQuery(db: Q, propertyId: RawBuilder<number>) {
  return db
    .selectFrom('properties')
    .select([...PRICE_COLUMNS, 'gst_applicable', 'price_includes_gst'])
    .where('id', '=', propertyId);
}

/** A host edit of the property's tax flags (the rates' GST fields): the statement, for the caller to run or send. */
export function updateTaxFlags(db: Q, propertyId: number, flags: { gst_applicable?: boolean; price_includes_gst?: boolean }) {
  return db
    .updateTable('properties')
    .set({
      ...(flags.gst_applicable !== undefined ? { gst_applicable: flags.gst_applicable } : {}),
      ...(flags.price_includes_gst !== undefined ? { price_includes_gst: flags.price_includes_gst } : {}),
    })
    .where('id', '=', propertyId);
}

/** A property's units (`id`, `name`, `position`), as a derived table to join; `propertyId` is an SQL expression or an id. */
export function unitsSource(db: Q, propertyId: RawBuilder<number> | number) {
  return db.selectFrom('units').select(['id', 'name', 'position']).where('property_id', '=', propertyId);
}

/** unitsSource, active units only (the ones a calendar shows and a booking may hold). */
export function activeUnitsSource(db: Q, propertyId: RawBuilder<number>) {
  return unitsSource(db, propertyId).where('is_active', '=', sql.lit(true));
}

/** A property's active units with the integration's alias of each (`external_unit_id`, null without one, or for integration null), as a query. */
export function activeUnitsWithAliases(db: Q, propertyId: RawBuilder<number>, integrationId: number | null) {
  return db
    .selectFrom('units as u')
    .leftJoin('unit_aliases as a', (join) => join.onRef('a.unit_id', '=', 'u.id').on('a.integration_id', '=', integrationId ?? -1))
    .select(['u.id', 'u.name', 'u.position', 'a.external_id as external_unit_id'])
    .where('u.property_id', '=', propertyId)
    .where('u.is_active', '=', true);
}

/** The ids among `unitIds` that are units of the property. */
export async function selectUnitIdsOf(db: Q, propertyId: number, unitIds: number[]): Promise<Set<number>> {
  const rows = await db.selectFrom('units').select('id').where('property_id', '=', propertyId).where('id', 'in', unitIds).execute();
  return new Set(rows.map((u) => u.id));
}

/** A unit of a property (active or not) with one integration's alias: what a booking decides on. */
export interface PropertyUnit {
  id: number;
  isActive: boolean;
  position: number;
  /** The viewer's alias (null without one, or for the host). */
  alias: string | null;
}

/** Every unit of a property (active or not) in position order, with the integration's aliases. */
export async function selectPropertyUnits(db: Q, propertyId: number, integrationId: number | null): Promise<PropertyUnit[]> {
  const rows = await db
    .selectFrom('units as u')
    .leftJoin('unit_aliases as a', (join) => join.onRef('a.unit_id', '=', 'u.id').on('a.integration_id', '=', integrationId ?? -1))
    .select(['u.id', 'u.is_active', 'u.position', 'a.external_id'])
    .where('u.property_id', '=', propertyId)
    .orderBy('u.position')
    .orderBy('u.id')
    .execute();
  return rows.map((r) => ({ id: r.id, isActive: r.is_active, position: r.position, alias: r.external_id }));
}

/** selectPropertyUnits as a scalar subquery of one JSON array (PropertyUnit[]); `propertyId` is an SQL expression. */
export function propertyUnitsJson(integrationId: number, propertyId: RawBuilder<number | null>): RawBuilder<PropertyUnit[]> {
  return sql`(
        select coalesce(json_agg(json_build_object('id', u.id, 'isActive', u.is_active, 'position', u.position, 'alias', a.external_id) order by u.position, u.id), '[]'::json)
        from units u
        left join unit_aliases a on a.unit_id = u.id and a.integration_id = ${integrationId}
        where u.property_id = ${propertyId}
      )`;
}

/** The integration's external_id of the property (null without one, or when not covered), as a scalar subquery; `propertyId` is an SQL expression. */
export function propertyExternalIdOf(integrationId: number, propertyId: RawBuilder<number | null>): RawBuilder<string | null> {
  return sql`(select c.external_id from coverage c where c.integration_id = ${integrationId} and c.property_id = ${propertyId})`;
}

/** Whether the integration covers the property now. */
export async function isCovered(db: Q, integrationId: number, propertyId: number): Promise<boolean> {
  const row = await db
    .selectFrom('coverage')
    .select('property_id')
    .where('integration_id', '=', integrationId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The property's external_id for an integration (its coverage mapping), or null. */
export async function selectPropertyExternalId(db: Q, integrationId: number, propertyId: number): Promise<string | null> {
  const row = await db
    .selectFrom('coverage')
    .select('external_id')
    .where('integration_id', '=', integrationId)
    .where('property_id', '=', propertyId)
    .executeTakeFirst();
  return row?.external_id ?? null;
}

/** The integration's external ids of the given properties: property id → external_id. */
export async function selectPropertyExternalIds(db: Q, integrationId: number, propertyIds: number[]): Promise<Map<number, string | null>> {
  if (propertyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('coverage')
    .select(['property_id', 'external_id'])
    .where('integration_id', '=', integrationId)
    .where('property_id', 'in', [...new Set(propertyIds)])
    .execute();
  return new Map(rows.map((r) => [r.property_id, r.external_id]));
}

/** An integration's aliases of the given units: unit id → external_unit_id. */
export async function selectAliasesOfUnits(db: Q, integrationId: number, unitIds: number[]): Promise<Map<number, string>> {
  if (unitIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('unit_aliases')
    .select(['unit_id', 'external_id'])
    .where('integration_id', '=', integrationId)
    .where('unit_id', 'in', [...new Set(unitIds)])
    .execute();
  return new Map(rows.map((r) => [r.unit_id, r.external_id]));
}

/**
 * The aliases the given integrations have for the property's units: integration id → unit id →
 * alias (each integration present, with no alias an empty map). Read from the property's units
 * (the unit_aliases_unit index), not from each integration's aliases of every property it covers.
 */
export async function selectUnitAliasesOf(db: Q, propertyId: number, integrationIds: number[]): Promise<Map<number, Map<number, string>>> {
  const byIntegration = new Map(integrationIds.map((id) => [id, new Map<number, string>()]));
  if (integrationIds.length === 0) return byIntegration;
  const rows = await db
    .selectFrom('units as u')
    .innerJoin('unit_aliases as a', 'a.unit_id', 'u.id')
    .select(['a.integration_id', 'a.unit_id', 'a.external_id'])
    .where('u.property_id', '=', propertyId)
    .where('a.integration_id', 'in', integrationIds)
    .execute();
  for (const r of rows) byIntegration.get(r.integration_id)?.set(r.unit_id, r.external_id);
  return byIntegration;
}

/**
 * The integrations covering a property as appendEvents reads them (AppendTarget, in id order), as a
 * JSON array expression to embed in a caller's own statement, saving appendEvents the read:
 * `propertyId` is an SQL expression for the property's id.
 */
export function coveringTargetsJson(propertyId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    select coalesce(json_agg(json_build_object('id', i.id, 'slug', i.slug, 'webhook_event_types', i.webhook_event_types,
      'horizon_days', i.horizon_days, 'has_webhook', i.has_webhook, 'external_id', c.external_id) order by i.id), '[]'::json)
    from ${appendTargetsSource} i join coverage c on c.integration_id = i.id and c.property_id = ${propertyId}
  )`;
}

/**
 * The integrations events go to (AppendTarget, in id order): a property's covering ones that are
 * not disabled, or for integration-wide events (`propertyId` null) every one that is not disabled;
 * only `onlyIntegrationId` among them when given.
 */
export async function selectAppendTargets(trx: Q, propertyId: number | null, onlyIntegrationId?: number): Promise<AppendTarget[]> {
  const covering = propertyId === null ? sql`` : sql`join coverage c on c.integration_id = i.id and c.property_id = ${propertyId}`;
  const only = onlyIntegrationId === undefined ? sql`` : sql`where i.id = ${onlyIntegrationId}`;
  const { rows } = await sql<AppendTarget>`
    select i.id, i.slug, i.webhook_event_types, i.horizon_days, i.has_webhook, ${propertyId === null ? sql`null::text` : sql`c.external_id`} as external_id
    from ${appendTargetsSource} i ${covering} ${only}
    order by i.id
  `.execute(trx);
  return rows;
}
