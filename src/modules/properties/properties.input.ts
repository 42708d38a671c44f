import type { Selectable, Updateable } from 'kysely';
import { FieldErrorCollector as Errors, type FieldErrors } from '../../http/errors.js';
import { isObject } from '../../http/validation.js';
import { roundMoney } from '../../lib/money.js';
import type { CreatePropertyInput, UpdatePropertyInput } from './properties.schemas.js';
import type { PropertiesTable } from './properties.tables.js';

/**
 * The rules of property bodies that compare fields (the route schema checks each field), and
 * turning checked bodies into column values. The same rules serve a single request and each
 * batch entry; an entry's keys carry the `properties.N.` prefix.
 */

type Obj = Record<string, unknown>;

/** Rules of a create body (POST /properties, the host's create, each bulk entry). */
export function createRules(body: unknown, prefix = ''): FieldErrors {
  const errors = new Errors(prefix);
  if (!isObject(body)) return errors.errors;
  checkOccupancy(body.occupancy, errors);
  checkUnitNames(body.units, errors);
  checkUnitAliases(body.units, errors);
  return errors.errors;
}

/** Rules of a PUT body. Rules that need the stored property run later (updateColumns). */
export function updateRules(body: unknown, prefix = ''): FieldErrors {
  const errors = new Errors(prefix);
  if (!isObject(body)) return errors.errors;
  checkOccupancy(body.occupancy, errors);
  checkUnitNames(body.units, errors);
  checkUnitAliases(body.units, errors);
  checkUnitTargets(body.units, errors);
  return errors.errors;
}

/** Rules of a host edit (staff PATCH): the groups only; units in the body are ignored. */
export function hostUpdateRules(body: unknown): FieldErrors {
  const errors = new Errors('');
  if (isObject(body)) checkOccupancy(body.occupancy, errors);
  return errors.errors;
}

function checkOccupancy(occupancy: unknown, errors: Errors): void {
  if (!isObject(occupancy)) return;
  const { min_guests: min, max_guests: max } = occupancy;
  // Both sent here; one of them against the stored other is checked by updateColumns.
  if (Number.isInteger(max) && Number.isInteger(min) && (max as number) < (min as number)) {
    errors.add('occupancy.max_guests', 'must not be below occupancy.min_guests');
  }
}

/** Entries within the cap of 50 only: a longer list is refused on `units` alone, not once per entry beyond it. */
const unitEntries = (units: unknown): Array<[number, Obj]> =>
  Array.isArray(units) ? units.slice(0, 50).flatMap((u, i) => (isObject(u) ? [[i, u] as [number, Obj]] : [])) : [];

/** Unit names are unique within the request (compared without case or surrounding spaces). */
function checkUnitNames(units: unknown, errors: Errors): void {
  const seen = new Map<string, number>();
  for (const [i, unit] of unitEntries(units)) {
    if (typeof unit.name !== 'string') continue;
    const name = unit.name.trim().toLowerCase();
    const first = seen.get(name);
    if (first === undefined) seen.set(name, i);
    else errors.add(`units.${i}.name`, `is the same as units.${first}.name; unit names must be unique within the request`);
  }
}

/** A unit external id appears at most once in a request. */
function checkUnitAliases(units: unknown, errors: Errors): void {
  const seen = new Map<string, number>();
  for (const [i, unit] of unitEntries(units)) {
    if (typeof unit.external_id !== 'string') continue;
    const first = seen.get(unit.external_id);
    if (first === undefined) seen.set(unit.external_id, i);
    else errors.add(`units.${i}.external_id`, `is the same as units.${first}.external_id`);
  }
}

/** Update entries: unit rule 1 (an entry must address a unit), and no unit twice. */
function checkUnitTargets(units: unknown, errors: Errors): void {
  const seen = new Map<number, number>();
  for (const [i, unit] of unitEntries(units)) {
    if (unit.inventory_id === undefined && typeof unit.external_id !== 'string') {
      errors.add(`units.${i}`, 'must name the unit by inventory_id or external_id');
      continue;
    }
    if (!Number.isInteger(unit.inventory_id)) continue;
    const first = seen.get(unit.inventory_id as number);
    if (first === undefined) seen.set(unit.inventory_id as number, i);
    else errors.add(`units.${i}`, `addresses the same unit as units.${first}`);
  }
}

/** Rules of a bulk update entry: the update rules, and the entry names its property by doorloom_id or external_id. */
export function bulkUpdateEntryRules(entry: unknown, prefix: string): FieldErrors {
  const errors = new Errors(prefix);
  errors.merge(updateRules(entry, prefix));
  if (isObject(entry) && entry.doorloom_id === undefined && entry.external_id === undefined) {
    errors.add('', 'must name the property by doorloom_id or external_id');
  }
  return errors.errors;
}

