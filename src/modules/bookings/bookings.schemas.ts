import { Optional, Type, type Static, type TSchema } from '@sinclair/typebox';
import { BOOKING_STATUSES, MEAL_PLANS } from './bookings.tables.js';

/**
 * The booking wire (contract: Booking, POST /bookings; decisions §4). Input schemas are the
 * routes' body schemas, validated once by Fastify: strict about types (nothing is coerced),
 * unknown fields ignored. What a schema cannot say (dates against each other and today, the stay
 * limit, the same unit twice, …) is checked in bookings.input.ts; which fields are required is
 * said here once. The Booking view is typed from BookingObject, so the OpenAPI document says
 * what is sent.
 */

/** The largest amount a numeric(12, 2) column holds. */
const MAX_MONEY = 9_999_999_999.99;
/** Ids are PostgreSQL int. */
const MAX_ID = 2147483647;

function orNull<T extends TSchema>(schema: T) {
  const s = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [s.type, 'null'], ...(s.enum ? { enum: [...s.enum, null] } : {}) });
}
const oneOf = <T extends readonly string[]>(values: T, description: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });
const text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, description });
import { DateString, Timestamp } from '../../http/schemas.js';
const optionalText = (max: number, description?: string) => Type.String({ maxLength: max, description });
const opt = Optional;

export const MAX_UNITS_PER_BOOKING = 20;
export const MAX_GUESTS_PER_UNIT = 50;

/** `YYYY-MM-DD`; whether it is a real date is checked by hand (a pattern cannot say 2026-02-30). */
const date = (description: string) => DateString(description);

const UnitEntry = Type.Object({
  external_unit_id: opt(text(128, "The integration's unit alias")),
  inventory_id: opt(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'The unit by service id' })),
  adults: opt(Type.Integer({ minimum: 1, maximum: MAX_GUESTS_PER_UNIT, description: '1 to 50; default 1' })),
  children: opt(Type.Integer({ minimum: 0, maximum: MAX_GUESTS_PER_UNIT, description: '0 to 50; default 0' })),
  meal_plan: opt(oneOf(MEAL_PLANS, 'EP (room only, default), CP, MAP or AP')),
});
export type UnitEntryInput = Static<typeof UnitEntry>;

const Units = Type.Array(UnitEntry, {
  minItems: 1,
  maxItems: MAX_UNITS_PER_BOOKING,
  description: 'Up to 20 units. Each by external_unit_id or inventory_id, or neither: the service then picks a unit free for the whole stay.',
});

const Guest = (create: boolean) =>
  Type.Object({
    name: create ? text(255) : opt(text(255)),
    phone_code: opt(orNull(optionalText(10))),
    mobile: opt(orNull(optionalText(32))),
  });

const Pricing = (create: boolean) =>
  Type.Object({
    total: create
      ? Type.Number({ minimum: 0, maximum: MAX_MONEY, description: 'INR' })
      : opt(Type.Number({ minimum: 0, maximum: MAX_MONEY, description: 'INR' })),
    currency: opt(Type.Unsafe<'INR'>({ type: 'string', enum: ['INR'], description: 'Always INR' })),
  });

const cancellationFields = {
  reason: opt(orNull(optionalText(500))),
  refund_note: opt(orNull(optionalText(500))),
};

export const PropertyRef = Type.Object(
  {
    external_id: opt(text(128)),
    doorloom_id: opt(Type.Integer({ minimum: 1, maximum: MAX_ID })),
  },
  { description: 'The property by the partner’s external_id or by doorloom_id' },
);

export const CreateBookingBody = Type.Object({
  external_booking_id: text(128, 'The partner’s id for the booking, unique within the integration'),
  property: PropertyRef,
  units: Units,
  check_in: date('YYYY-MM-DD, not before today (Asia/Kolkata)'),
  check_out: date('YYYY-MM-DD, exclusive; at most MAX_STAY_NIGHTS after check_in'),
  guest: Guest(true),
  pricing: Pricing(true),
  status: opt(oneOf(['pending', 'confirmed'] as const, 'pending or confirmed (default); both hold inventory')),
  notes: opt(orNull(optionalText(2000))),
  source: Type.Object({
    channel: text(64, 'Cannot be changed after create'),
    reference: opt(orNull(optionalText(255))),
  }),
  ...cancellationFields,
});
export type CreateBookingInput = Static<typeof CreateBookingBody>;

