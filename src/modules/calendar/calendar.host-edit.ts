import { sql } from 'kysely';
import type { Deps } from '../../deps.js';
import { FieldErrorCollector, notFound } from '../../http/errors.js';
import { dataClock } from '../../lib/clock.js';
import { addDays, daysBetween, DATE_MESSAGE, isValidDate, kolkataDate, type DateWindow } from '../../lib/time.js';
import { unitOfWork, type AppendResult, type UnitOfWork } from '../events/events.log.js';
import { calendarSettings, type CalendarSettings } from './calendar.payloads.js';
import { lockProperty, touchInputsVersion } from '../properties/properties.lock.js';
import { propertyBrandId } from '../properties/properties.sql.js';
import { SNAPSHOT_HORIZON_DAYS } from './calendar.snapshots.js';

// The steps every host calendar edit (staff API, decisions §9) shares: validating the nights,
// the property's lock around the change, and writing per-night columns.

export const settingsOf = (deps: Deps): CalendarSettings => calendarSettings(deps.config);

/** Today on the clock of the property's brand (the service clock for an unknown property, refused later). */
export async function propertyToday(deps: Deps, propertyId: number): Promise<string> {
  return kolkataDate(dataClock(deps.clock, 'today', { brandId: await propertyBrandId(deps.db, propertyId) }).now());
}

export interface HostEditResult {
  doorloom_id: number;
  window: DateWindow | null;
  data: unknown;
}

/** Validates the nights of a host edit: real dates, from ≤ to, to at most 730 days ahead. */
export function checkNights(errors: FieldErrorCollector, from: unknown, to: unknown, today: string): DateWindow | null {
  let ok = true;
  if (!isValidDate(from)) {
    errors.add('from', from === undefined ? 'is required' : DATE_MESSAGE);
    ok = false;
  }
  if (!isValidDate(to)) {
    errors.add('to', to === undefined ? 'is required' : DATE_MESSAGE);
    ok = false;
  }
  if (!ok) return null;
  const window = { from: from as string, to: to as string };
  const horizon = addDays(today, SNAPSHOT_HORIZON_DAYS);
  if (window.to < window.from) return (errors.add('to', 'must be on or after from'), null);
  if (window.to > horizon) return (errors.add('to', `must not be more than ${SNAPSHOT_HORIZON_DAYS} days ahead of today (at most ${horizon})`), null);
  if (daysBetween(window.from, window.to) + 1 > SNAPSHOT_HORIZON_DAYS + 1) {
    return (errors.add('from', `the window must not exceed ${SNAPSHOT_HORIZON_DAYS + 1} nights`), null);
  }
  return window;
}

/**
 * Runs a host edit: takes the property's lock (so a concurrent booking cannot decide on the state
 * being replaced), applies the change, records the events, commits, then wakes delivery.
 */
export async function hostEdit<T>(deps: Deps, propertyId: number, work: (trx: UnitOfWork) => Promise<{ result: T; appended: AppendResult }>): Promise<T> {
  const { result } = await unitOfWork(deps, async (trx) => {
    const lock = await lockProperty(trx, propertyId);
    if (!lock) throw notFound('No such property.');
    touchInputsVersion(trx, lock);
    return work(trx);
  });
  return result;
}

type NightColumn =
  | 'block_scope'
  | 'units_cap'
  | 'base_price'
  | 'extra_adult_price'
  | 'extra_child_price'
  | 'min_stay'
  | 'max_stay'
  | 'stop_sell'
  | 'closed_to_arrival'
  | 'closed_to_departure';

const COLUMN_TYPES: Record<NightColumn, string> = {
  block_scope: 'text',
  units_cap: 'int',
  base_price: 'numeric',
  extra_adult_price: 'numeric',
  extra_child_price: 'numeric',
  min_stay: 'int',
  max_stay: 'int',
  stop_sell: 'boolean',
  closed_to_arrival: 'boolean',
  closed_to_departure: 'boolean',
};
const ALL_COLUMNS = Object.keys(COLUMN_TYPES) as NightColumn[];

/** Sets the given per-night columns on every night of the window (one statement), then drops empty rows; both sent ahead. */
export function setNights(trx: UnitOfWork, propertyId: number, window: DateWindow, values: Partial<Record<NightColumn, unknown>>): void {
  const columns = (Object.keys(values) as NightColumn[]).filter((c) => values[c] !== undefined);
  if (columns.length === 0) return;
  // Parameters in a SELECT list have no type of their own; the casts give them the column's.
  trx.send(sql`
    insert into calendar_nights (property_id, night, ${sql.join(columns.map((c) => sql.ref(c)))})
    select ${propertyId}::int, d::date, ${sql.join(columns.map((c) => sql`${values[c] ?? null}::${sql.raw(COLUMN_TYPES[c])}`))}
    from generate_series(${window.from}::date, ${window.to}::date, interval '1 day') as d
    on conflict (property_id, night) do update set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))}
  `);
  trx.send(sql`
    delete from calendar_nights
    where property_id = ${propertyId} and night between ${window.from}::date and ${window.to}::date
      and ${sql.join(
        ALL_COLUMNS.map((c) => sql`${sql.ref(c)} is null`),
        sql` and `,
      )}
  `);
}
