import { sql, type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { BookingStatus, BookingsTable } from './bookings.tables.js';
import { coveringTargetsJson, type AppendTarget } from '../events/events.log.js';

type Q = Kysely<DB> | Transaction<DB>;

export type BookingRow = Selectable<BookingsTable>;

/** Who is looking: an integration (sees its own bookings and host bookings it covers), or the host (staff). */
export type Viewer = { integrationId: number } | { host: true };

export const isHost = (viewer: Viewer): viewer is { host: true } => 'host' in viewer;

/**
 * Visibility (decisions §4): an integration sees the bookings it created and the host's bookings
 * on properties it covers. Another integration's bookings never match, so every path answers 404.
 */
function visibleTo(integrationId: number) {
  return (eb: ExpressionBuilder<DB, 'bookings'>) =>
    eb.or([
      eb('bookings.integration_id', '=', integrationId),
      eb.and([
        eb('bookings.integration_id', 'is', null),
        eb.exists(
          eb
            .selectFrom('coverage as vc')
            .select(sql`1`.as('one'))
            .where('vc.integration_id', '=', integrationId)
            .whereRef('vc.property_id', '=', 'bookings.property_id'),
        ),
      ]),
    ]);
}

/** One booking the viewer can see, by service id or by external_booking_id; optionally locked. */
export async function selectVisibleBooking(db: Q, viewer: Viewer, by: { id: number } | { externalId: string }, lock = false): Promise<BookingRow | undefined> {
  let q = db.selectFrom('bookings').selectAll();
  if ('id' in by) q = q.where('id', '=', by.id);
  else q = q.where('external_booking_id', '=', by.externalId);
  if (!isHost(viewer)) {
    q = q.where(visibleTo(viewer.integrationId));
    // The integration's own booking first, should a host booking carry the same id.
    if (!('id' in by)) q = q.orderBy(sql`bookings.integration_id is null`).limit(1);
  } else if (!('id' in by)) {
    q = q.where('integration_id', 'is', null);
  }
  if (lock) q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The integration's own booking with this external_booking_id (the duplicate check of a create). */
export function selectOwnByExternalId(db: Q, integrationId: number, externalId: string) {
  return db
    .selectFrom('bookings')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .where('external_booking_id', '=', externalId)
    .executeTakeFirst();
}

/** The insert of a new booking, returning it as stored: calendar.holds' reserveStay runs it with the holds. */
export function bookingInsert(trx: Transaction<DB>, values: Insertable<BookingsTable>) {
  return trx.insertInto('bookings').values(values).returningAll();
}

/** The update of a booking (its revision goes up), returning it. */
export function bookingUpdate(trx: Q, id: number, set: Updateable<BookingsTable>) {
  return trx
    .updateTable('bookings')
    .set({ ...set, revision: sql`revision + 1` })
    .where('id', '=', id)
    .returningAll();
}

export function updateBookingRow(trx: Q, id: number, set: Updateable<BookingsTable>): Promise<BookingRow> {
  return bookingUpdate(trx, id, set).executeTakeFirstOrThrow();
}

/** The next booking id (host bookings without an id of their own are named after it). */
export async function nextBookingId(trx: Q): Promise<number> {
  const { rows } = await sql<{ id: number }>`select nextval(pg_get_serial_sequence('bookings', 'id'))::int as id`.execute(trx);
  return rows[0].id;
}

export interface PropertyRef {
  id: number;
  status: 'active' | 'inactive' | 'archived';
  externalId: string | null;
}

export interface CreateContext {
  /** The id of the integration's booking with this external_booking_id, if any. */
  existingId: number | null;
  /** The integration's external_id of the property (null without one, or without a property). */
  propertyExternalId: string | null;
  /** Every unit of the property (active or not) in position order, with the integration's aliases. */
  units: PropertyUnit[];
  /** The integrations covering the property, as appendEvents reads them. */
  targets: AppendTarget[];
}

/** The filter of the covered property a create names (both ids given must agree). */
function coveredFilter(integrationId: number, ref: { external_id?: string; doorloom_id?: number }) {
  const byId = ref.doorloom_id !== undefined ? sql`and p.id = ${ref.doorloom_id}` : sql``;
  const byExternal = ref.external_id !== undefined ? sql`and c.external_id = ${ref.external_id}` : sql``;
  return sql`c.integration_id = ${integrationId} ${byId} ${byExternal}`;
}

/** The id of the covered property a create names, as an SQL query (null when none). */
export function coveredPropertyId(integrationId: number, ref: { external_id?: string; doorloom_id?: number }): RawBuilder<number | null> {
  return sql<number | null>`select p.id from coverage c join properties p on p.id = c.property_id where ${coveredFilter(integrationId, ref)} limit 1`;
}

/**
 * What a create decides on besides the calendar, in one statement read under the property's lock:
 * a duplicate external_booking_id, and for the property (when the reference named one) the
 * integration's external_id, its units with the integration's aliases, and the integrations its
 * events go to.
 */
export async function selectCreateContext(trx: Transaction<DB>, integrationId: number, externalBookingId: string, propertyId: number | null): Promise<CreateContext> {
  const { rows } = await sql<{ doc: string }>`
    select json_build_object(
      'existing', (select b.id from bookings b where b.integration_id = ${integrationId} and b.external_booking_id = ${externalBookingId}),
      'external_id', (select c.external_id from coverage c where c.integration_id = ${integrationId} and c.property_id = ${propertyId}::int),
      'units', (
        select coalesce(json_agg(json_build_object('id', u.id, 'isActive', u.is_active, 'position', u.position, 'alias', a.external_id) order by u.position, u.id), '[]'::json)
        from units u
        left join unit_aliases a on a.unit_id = u.id and a.integration_id = ${integrationId}
        where u.property_id = ${propertyId}::int
      ),
      'targets', ${coveringTargetsJson(sql`${propertyId}::int`)}
    )::text as doc
  `.execute(trx);
  const doc = JSON.parse(rows[0].doc) as { existing: number | null; external_id: string | null; units: PropertyUnit[]; targets: AppendTarget[] };
  return { existingId: doc.existing, propertyExternalId: doc.external_id, units: doc.units, targets: doc.targets };
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

/** An integration's aliases of the given units: unit id → external_unit_id. */
export async function selectAliases(db: Q, integrationId: number, unitIds: number[]): Promise<Map<number, string>> {
  if (unitIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('unit_aliases')
    .select(['unit_id', 'external_id'])
    .where('integration_id', '=', integrationId)
    .where('unit_id', 'in', [...new Set(unitIds)])
    .execute();
  return new Map(rows.map((r) => [r.unit_id, r.external_id]));
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

export interface ListFilters {
  updatedSince?: Date;
  status?: BookingStatus;
  propertyId?: number;
  checkInFrom?: string;
  checkInTo?: string;
  limit: number;
  offset: number;
}

/** A page of the bookings an integration sees, by (updated_at, id) ascending, and the total. */
export async function selectBookingPage(db: Q, integrationId: number, filters: ListFilters): Promise<{ rows: BookingRow[]; total: number }> {
  let base = db.selectFrom('bookings').where(visibleTo(integrationId));
  if (filters.updatedSince) base = base.where('updated_at', '>=', filters.updatedSince);
  if (filters.status) base = base.where('status', '=', filters.status);
  if (filters.propertyId !== undefined) base = base.where('property_id', '=', filters.propertyId);
  if (filters.checkInFrom) base = base.where('check_in', '>=', filters.checkInFrom);
  if (filters.checkInTo) base = base.where('check_in', '<=', filters.checkInTo);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('updated_at').orderBy('id').limit(filters.limit).offset(filters.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