/** Staff `POST /properties/{id}/bookings`: the property is the path; the id and channel are optional. */
export const HostCreateBookingBody = Type.Object({
  ...CreateBookingBody.properties,
  external_booking_id: opt(text(128, 'Defaults to DL-<n>, numbered per brand; unique among the brand’s host bookings')),
  property: opt(Type.Unknown({ description: 'Ignored: the property is the path' })),
  source: opt(
    Type.Object({
      channel: opt(text(64, 'Default direct')),
      reference: opt(orNull(optionalText(255))),
    }),
  ),
});
export type HostCreateBookingInput = Static<typeof HostCreateBookingBody>;

export const UpdateBookingBody = Type.Object({
  check_in: opt(date('YYYY-MM-DD')),
  check_out: opt(date('YYYY-MM-DD, exclusive')),
  units: opt(Units),
  guest: opt(Guest(false)),
  pricing: opt(Pricing(false)),
  notes: opt(orNull(optionalText(2000))),
  status: opt(oneOf(BOOKING_STATUSES, 'A status reachable from the current one')),
  source: opt(
    Type.Object({
      reference: opt(orNull(optionalText(255))),
      channel: opt(Type.Unknown({ description: 'Cannot be changed: sending it is a 422' })),
    }),
  ),
  ...cancellationFields,
});
export type UpdateBookingInput = Static<typeof UpdateBookingBody>;

export const CancelBookingBody = Type.Object(cancellationFields);
export type CancelBookingInput = Static<typeof CancelBookingBody>;

export const ListBookingsQuery = Type.Object({
  updated_since: opt(Type.String({ description: 'Any parseable date or timestamp; inclusive' })),
  status: opt(oneOf(BOOKING_STATUSES, 'Booking status')),
  property_id: opt(Type.Integer({ minimum: 1, maximum: MAX_ID })),
  check_in_from: opt(DateString('YYYY-MM-DD, earliest check-in')),
  check_in_to: opt(DateString('YYYY-MM-DD, latest check-in')),
  page: opt(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  per_page: opt(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type ListBookingsQueryInput = Static<typeof ListBookingsQuery>;

export const IdParams = Type.Object({ id: Type.String() });
export const ExternalParams = Type.Object({ external_booking_id: Type.String() });

const IfMatchHeaders = Type.Object({
  'if-match': opt(Type.String({ description: 'The revision the change is based on ("3" or 3); stale → 412 PRECONDITION_FAILED' })),
});
export { IfMatchHeaders };

// ---------------------------------------------------------------------------------------------
// Responses (documentation)

export const BookingObject = Type.Object({
  id: Type.Integer(),
  external_booking_id: Type.String(),
  revision: Type.Integer({ description: '1 at create, +1 on every change by anyone' }),
  status: oneOf(BOOKING_STATUSES, 'Booking status'),
  property: Type.Object({ doorloom_id: Type.Integer(), external_id: Type.Union([Type.String(), Type.Null()]) }),
  units: Type.Array(
    Type.Object({
      inventory_id: Type.Integer(),
      external_unit_id: Type.Union([Type.String(), Type.Null()]),
      adults: Type.Integer(),
      children: Type.Integer(),
      meal_plan: oneOf(MEAL_PLANS, 'Meal plan'),
    }),
  ),
  check_in: DateString(),
  check_out: DateString(),
  nights: Type.Integer(),
  guest: Type.Object({
    name: Type.String(),
    phone_code: Type.Union([Type.String(), Type.Null()]),
    mobile: Type.Union([Type.String(), Type.Null()]),
  }),
  pricing: Type.Object({ total: Type.Number(), currency: Type.Literal('INR') }),
  notes: Type.Union([Type.String(), Type.Null()]),
  source: Type.Object({ channel: Type.String(), reference: Type.Union([Type.String(), Type.Null()]) }),
  cancellation: Type.Union([
    Type.Object({
      reason: Type.Union([Type.String(), Type.Null()]),
      refund_note: Type.Union([Type.String(), Type.Null()]),
      cancelled_at: Type.Union([Timestamp(), Type.Null()]),
    }),
    Type.Null(),
  ]),
  created_at: Timestamp('YYYY-MM-DDTHH:mm:ss+05:30'),
  updated_at: Timestamp('YYYY-MM-DDTHH:mm:ss+05:30'),
});

export const CreatedBooking = Type.Composite([
  BookingObject,
  Type.Object({ duplicate: Type.Boolean({ description: 'true: a booking with this external_booking_id already existed (200)' }) }),
]);

export const Pagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  last_page: Type.Integer(),
});
