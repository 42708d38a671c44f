import { Optional, Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';

/**
 * The property input groups (contract: "Property input groups") and the Property block. The input
 * schemas are the routes' body schemas, validated once by Fastify: strict about types (nothing is
 * coerced), unknown fields ignored. The rules that compare fields (max_guests not below
 * min_guests, unit names unique within the request, …) live in properties.input.ts. The views the
 * service sends are typed from the response schemas, so the OpenAPI document says what is sent.
 */

export const PROPERTY_TYPES = [
  'villa',
  'apartment',
  'farm_stay',
  'home_stay',
  'hostel',
  'bed_and_breakfast',
  'resort',
  'cottage',
  'guest_house',
  'room',
  'suite',
  'dorm',
  'hotel',
] as const;
export const PROPERTY_CATEGORIES = ['vacation_rental', 'resort_hotel'] as const;
export const PROPERTY_STATUSES = ['active', 'inactive', 'archived'] as const;
export type PropertyStatus = (typeof PROPERTY_STATUSES)[number];

/** The largest amount a numeric(12, 2) column holds. */
const MAX_MONEY = 9_999_999_999.99;
export const EXTERNAL_ID_PATTERN = '^[A-Za-z0-9._:-]+$';

/** `schema` or null, as one JSON-schema type list (so a failure names the real rule, not "anyOf"). */
function orNull<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [s.type, 'null'], ...(s.enum ? { enum: [...s.enum, null] } : {}) });
}
const oneOf = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

const text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, description });
/** Optional free text: may be empty. */
const optionalText = (max: number, description?: string) => Type.String({ maxLength: max, description });
const externalId = (description: string) => Type.String({ minLength: 1, maxLength: 128, pattern: EXTERNAL_ID_PATTERN, description });
const money = (description: string) => Type.Number({ minimum: 0, maximum: MAX_MONEY, description });
const guests = (description: string) => Type.Integer({ minimum: 1, maximum: 500, description });
const rooms = (description: string) => Type.Integer({ minimum: 0, maximum: 500, description });

const opt = Optional;

function addressGroup(create: boolean) {
  const req = <T extends TSchema>(s: T) => (create ? s : opt(s));
  return Type.Object({
    address_line_1: req(text(255)),
    address_line_2: opt(orNull(optionalText(255))),
    landmark: opt(orNull(optionalText(255))),
    city: req(text(100)),
    state: req(text(100)),
    country: opt(orNull(text(100, 'Defaults to India'))),
    pin_code: req(text(20)),
    latitude: opt(orNull(Type.Number({ minimum: -90, maximum: 90 }))),
    longitude: opt(orNull(Type.Number({ minimum: -180, maximum: 180 }))),
    formatted_address: opt(orNull(optionalText(500, 'Derived from the other address fields when omitted'))),
  });
}

function priceGroup(create: boolean) {
  return Type.Object({
    base_price: create ? money('INR per night') : opt(money('INR per night')),
    per_night_occupancy: opt(guests('Guests included in base_price; defaults to occupancy.max_guests')),
    extra_adult_price: opt(money('INR per extra adult per night; default 0')),
    extra_child_price: opt(money('INR per extra child per night; default 0')),
  });
}

function groups(create: boolean) {
  const req = <T extends TSchema>(s: T) => (create ? s : opt(s));
  return {
    name: req(text(255)),
    property_type: opt(orNull(oneOf(PROPERTY_TYPES, 'Never coerced: any other value is refused'))),
    property_category: opt(orNull(oneOf(PROPERTY_CATEGORIES, 'vacation_rental or resort_hotel'))),
    description: req(text(2000)),
    address: req(addressGroup(create)),
    space: req(Type.Object({ bedrooms: req(rooms('0 to 500')), washrooms: req(rooms('0 to 500')) })),
    occupancy: req(
      Type.Object({
        min_guests: opt(guests('Default 1')),
        max_guests: req(guests('Not below min_guests')),
      }),
    ),
    pricing: req(
      Type.Object(
        {
          weekday: req(priceGroup(create)),
          weekend: req(priceGroup(create)),
        },
        { description: 'weekday: Sunday to Thursday nights; weekend: Friday and Saturday nights' },
      ),
    ),
    features: opt(
      Type.Object({
        is_private: opt(Type.Boolean()),
        is_pet_friendly: opt(Type.Boolean()),
        max_pets: opt(orNull(Type.Integer({ minimum: 0, maximum: 50 }))),
        pet_charges: opt(orNull(money('INR per pet'))),
        is_veg: opt(Type.Boolean()),
        is_smoking_in_rooms: opt(Type.Boolean()),
      }),
    ),
  };
}

