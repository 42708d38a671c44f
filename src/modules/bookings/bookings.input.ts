import { AppError, validationFailed, type FieldErrors } from '../../http/errors.js';
import { compileBodySchema, toFieldErrors } from '../../http/validation.js';
import { daysBetween, isValidDate, startOfKolkataDate } from '../../lib/time.js';
import {
  CancelBookingBody,
  CreateBookingCheck,
  HostCreateBookingBody,
  MAX_UNITS_PER_BOOKING,
  UpdateBookingBody,
  type CancelBookingInput,
  type CreateBookingInput,
  type HostCreateBookingInput,
  type UnitEntryInput,
  type UpdateBookingInput,
} from './bookings.schemas.js';

/**
 * Checking booking bodies: the schema, then the rules a schema cannot say. Refusals are
 * 422 VALIDATION_FAILED keyed by dotted field path.
 */

const validateCreate = compileBodySchema(CreateBookingCheck);
const validateHostCreate = compileBodySchema(HostCreateBookingBody);
const validateUpdate = compileBodySchema(UpdateBookingBody);
const validateCancel = compileBodySchema(CancelBookingBody);

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

const DATE_MESSAGE = 'must be a date written YYYY-MM-DD';

class Errors {
  readonly all: FieldErrors = {};
  add(key: string, message: string): void {
    const list = (this.all[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  merge(errors: FieldErrors): void {
    for (const [key, messages] of Object.entries(errors)) for (const m of messages) this.add(key, m);
  }
  throwIfAny(): void {
    if (Object.keys(this.all).length > 0) throw validationFailed(this.all);
  }
}

/**
 * Groups with required fields: a missing group is checked as an empty one, so that the refusal
 * names the field the contract requires (`guest.name`), not the group.
 */
function probeGroups(body: Obj, groups: string[]): Obj {
  const probe: Obj = { ...body };
  for (const group of groups) if (probe[group] === undefined) probe[group] = {};
  return probe;
}

/** The same unit named twice in one list: 422 on the later entry. */
function checkRepeatedUnits(units: UnitEntryInput[] | undefined, errors: Errors): void {
  if (!units) return;
  const aliases = new Map<string, number>();
  const ids = new Map<number, number>();
  // within the cap only: a longer list is refused on `units` alone, not once per entry beyond it
  units.slice(0, MAX_UNITS_PER_BOOKING).forEach((u, i) => {
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
  const nights = daysBetween(checkIn as string, checkOut as string);
  if (nights < 1) errors.add('check_out', 'must be after check_in');
  else if (nights > rules.maxStayNights) {
    errors.add('check_out', `the stay must not exceed the maximum of ${rules.maxStayNights} nights (this stay has ${nights})`);
  }
}

export function notBeforeToday(checkIn: string, today: string): void {
  if (checkIn < today) throw validationFailed({ check_in: [`must not be before today (${today}, Asia/Kolkata)`] });
}

const propertyNotMapped = (message = 'Send property.external_id or property.doorloom_id of a property this integration covers.') =>
  new AppError(422, 'PROPERTY_NOT_MAPPED', message);

/**
 * POST /bookings: the body (schema and stay rules, not yet "today", which comes after the
 * duplicate check), then the property reference. A missing or empty reference is
 * PROPERTY_NOT_MAPPED rather than a validation failure (contract: Errors).
 */
export function checkCreateBody(body: unknown, rules: StayRules): CreateBookingInput {
  const errors = new Errors();
  if (!isObject(body)) {
    errors.add('body', 'must be a JSON object');
    errors.throwIfAny();
  }
  const probe = probeGroups(body as Obj, ['guest', 'pricing', 'source']);
  if (!validateCreate(probe)) errors.merge(toFieldErrors(validateCreate.errors ?? []));
  checkStay(probe.check_in, probe.check_out, rules, errors);
  if (Array.isArray(probe.units)) checkRepeatedUnits(probe.units as UnitEntryInput[], errors);
  errors.throwIfAny();
  const input = body as CreateBookingInput;
  const ref = input.property as { external_id?: string; doorloom_id?: number } | undefined;
  if (!ref || (ref.external_id === undefined && ref.doorloom_id === undefined)) {
    throw propertyNotMapped('The property reference is missing: send property.external_id or property.doorloom_id.');
  }
  return input;
}

export { propertyNotMapped };

/** Staff POST /properties/{id}/bookings. */
export function checkHostCreateBody(body: unknown, rules: StayRules): HostCreateBookingInput {
  const errors = new Errors();
  if (!isObject(body)) {
    errors.add('body', 'must be a JSON object');
    errors.throwIfAny();
  }
  const probe = probeGroups(body as Obj, ['guest', 'pricing']);
  if (!validateHostCreate(probe)) errors.merge(toFieldErrors(validateHostCreate.errors ?? []));
  checkStay(probe.check_in, probe.check_out, rules, errors);
  if (Array.isArray(probe.units)) checkRepeatedUnits(probe.units as UnitEntryInput[], errors);
  errors.throwIfAny();
  return body as HostCreateBookingInput;
}

/** PATCH: each present field checked; the stay rules once the new dates are known (checkNewStay). */
export function checkUpdateBody(body: unknown): UpdateBookingInput {
  const errors = new Errors();
  const input = body === undefined ? {} : body;
  if (!isObject(input)) {
    errors.add('body', 'must be a JSON object');
    errors.throwIfAny();
  }
  if (!validateUpdate(input)) errors.merge(toFieldErrors(validateUpdate.errors ?? []));
  const obj = input as Obj;
  if (typeof obj.check_in === 'string' && !isValidDate(obj.check_in)) errors.add('check_in', DATE_MESSAGE);
  if (typeof obj.check_out === 'string' && !isValidDate(obj.check_out)) errors.add('check_out', DATE_MESSAGE);
  if (isObject(obj.source) && obj.source.channel !== undefined) errors.add('source.channel', 'cannot be changed after create');
  if (Array.isArray(obj.units)) checkRepeatedUnits(obj.units as UnitEntryInput[], errors);
  errors.throwIfAny();
  return input as UpdateBookingInput;
}

/** The stay a PATCH leads to (dates already well-formed). */
export function checkNewStay(checkIn: string, checkOut: string, rules: StayRules): void {
  const errors = new Errors();
  checkStay(checkIn, checkOut, rules, errors);
  errors.throwIfAny();
}

/** Cancel: an optional body of reason and refund_note. */
export function checkCancelBody(body: unknown): CancelBookingInput {
  if (body === undefined || body === null) return {};
  const errors = new Errors();
  if (!isObject(body)) {
    errors.add('body', 'must be a JSON object');
    errors.throwIfAny();
  }
  if (!validateCancel(body)) errors.merge(toFieldErrors(validateCancel.errors ?? []));
  errors.throwIfAny();
  return body as CancelBookingInput;
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
  if (isValidDate(value as unknown)) return startOfKolkataDate(value);
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
