import { sql, type ExpressionBuilder, type Insertable, type Kysely, type RawBuilder, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { BookingStatus, BookingsTable } from './bookings.tables.js';
import { coveringTargetsJson, type AppendTarget } from '../events/events.log.js';
import { statementTemplate } from '../../db/statement-template.js';
import { stayCalendarQuery } from '../calendar/calendar.holds.js';
import type { DateWindow } from '../../lib/time.js';

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

/** The insert of a new booking, returning it: calendar.holds' reserveStay runs it with the holds. */
export function bookingInsert(trx: Transaction<DB>, values: Insertable<BookingsTable>) {
  return trx.insertInto('bookings').values(values).returningAll();
}

/**
 * The row a new booking's insert of `values` (with its id) answers, without asking the database:
 * what `returning *` would give for this table's columns and defaults. Strings as PostgreSQL
 * stores them (pg sends UTF-8, in which a lone surrogate becomes U+FFFD), and `total` as its
 * numeric(12, 2) column holds it, converted by the database beforehand (createContextOf's
 * newRow). The bookings tests compare it with the row read back, column by column.
 */
export function newBookingRow(values: Insertable<BookingsTable> & { id: number }, total: number, units: BookingRow['units']): BookingRow {
  const text = (value: string | null | undefined) => (value == null ? null : storedText(value));
  return {
    id: values.id,
    integration_id: values.integration_id ?? null,
    external_booking_id: storedText(values.external_booking_id),
    property_id: values.property_id,
    status: values.status,
    revision: 1,
    check_in: values.check_in,
    check_out: values.check_out,
    units,
    guest_name: storedText(values.guest_name),
    guest_phone_code: text(values.guest_phone_code),
    guest_mobile: text(values.guest_mobile),
    total,
    currency: values.currency ?? 'INR',
    notes: text(values.notes),
    source_channel: storedText(values.source_channel),
    source_reference: text(values.source_reference),
    reason: text(values.reason),
    refund_note: text(values.refund_note),
    cancelled_at: values.cancelled_at ?? null,
    created_at: values.created_at,
    updated_at: values.updated_at,
  };
}

const LONE_SURROGATE = /[\ud800-\udfff]/;
/** A string as a text column gives it back: UTF-8 has no lone surrogates (each becomes U+FFFD). */
const storedText = (value: string) => (LONE_SURROGATE.test(value) ? Buffer.from(value, 'utf8').toString('utf8') : value);

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
  property: PropertyRef | null;
  /** Every unit of the property (active or not) in position order, with the integration's aliases. */
  units: PropertyUnit[];
  /** The integrations covering the property, as appendEvents reads them. */
  targets: AppendTarget[];
  /** The new booking's id and total as the database will hold them (null when no id was taken: see NewRowAsk). */
  newRow: { id: number; total: number } | null;
}

/** What a create's context statement is asked for its new row: whether to take an id, and the total to convert. */
export interface NewRowAsk {
  /** False when the create is refused whatever the context says (a check_in before today): no id is taken. */
  wanted: boolean;
  total: number;
}

/** The filter of the covered property a create names (both ids given must agree). */
function coveredFilter(integrationId: number, ref: { external_id?: string; doorloom_id?: number }) {
  const byId = ref.doorloom_id !== undefined ? sql`and p.id = ${ref.doorloom_id}` : sql``;
  const byExternal = ref.external_id !== undefined ? sql`and c.external_id = ${ref.external_id}` : sql``;
  return sql`c.integration_id = ${integrationId} ${byId} ${byExternal}`;
}

/** The id of the covered property a create names, as an SQL query (null when none). */
export function coveredPropertyId(integrationId: number, ref: { external_id?: string; doorloom_id?: number }): RawBuilder<number> {
  return sql<number>`select p.id from coverage c join properties p on p.id = c.property_id where ${coveredFilter(integrationId, ref)} limit 1`;
}

/**
 * What a create decides on, in one statement at the start of its transaction: a duplicate
 * external_booking_id, the covered property named by the reference (both ids given must agree),
 * locked for the calendar (the lock of calendar.sql's lockPropertyCalendar) with its status as of the lock, that
 * property's units with the integration's aliases, and the integrations its events go to. Its
 * row goes to createContextOf.
 */
