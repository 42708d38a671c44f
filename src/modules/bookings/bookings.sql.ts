import { sql, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { BookingStatus, BookingsTable } from './bookings.tables.js';
import type { AppendTarget } from '../events/events.log.js';
import { coverageSource, coveringTargetsJson, propertyExternalIdOf, propertyUnitsJson, type PropertyUnit } from '../properties/properties.sql.js';

type Q = Kysely<DB> | Transaction<DB>;

export type BookingRow = Selectable<BookingsTable>;

/** Who is looking: an integration (sees its own bookings and host bookings it covers), or the host (staff). */
export type Viewer = { integrationId: number } | { host: true };

export const isHost = (viewer: Viewer): viewer is { host: true } => 'host' in viewer;

/**
 * Visibility (decisions §4): an integration sees the bookings it created and the host's bookings
 * on properties it covers. Another integration's bookings never match, so every path answers 404.
 */
function visibleTo(db: Q, integrationId: number) {
  return (eb: ExpressionBuilder<DB, 'bookings'>) =>
    eb.or([
      eb('bookings.integration_id', '=', integrationId),
      eb.and([
        eb('bookings.integration_id', 'is', null),
        eb.exists(
          eb
            .selectFrom(coverageSource(db).as('vc'))
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
    q = q.where(visibleTo(db, viewer.integrationId));
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
  return db.selectFrom('bookings').selectAll().where('integration_id', '=', integrationId).where('external_booking_id', '=', externalId).executeTakeFirst();
}

/** The insert of a new booking, returning it as stored: calendar.holds' holdStay runs it with the holds. */
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

/**
 * The brand's next free generated host booking name, `DL-<n>`: n counts the brand's generated
 * names only (host_booking_names, one row per brand, which also serialises concurrent creates of
 * the brand), skipping a name the host already gave a booking of its own.
 */
export async function nextHostBookingName(trx: Q, brandId: number): Promise<string> {
  for (;;) {
    const { rows } = await sql<{ name: string; taken: boolean }>`
      with next as (
        insert into host_booking_names as h (brand_id, last_number) values (${brandId}, 1)
        on conflict (brand_id) do update set last_number = h.last_number + 1
        returning 'DL-' || last_number as name
      )
      select next.name, exists (
        select 1 from bookings b where b.integration_id is null and b.brand_id = ${brandId} and b.external_booking_id = next.name
      ) as taken
      from next`.execute(trx);
    if (!rows[0].taken) return rows[0].name;
  }
}

/** The id of the brand's host booking with this external_booking_id, if any. */
export async function hostBookingIdOf(db: Q, brandId: number, externalBookingId: string): Promise<number | null> {
  const row = await db
    .selectFrom('bookings')
    .select('id')
    .where('integration_id', 'is', null)
    .where('brand_id', '=', brandId)
    .where('external_booking_id', '=', externalBookingId)
    .executeTakeFirst();
  return row?.id ?? null;
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

/**
 * What a create decides on besides the calendar, in one statement read under the property's lock:
 * a duplicate external_booking_id, and for the property (when the reference named one) the
 * integration's external_id, its units with the integration's aliases, and the integrations its
 * events go to.
 */
export async function selectCreateContext(
  trx: Transaction<DB>,
  integrationId: number,
  externalBookingId: string,
  propertyId: number | null,
): Promise<CreateContext> {
  const { rows } = await sql<{ doc: string }>`
    select json_build_object(
      'existing', (select b.id from bookings b where b.integration_id = ${integrationId} and b.external_booking_id = ${externalBookingId}),
      'external_id', ${propertyExternalIdOf(integrationId, sql`${propertyId}::int`)},
      'units', ${propertyUnitsJson(integrationId, sql`${propertyId}::int`)},
      'targets', ${coveringTargetsJson(sql`${propertyId}::int`)}
    )::text as doc
  `.execute(trx);
  const doc = JSON.parse(rows[0].doc) as { existing: number | null; external_id: string | null; units: PropertyUnit[]; targets: AppendTarget[] };
  return { existingId: doc.existing, propertyExternalId: doc.external_id, units: doc.units, targets: doc.targets };
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
  let base = db.selectFrom('bookings').where(visibleTo(db, integrationId));
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