const unitName = text(255, 'Unique within the request');
const unitCode = orNull(optionalText(64));
const unitOccupancy = orNull(Type.Integer({ minimum: 1, maximum: 500, description: 'Informational; not enforced' }));

export const CreateUnitInput = Type.Object({
  name: unitName,
  external_id: opt(orNull(externalId('Becomes external_unit_id; unique within the integration'))),
  code: opt(unitCode),
  max_occupancy: opt(unitOccupancy),
});

export type CreateUnitEntry = Static<typeof CreateUnitInput>;

export const UpdateUnitInput = Type.Object({
  inventory_id: opt(Type.Integer({ minimum: 1, description: 'Addresses a unit by service id' })),
  external_id: opt(
    orNull(externalId('Addresses a unit by alias; an unknown alias creates a unit. With inventory_id: sets or changes the alias; null clears it')),
  ),
  name: opt(unitName),
  code: opt(unitCode),
  max_occupancy: opt(unitOccupancy),
  is_active: opt(Type.Boolean({ description: 'false takes the unit off sale (never the default unit); true restores it' })),
});

export const CreatePropertyBody = Type.Object({
  external_id: opt(orNull(externalId("The partner's id for the property; unique within the integration"))),
  ...groups(true),
  units: opt(Type.Array(CreateUnitInput, { minItems: 1, maxItems: 50, description: 'Omitted: one default unit named after the property' })),
});
export type CreatePropertyInput = Static<typeof CreatePropertyBody>;

export const UpdatePropertyBody = Type.Object({
  external_id: opt(orNull(externalId('Re-maps the id; null clears it'))),
  ...groups(false),
  units: opt(Type.Array(UpdateUnitInput, { minItems: 1, maxItems: 50, description: 'Merge list: unmentioned units are untouched' })),
});
export type UpdatePropertyInput = Static<typeof UpdatePropertyBody>;
export type UpdateUnitEntry = Static<typeof UpdateUnitInput>;

/** Host edits through the staff API: the update groups, without partner mappings or units. */
export const HostUpdatePropertyBody = Type.Object(groups(false));
export type HostUpdatePropertyInput = Static<typeof HostUpdatePropertyBody>;

export const BulkCreateBody = Type.Object({
  properties: Type.Array(CreatePropertyBody, { minItems: 1, maxItems: 25 }),
});
export type BulkCreateInput = Static<typeof BulkCreateBody>;

export const BulkUpdateItem = Type.Object({
  doorloom_id: opt(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Identifies the property (this or external_id)' })),
  external_id: opt(externalId('Identifies the property; never re-maps it in a bulk update')),
  ...groups(false),
  units: opt(Type.Array(UpdateUnitInput, { minItems: 1, maxItems: 50 })),
});
export type BulkUpdateInput = Static<typeof BulkUpdateItem>;

export const BulkUpdateBody = Type.Object({
  properties: Type.Array(BulkUpdateItem, { minItems: 1, maxItems: 25 }),
});
export type BulkUpdateBodyInput = Static<typeof BulkUpdateBody>;

export const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  status: Type.Optional(oneOf(PROPERTY_STATUSES, 'Only properties in this status')),
});
export type ListQueryInput = Static<typeof ListQuery>;

export const PropertyParams = Type.Object({
  property: Type.String({ description: "The service's property id or the partner's external_id" }),
});

