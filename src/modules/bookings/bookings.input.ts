import { fail, validationFailed, type FieldErrors } from '../../http/errors.js';
import { DATE_MESSAGE, daysBetween, isValidDate, startOfKolkataDate } from '../../lib/time.js';
import { MAX_UNITS_PER_BOOKING, type CreateBookingInput, type UnitEntryInput } from './bookings.schemas.js';

/**
 * The rules of booking bodies that compare fields (the route schema checks each field): real
 * dates, the stay against its limit, the same unit twice. They run in the route's validation, so
 * their refusals join the schema's in one 422 VALIDATION_FAILED keyed by dotted field path.
 */

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A booking body that is not an object is refused with this message (key `body`). */
export const NOT_AN_OBJECT = 'must be a JSON object';

class Errors {
  readonly all: FieldErrors = {};
  add(key: string, message: string): void {
    const list = (this.all[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  throwIfAny(): void {
    if (Object.keys(this.all).length > 0) throw validationFailed(this.all);
  }
}

/** The same unit named twice in one list: 422 on the later entry. */
function checkRepeatedUnits(units: unknown, errors: Errors): void {
  if (!Array.isArray(units)) return;
  const aliases = new Map<string, number>();
  const ids = new Map<number, number>();
  // within the cap only: a longer list is refused on `units` alone, not once per entry beyond it
  (units as UnitEntryInput[]).slice(0, MAX_UNITS_PER_BOOKING).forEach((u, i) => {
    if (u === null || typeof u !== 'object') return; // refused by the schema already
    if (u.external_unit_id !== undefined) {
      const first = aliases.get(u.external_unit_id);
      if (first !== undefined) errors.add(`units.${i}`, `names the same unit as units.${first}`);
      else aliases.set(u.external_unit_id, i);
    }
    if (u.inventory_id !== undefined) {
      const first = ids.get(u.inventory_id);
      if (first !== undefined) errors.add(`units.${i}`, `names the same unit as units.${first}`);
      else ids.set(u.inventory_id, i);
    }
  });
}

export interface StayRules {
  maxStayNights: number;
}

/** check_in and check_out: real dates, check_out after check_in, at most the platform maximum. */
function checkStay(checkIn: unknown, checkOut: unknown, rules: StayRules, errors: Errors): void {
  const inOk = typeof checkIn === 'string' && isValidDate(checkIn);
  const outOk = typeof checkOut === 'string' && isValidDate(checkOut);
  if (typeof checkIn === 'string' && !inOk) errors.add('check_in', DATE_MESSAGE);
  if (typeof checkOut === 'string' && !outOk) errors.add('check_out', DATE_MESSAGE);
  if (!inOk || !outOk) return;
  const nights = daysBetween(checkIn, checkOut);
  if (nights < 1) errors.add('check_out', 'must be after check_in');
  else if (nights > rules.maxStayNights) {
    errors.add('check_out', `the stay must not exceed the maximum of ${rules.maxStayNights} nights (this stay has ${nights})`);
  }
}

export function notBeforeToday(checkIn: string, today: string): void {
  if (checkIn < today) throw validationFailed({ check_in: [`must not be before today (${today}, Asia/Kolkata)`] });
}

const propertyNotMapped = (message = 'Send property.external_id or property.doorloom_id of a property this integration covers.') =>
  fail('PROPERTY_NOT_MAPPED', message);

/** Rules of a create body (POST /bookings and the host's create): the stay and repeated units. */
export function createRules(rules: StayRules) {
  return (body: Obj): FieldErrors => {
    const errors = new Errors();
    checkStay(body.check_in, body.check_out, rules, errors);
    checkRepeatedUnits(body.units, errors);
    return errors.all;
  };
}

/**
 * POST /bookings, once the body passed validation: a missing or empty property reference is
 * PROPERTY_NOT_MAPPED rather than a validation failure (contract: Errors).
 */
export function checkPropertyRef(input: CreateBookingInput): CreateBookingInput {
  const ref = input.property as { external_id?: string; doorloom_id?: number } | undefined;
  if (!ref || (ref.external_id === undefined && ref.doorloom_id === undefined)) {
    throw propertyNotMapped('The property reference is missing: send property.external_id or property.doorloom_id.');
  }
  return input;
}

export { propertyNotMapped };

/** Rules of a PATCH: real dates, the channel unchanged, repeated units; the stay once the new dates are known (checkNewStay). */
export function updateRules(body: Obj): FieldErrors {
  const errors = new Errors();
  if (typeof body.check_in === 'string' && !isValidDate(body.check_in)) errors.add('check_in', DATE_MESSAGE);
  if (typeof body.check_out === 'string' && !isValidDate(body.check_out)) errors.add('check_out', DATE_MESSAGE);
  if (isObject(body.source) && body.source.channel !== undefined) errors.add('source.channel', 'cannot be changed after create');
  checkRepeatedUnits(body.units, errors);
  return errors.all;
}

/** The stay a PATCH leads to (dates already well-formed). */
export function checkNewStay(checkIn: string, checkOut: string, rules: StayRules): void {
  const errors = new Errors();
  checkStay(checkIn, checkOut, rules, errors);
  errors.throwIfAny();
}

// ---------------------------------------------------------------------------------------------
// updated_since

const KOLKATA_LOCAL = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * `updated_since`: any parseable date or timestamp (contract). A date is the start of that day in
 * Asia/Kolkata; a timestamp without an offset is Asia/Kolkata local time; digits are Unix seconds
 * (or milliseconds when that long). A `+` of an offset that arrived unencoded (decoded to a space)
 * is read as `+`. Null when nothing sensible can be read from it.
 */
export function parseUpdatedSince(raw: string): Date | null {
  const date = readUpdatedSince(raw);
  // Years 1 to 9999 only: beyond them a Date is invalid or out of a timestamp column's range (a 500).
  return date && date.getTime() >= MIN_TIME && date.getTime() <= MAX_TIME ? date : null;
}

const MIN_TIME = Date.parse('0001-01-01T00:00:00Z');
const MAX_TIME = Date.parse('9999-12-31T23:59:59Z');

function readUpdatedSince(raw: string): Date | null {
  let value = raw.trim();
  if (value === '') return null;
  if (/^\d{1,16}$/.test(value)) {
    const n = Number(value);
    return new Date(value.length >= 13 ? n : n * 1000);
  }
  // Held as unknown so that the type guard's false branch does not narrow `value` to never.
  const candidate: unknown = value;
  if (isValidDate(candidate)) return startOfKolkataDate(candidate);
  value = value.replace(/^(\d{4}-\d{2}-\d{2}[T ][\d:.]+) (\d{2}:?\d{2})$/, '$1+$2');
  const local = KOLKATA_LOCAL.exec(value);
  if (local) {
    const [, day, hh, mm, ss = '00', frac = ''] = local;
    if (!isValidDate(day) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 59) return null;
    const ms = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
    return new Date(startOfKolkataDate(day).getTime() + ((Number(hh) * 60 + Number(mm)) * 60 + Number(ss)) * 1000 + ms);
  }
  if (ISO_WITH_ZONE.test(value)) {
    if (!isValidDate(value.slice(0, 10))) return null;
    const parsed = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
    return Number.isNaN(parsed) ? null : new Date(parsed);
  }
  // Other spellings with an explicit zone (RFC 2822 / HTTP dates: "Sun, 22 Nov 2026 10:00:00 GMT").
  if (/(GMT|UTC|Z|[+-]\d{4})$/i.test(value)) {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : new Date(parsed);
  }
  return null;
}