export function createContextQuery(integrationId: number, externalBookingId: string, ref: { external_id?: string; doorloom_id?: number }, write: NewRowAsk) {
  return sql<{ doc: string }>`
    with prop as (
      select p.id, p.status, c.external_id
      from coverage c join properties p on p.id = c.property_id
      where ${coveredFilter(integrationId, ref)}
      limit 1
      for no key update of p
    ),
    existing as (select b.id from bookings b where b.integration_id = ${integrationId} and b.external_booking_id = ${externalBookingId})
    select json_build_object(
      'existing', (select id from existing),
      'property', (select row_to_json(prop) from prop),
      -- the new booking's id, taken only when a booking may follow (an active property, no
      -- duplicate), and its total as the numeric(12,2) column will hold it (see newBookingRow)
      'new_id', case when ${write.wanted}::boolean and exists (select 1 from prop where status = 'active') and not exists (select 1 from existing)
        then nextval(pg_get_serial_sequence('bookings', 'id')) end,
      'total', ${write.total}::numeric(12, 2),
      'units', (
        select coalesce(json_agg(json_build_object('id', u.id, 'isActive', u.is_active, 'position', u.position, 'alias', a.external_id) order by u.position, u.id), '[]'::json)
        from units u
        left join unit_aliases a on a.unit_id = u.id and a.integration_id = ${integrationId}
        where u.property_id = (select id from prop)
      ),
      'targets', ${coveringTargetsJson(sql`(select id from prop)`)}
    )::text as doc
  `;
}

/** How a create names its property: which of the two ids it gives shapes its statements. */
type RefShape = 'id' | 'external' | 'both';
interface RefValues {
  integrationId: number;
  externalId: string | undefined;
  doorloomId: number | undefined;
}
const refShape = (ref: { external_id?: string; doorloom_id?: number }): RefShape =>
  ref.doorloom_id === undefined ? 'external' : ref.external_id === undefined ? 'id' : 'both';
const refOf = (shape: RefShape, v: RefValues) => ({
  ...(shape !== 'id' ? { external_id: v.externalId } : {}),
  ...(shape !== 'external' ? { doorloom_id: v.doorloomId } : {}),
});
const refValues = (integrationId: number, ref: { external_id?: string; doorloom_id?: number }): RefValues => ({
  integrationId,
  externalId: ref.external_id,
  doorloomId: ref.doorloom_id,
});

/**
 * A create's first two statements (sent together, see bookings.create.ts), each built once per
 * shape of the reference (db/statement-template.ts): createContextQuery, and the stay's calendar
 * read (calendar.holds' stayCalendarQuery) of the property the reference names. Measured: see
 * docs/performance.md, thirteenth round.
 */
const contextStatement = statementTemplate((v: RefValues & NewRowAsk & { externalBookingId: string }, shape: RefShape) =>
  createContextQuery(v.integrationId, v.externalBookingId, refOf(shape, v), v),
);
const stayStatement = statementTemplate((v: RefValues & { from: string; to: string }, shape: RefShape, db) =>
  stayCalendarQuery(db, coveredPropertyId(v.integrationId, refOf(shape, v)), { from: v.from, to: v.to }, { integrationId: v.integrationId }),
);

export function createContextStatement(integrationId: number, externalBookingId: string, ref: { external_id?: string; doorloom_id?: number }, write: NewRowAsk) {
  return contextStatement<{ doc: string }>(refShape(ref), { ...refValues(integrationId, ref), externalBookingId, wanted: write.wanted, total: write.total });
}

/** The stay's calendar (`nights`, with the integration's aliases) of the covered property the create names. */
export function createStayStatement(integrationId: number, ref: { external_id?: string; doorloom_id?: number }, nights: DateWindow) {
  return stayStatement<{ doc: string }>(refShape(ref), { ...refValues(integrationId, ref), from: nights.from, to: nights.to });
}

/** The context of createContextQuery's row. */
export function createContextOf(row: unknown): CreateContext {
  const doc = JSON.parse((row as { doc: string }).doc) as {
    existing: number | null;
    new_id: number | null;
    total: number;
    property: { id: number; status: PropertyRef['status']; external_id: string | null } | null;
    units: PropertyUnit[];
    targets: AppendTarget[];
  };
  return {
    existingId: doc.existing,
    property: doc.property ? { id: doc.property.id, status: doc.property.status, externalId: doc.property.external_id } : null,
    units: doc.units,
    targets: doc.targets,
    newRow: doc.new_id === null ? null : { id: doc.new_id, total: doc.total },
  };
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
