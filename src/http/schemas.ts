import { Type, type TSchema } from '@sinclair/typebox';

/** The pattern of a calendar date (`format: date` also refuses a day that does not exist, 2027-02-30). */
export const DATE_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

/** A calendar date `YYYY-MM-DD`. */
export const DateString = (description?: string) =>
  Type.String({ format: 'date', pattern: DATE_PATTERN, ...(description ? { description } : {}), examples: ['2026-12-24'] });

/** A timestamp: ISO-8601 with the offset `+05:30` (RFC 3339 `date-time`). */
export const Timestamp = (description = 'ISO-8601 with +05:30') => Type.String({ format: 'date-time', description });

/** `T` or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Success envelope around a data schema, for the OpenAPI document. */
export function envelope<T extends object>(data: T, description = 'Success') {
  return Type.Object({ success: Type.Literal(true), message: Type.String(), data: data as never }, { description });
}

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: 'Failure' },
);

/** Common failure answers for a route's OpenAPI entry. */
export const errorResponses = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorEnvelope]));

/** The Idempotency-Key of a create: 8 to 128 visible ASCII characters, unique per create attempt. */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 8,
    maxLength: 128,
    pattern: '^[\\x21-\\x7e]{8,128}$',
    description: 'Unique per create attempt; resend the same key to retry (the stored answer comes back with `Idempotent-Replayed: true`).',
  }),
});