export const IdParams = Type.Object({ id: Type.String() });
export const CoverageParams = Type.Object({ id: Type.String(), property_id: Type.String() });
export const CoverageBody = Type.Object({
  external_id: opt(orNull(externalId("The integration's id for the property"))),
});
export type CoverageInput = Static<typeof CoverageBody>;

// ---------------------------------------------------------------------------------------------
// Responses (documentation only)

export const UnitView = Type.Object({
  inventory_id: Type.Integer(),
  external_unit_id: Nullable(Type.String()),
  name: Type.String(),
  code: Nullable(Type.String()),
  is_active: Type.Boolean(),
  is_default: Type.Boolean(),
  max_occupancy: Nullable(Type.Integer()),
  deleted: Type.Boolean({ description: 'Always false here; true only on inventory events for a retired alias' }),
});

export const PropertyBlock = Type.Object({
  doorloom_id: Type.Integer(),
  external_id: Nullable(Type.String()),
  coverage: Type.String({ description: 'active' }),
  name: Type.String(),
  property_type: Nullable(Type.String()),
  status: Type.String({ description: 'active, inactive or archived' }),
  is_master: Type.Boolean(),
  master_property_id: Type.Integer(),
  units: Type.Array(UnitView, { description: 'Active units only; the first created is the default' }),
});

const PriceView = Type.Object({
  base_price: Type.Number(),
  per_night_occupancy: Type.Integer(),
  extra_adult_price: Type.Number(),
  extra_child_price: Type.Number(),
});

/** The Property block plus the input groups, as property.changed carries it. */
export const PropertyDetail = Type.Composite([
  PropertyBlock,
  Type.Object({
    description: Type.String(),
    property_category: Nullable(Type.String()),
    address: Type.Object({
      address_line_1: Type.String(),
      address_line_2: Nullable(Type.String()),
      landmark: Nullable(Type.String()),
      city: Type.String(),
      state: Type.String(),
      country: Type.String(),
      pin_code: Type.String(),
      latitude: Nullable(Type.Number()),
      longitude: Nullable(Type.Number()),
      formatted_address: Type.String(),
    }),
    space: Type.Object({ bedrooms: Type.Integer(), washrooms: Type.Integer() }),
    occupancy: Type.Object({ min_guests: Type.Integer(), max_guests: Type.Integer() }),
    pricing: Type.Object({ weekday: PriceView, weekend: PriceView }),
    features: Type.Object({
      is_private: Type.Boolean(),
      is_pet_friendly: Type.Boolean(),
      max_pets: Nullable(Type.Integer()),
      pet_charges: Nullable(Type.Number()),
      is_veg: Type.Boolean(),
      is_smoking_in_rooms: Type.Boolean(),
    }),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  }),
]);

export const PropertyList = Type.Object({
  sequence: Type.Integer({ description: 'Watermark: the last event sequence read before the list was built' }),
  properties: Type.Array(PropertyBlock),
});

export const Pagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  last_page: Type.Integer(),
});

export const BulkResult = Type.Object({
  summary: Type.Object({ requested: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer() }),
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      external_id: Nullable(Type.String()),
      doorloom_id: Nullable(Type.Integer()),
      status: Type.String({ description: 'created, updated or failed' }),
      property: Type.Optional(PropertyBlock),
      error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String(), errors: Type.Optional(Type.Record(Type.String(), Type.Unknown())) })),
    }),
  ),
});

/** The staff view of a property: the detail without partner mappings, every unit (active or not), its coverage. */
export const StaffPropertyView = Type.Object({
  ...Type.Omit(PropertyDetail, ['external_id', 'coverage', 'units']).properties,
  brand_id: Type.Integer(),
  archived_at: Nullable(Timestamp()),
  units: Type.Array(
    Type.Object({
      inventory_id: Type.Integer(),
      name: Type.String(),
      code: Nullable(Type.String()),
      is_active: Type.Boolean(),
      is_default: Type.Boolean(),
      max_occupancy: Nullable(Type.Integer()),
    }),
  ),
  coverage: Type.Array(Type.Object({ integration_id: Type.Integer(), external_id: Nullable(Type.String()) })),
});