/** Bulk create across entries: the same external id (property or unit) in two entries. */
export function bulkCreateRules(body: Obj): FieldErrors {
  const errors = new Errors('');
  checkDuplicatesBetweenItems(body.properties as unknown[], errors);
  return errors.errors;
}

/** Bulk update across entries: as bulk create, and the same doorloom_id in two entries. */
export function bulkUpdateRules(body: Obj): FieldErrors {
  const errors = new Errors('');
  const items = body.properties as unknown[];
  checkDuplicatesBetweenItems(items, errors);
  const ids = new Map<number, number>();
  items.forEach((item, i) => {
    if (!isObject(item) || !Number.isInteger(item.doorloom_id)) return;
    const first = ids.get(item.doorloom_id as number);
    if (first === undefined) ids.set(item.doorloom_id as number, i);
    else errors.add(`properties.${i}.doorloom_id`, `is the same as properties.${first}.doorloom_id`);
  });
  return errors.errors;
}

/** The same property external id, or the same unit external id, in two items of one batch. */
function checkDuplicatesBetweenItems(items: unknown[], errors: Errors): void {
  const properties = new Map<string, number>();
  const units = new Map<string, string>();
  items.forEach((item, i) => {
    if (!isObject(item)) return;
    if (typeof item.external_id === 'string') {
      const first = properties.get(item.external_id);
      if (first === undefined) properties.set(item.external_id, i);
      else errors.add(`properties.${i}.external_id`, `is the same as properties.${first}.external_id`);
    }
    const inItem = new Set<string>();
    for (const [u, unit] of unitEntries(item.units)) {
      if (typeof unit.external_id !== 'string' || inItem.has(unit.external_id)) continue; // within an item: reported above
      inItem.add(unit.external_id);
      const first = units.get(unit.external_id);
      if (first === undefined) units.set(unit.external_id, `properties.${i}.units.${u}`);
      else errors.add(`properties.${i}.units.${u}.external_id`, `is the same as ${first}.external_id`);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Column values

type PropertyRow = Selectable<PropertiesTable>;
export type PropertyColumns = Updateable<PropertiesTable>;

interface AddressParts {
  address_line_1: string;
  address_line_2: string | null;
  landmark: string | null;
  city: string;
  state: string;
  country: string;
  pin_code: string;
}

/** "12 Beach Road, Near the lighthouse, Candolim, Goa 403515, India". */
export function deriveFormattedAddress(a: AddressParts): string {
  const statePin = [a.state, a.pin_code].filter((s) => s && s.trim()).join(' ');
  return [a.address_line_1, a.address_line_2, a.landmark, a.city, statePin, a.country]
    .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    .map((s) => s.trim())
    .join(', ');
}

/** The eight pricing columns of a property (weekday and weekend groups). */
export const PRICE_COLUMNS = [
  'weekday_base_price',
  'weekday_per_night_occupancy',
  'weekday_extra_adult_price',
  'weekday_extra_child_price',
  'weekend_base_price',
  'weekend_per_night_occupancy',
  'weekend_extra_adult_price',
  'weekend_extra_child_price',
] as const;

/** Columns of a new property, with the contract's defaults. */
export function createColumns(input: CreatePropertyInput) {
  const a = input.address;
  const parts: AddressParts = {
    address_line_1: a.address_line_1,
    address_line_2: a.address_line_2 ?? null,
    landmark: a.landmark ?? null,
    city: a.city,
    state: a.state,
    country: a.country ?? 'India',
    pin_code: a.pin_code,
  };
  const maxGuests = input.occupancy.max_guests;
  const price = (p: CreatePropertyInput['pricing']['weekday']) => ({
    base_price: roundMoney(p.base_price),
    per_night_occupancy: p.per_night_occupancy ?? maxGuests,
    extra_adult_price: roundMoney(p.extra_adult_price ?? 0),
    extra_child_price: roundMoney(p.extra_child_price ?? 0),
  });
  const weekday = price(input.pricing.weekday);
  const weekend = price(input.pricing.weekend);
  const f = input.features ?? {};
  return {
    name: input.name,
    property_type: input.property_type ?? null,
    property_category: input.property_category ?? null,
    description: input.description,
    ...parts,
    latitude: a.latitude ?? null,
    longitude: a.longitude ?? null,
    formatted_address: a.formatted_address ? a.formatted_address : deriveFormattedAddress(parts),
    bedrooms: input.space.bedrooms,
    washrooms: input.space.washrooms,
    min_guests: input.occupancy.min_guests ?? 1,
    max_guests: maxGuests,
    weekday_base_price: weekday.base_price,
    weekday_per_night_occupancy: weekday.per_night_occupancy,
    weekday_extra_adult_price: weekday.extra_adult_price,
    weekday_extra_child_price: weekday.extra_child_price,
    weekend_base_price: weekend.base_price,
    weekend_per_night_occupancy: weekend.per_night_occupancy,
    weekend_extra_adult_price: weekend.extra_adult_price,
    weekend_extra_child_price: weekend.extra_child_price,
    is_private: f.is_private ?? false,
    is_pet_friendly: f.is_pet_friendly ?? false,
    max_pets: f.max_pets ?? null,
    pet_charges: f.pet_charges == null ? null : roundMoney(f.pet_charges),
    is_veg: f.is_veg ?? false,
    is_smoking_in_rooms: f.is_smoking_in_rooms ?? false,
  };
}

export interface ColumnChange {
  set: PropertyColumns;
  /** A price column changed value (rates.changed). */
  pricesChanged: boolean;
  /** Field errors that need the stored values (max_guests against a stored min_guests). */
  errors: Errors;
}

type Groups = Omit<UpdatePropertyInput, 'external_id' | 'units'>;

/** The columns a partial body changes: a present group is applied, an absent one untouched. */
export function updateColumns(input: Groups, current: PropertyRow): ColumnChange {
  const set: PropertyColumns = {};
  const errors = new Errors();
  if (input.name !== undefined) set.name = input.name;
  if (input.property_type !== undefined) set.property_type = input.property_type;
  if (input.property_category !== undefined) set.property_category = input.property_category;
  if (input.description !== undefined) set.description = input.description;

  const a = input.address;
  if (a) {
    if (a.address_line_1 !== undefined) set.address_line_1 = a.address_line_1;
    if (a.address_line_2 !== undefined) set.address_line_2 = a.address_line_2;
    if (a.landmark !== undefined) set.landmark = a.landmark;
    if (a.city !== undefined) set.city = a.city;
    if (a.state !== undefined) set.state = a.state;
    if (a.country !== undefined) set.country = a.country ?? 'India';
    if (a.pin_code !== undefined) set.pin_code = a.pin_code;
    if (a.latitude !== undefined) set.latitude = a.latitude;
    if (a.longitude !== undefined) set.longitude = a.longitude;
    // Sent: kept as sent. Not sent (or null/empty): derived again from the address as it now is.
    set.formatted_address = a.formatted_address
      ? a.formatted_address
      : deriveFormattedAddress({
          address_line_1: set.address_line_1 ?? current.address_line_1,
          address_line_2: set.address_line_2 !== undefined ? set.address_line_2 : current.address_line_2,
          landmark: set.landmark !== undefined ? set.landmark : current.landmark,
          city: set.city ?? current.city,
          state: set.state ?? current.state,
          country: set.country ?? current.country,
          pin_code: set.pin_code ?? current.pin_code,
        });
  }

  if (input.space?.bedrooms !== undefined) set.bedrooms = input.space.bedrooms;
  if (input.space?.washrooms !== undefined) set.washrooms = input.space.washrooms;

  const o = input.occupancy;
  if (o) {
    if (o.min_guests !== undefined) set.min_guests = o.min_guests;
    if (o.max_guests !== undefined) set.max_guests = o.max_guests;
    const min = o.min_guests ?? current.min_guests;
    const max = o.max_guests ?? current.max_guests;
    if (max < min) {
      if (o.max_guests !== undefined) errors.add('occupancy.max_guests', `must not be below occupancy.min_guests (${min})`);
      else errors.add('occupancy.min_guests', `must not be above occupancy.max_guests (${max})`);
    }
  }

  for (const side of ['weekday', 'weekend'] as const) {
    const p = input.pricing?.[side];
    if (!p) continue;
    if (p.base_price !== undefined) set[`${side}_base_price`] = roundMoney(p.base_price);
    if (p.per_night_occupancy !== undefined) set[`${side}_per_night_occupancy`] = p.per_night_occupancy;
    if (p.extra_adult_price !== undefined) set[`${side}_extra_adult_price`] = roundMoney(p.extra_adult_price);
    if (p.extra_child_price !== undefined) set[`${side}_extra_child_price`] = roundMoney(p.extra_child_price);
  }
  const pricesChanged = PRICE_COLUMNS.some((c) => set[c] !== undefined && Number(set[c]) !== Number(current[c]));

  const f = input.features;
  if (f) {
    if (f.is_private !== undefined) set.is_private = f.is_private;
    if (f.is_pet_friendly !== undefined) set.is_pet_friendly = f.is_pet_friendly;
    if (f.max_pets !== undefined) set.max_pets = f.max_pets;
    if (f.pet_charges !== undefined) set.pet_charges = f.pet_charges === null ? null : roundMoney(f.pet_charges);
    if (f.is_veg !== undefined) set.is_veg = f.is_veg;
    if (f.is_smoking_in_rooms !== undefined) set.is_smoking_in_rooms = f.is_smoking_in_rooms;
  }
  return { set, pricesChanged, errors };
}
