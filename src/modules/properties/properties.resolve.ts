import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { notFound } from '../../http/errors.js';

type Q = Kysely<DB> | Transaction<DB>;

export interface CoveredProperty {
  id: number;
  externalId: string | null;
  status: 'active' | 'inactive' | 'archived';
  brandId: number;
}

/**
 * Resolves a `{property}` path segment for an integration: the service id or the partner's
 * external_id, whichever this integration recognises (the service id first when the segment is
 * numeric and names a covered property). Anything not covered by the integration is null, so
 * that callers answer 404 NOT_FOUND exactly as for a missing property.
 */
export async function findCoveredProperty(db: Q, integrationId: number, ref: string, forUpdate = false): Promise<CoveredProperty | null> {
  let q = coveredPropertyQuery(db, integrationId, ref).select(['p.status', 'p.brand_id']);
  if (forUpdate) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? { id: row.id, externalId: row.external_id, status: row.status, brandId: row.brand_id } : null;
}

/**
 * The covered property named by `ref` as one query (its id and the integration's external_id),
 * the service id preferred when both match; findCoveredProperty runs it, and a reader may run it
 * inside a statement of its own.
 */
export function coveredPropertyQuery(db: Q, integrationId: number, ref: string) {
  return coveredPropertyBy(db, integrationId, ref, propertyRefId(ref));
}

/** The service id a `{property}` segment may be (digits within int range), or null. */
export function propertyRefId(ref: string): number | null {
  return /^[1-9][0-9]{0,9}$/.test(ref) && Number(ref) <= 2147483647 ? Number(ref) : null;
}

/**
 * coveredPropertyQuery with the segment's service id given (propertyRefId): whether it is null
 * is what shapes the statement, for a caller that keeps it built (db/statement-template.ts).
 */
export function coveredPropertyBy(db: Q, integrationId: number, ref: string, id: number | null) {
  return db
    .selectFrom('coverage as c')
    .innerJoin('properties as p', 'p.id', 'c.property_id')
    .select(['p.id', 'c.external_id'])
    .where('c.integration_id', '=', integrationId)
    .where((eb) => (id === null ? eb('c.external_id', '=', ref) : eb.or([eb('p.id', '=', id), eb('c.external_id', '=', ref)])))
    .orderBy(sql`p.id = ${id ?? 0}`, 'desc')
    .limit(1);
}

/**
 * The id of the covered property a booking create names (`doorloom_id`, `external_id`, or both,
 * which must agree), as an SQL query of it (null when none): lockProperty takes it.
 */
export function coveredPropertyId(integrationId: number, ref: { external_id?: string; doorloom_id?: number }): RawBuilder<number | null> {
  const byId = ref.doorloom_id !== undefined ? sql`and p.id = ${ref.doorloom_id}` : sql``;
  const byExternal = ref.external_id !== undefined ? sql`and c.external_id = ${ref.external_id}` : sql``;
  return sql<
    number | null
  >`select p.id from coverage c join properties p on p.id = c.property_id where c.integration_id = ${integrationId} ${byId} ${byExternal} limit 1`;
}

/** findCoveredProperty, or 404 NOT_FOUND. */
export async function requireCoveredProperty(db: Q, integrationId: number, ref: string, forUpdate = false): Promise<CoveredProperty> {
  const found = await findCoveredProperty(db, integrationId, ref, forUpdate);
  if (!found) throw notFound('No such property.');
  return found;
}
