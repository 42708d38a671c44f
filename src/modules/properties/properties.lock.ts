import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { PropertyStatus } from './properties.schemas.js';

/**
 * The property's lock, and the version of its availability inputs that writers move under it.
 * Both are the property's (its row, a row keyed by it), so the modules above (calendar, bookings,
 * sync) call them here.
 */

/**
 * Proof that the transaction holds a property's lock. Only lockProperty makes one (the class is
 * not exported and its private member keeps any other object from passing for it), so a function
 * that takes a PropertyLock cannot be called without the lock.
 */
class PropertyLock {
  declare private readonly held: true;
  constructor(
    readonly propertyId: number,
    /** The property's status, read under the lock. */
    readonly status: PropertyStatus,
    /** The property's brand (whose clock its data's time rules read). */
    readonly brandId: number,
  ) {}
}
export type { PropertyLock };

/**
 * The property's lock, held to the end of the transaction: every writer of a property's calendar,
 * units, holds, bookings, settings or coverage takes it before it reads what it decides on, so a
 * units_cap or a fresh block is never overtaken by a concurrent booking, and the events written
 * under it are never older than their sequences. `for no key update` leaves inserts that merely
 * reference the property free. `property` is an id or a query of one; null when no such property.
 *
 * The lock order of every writer, so that no two wait on each other: the property (this lock),
 * then its bookings' rows, then the integrations' sequence rows (appendEvents, in id order). A
 * module's own bookkeeping row that names the work (a sync job) may come first.
 */
export async function lockProperty(trx: Transaction<DB>, property: number | RawBuilder<number | null>): Promise<PropertyLock | null> {
  const id = typeof property === 'number' ? sql`${property}::int` : sql`(${property})`;
  const { rows } = await sql<{
    id: number;
    status: PropertyStatus;
    brand_id: number;
  }>`select id, status, brand_id from properties where id = ${id} for no key update`.execute(trx);
  return rows[0] ? new PropertyLock(rows[0].id, rows[0].status, rows[0].brand_id) : null;
}

/**
 * The signal (deps.signals; `calendar` in src/signals.ts) a committed move of a property's inputs
 * version sends in its process, with the property ids; the calendar's availability snapshots
 * listen to it.
 */
export const INPUTS_SIGNAL = 'calendar' as const;

/**
 * Moves the version of a property's availability inputs (calendar_versions, see its migration):
 * units, unit aliases, and the calendar's unit blocks, holds and nights' blocks and caps. Every
 * writer of them runs it in the writing transaction, holding the property's lock: a snapshot cached
 * at the old version is then never served once the write is visible, in this process or any
 * other. The statement, to run alone or as a CTE of a writer's (`uow`, the writer's unit of work:
 * once it commits, this process, and on PostgreSQL the others when the commit notifies them, hear
 * INPUTS_SIGNAL for the property; see calendar.snapshot-refresh.ts).
 */
export function touchInputsVersionQuery(uow: UnitOfWork, lock: PropertyLock): RawBuilder<unknown> {
  const { propertyId } = lock;
  uow.signal(INPUTS_SIGNAL, propertyId, { otherProcesses: true });
  return sql`insert into calendar_versions (property_id, version) values (${propertyId}, nextval('calendar_version_seq'))
    on conflict (property_id) do update set version = excluded.version`;
}

/** touchInputsVersionQuery alone, sent ahead: nothing waits for its answer. */
export function touchInputsVersion(uow: UnitOfWork, lock: PropertyLock): void {
  uow.send(touchInputsVersionQuery(uow, lock));
}

/** The property's inputs version as text (null before its first touch), a scalar subquery of `propertyId` (an SQL expression). */
export function inputsVersionOf(propertyId: RawBuilder<number>): RawBuilder<string | null> {
  return sql<string | null>`(select version::text from calendar_versions where property_id = ${propertyId})`;
}
