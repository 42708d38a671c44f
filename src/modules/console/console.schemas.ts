import { Type } from '@sinclair/typebox';
import { DateString, Nullable, Timestamp as TimestampString } from '../../http/schemas.js';

const Timestamp = TimestampString();
const TimestampOrNull = Nullable(Timestamp);
const Page = { minimum: 1, maximum: 1_000_000, default: 1, description: '1-based page' };
const PerPage = { minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' };

export const Pagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  last_page: Type.Integer(),
});

export const IdParams = Type.Object({ id: Type.String() });

export const BrandListQuery = Type.Object({
  page: Type.Optional(Type.Integer(Page)),
  per_page: Type.Optional(Type.Integer(PerPage)),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Text the brand name contains (any case)' })),
});

export const BrandRow = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  plan: Type.Object({ active: Type.Boolean() }),
  sandbox: Type.Boolean({ description: 'Whether the brand is a sandbox' }),
  integrations: Type.Integer(),
  properties: Type.Integer(),
  created_at: Timestamp,
});

export const IntegrationListQuery = Type.Object({
  page: Type.Optional(Type.Integer(Page)),
  per_page: Type.Optional(Type.Integer(PerPage)),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')], { description: 'Only integrations in this status' }),
  ),
  paused: Type.Optional(Type.Boolean({ description: 'true: paused ones only; false: all but the paused ones' })),
  brand_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Text the name or slug contains (any case)' })),
});

export const IntegrationRow = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  brand: Type.Object({ id: Type.Integer(), name: Type.String() }),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')]),
  paused_at: TimestampOrNull,
  paused_reason: Nullable(Type.String()),
  webhook_url: Nullable(Type.String()),
  consecutive_failures: Type.Integer(),
  last_success_at: TimestampOrNull,
  last_failure_at: TimestampOrNull,
  next_attempt_at: TimestampOrNull,
  last_sequence: Type.Integer(),
  undelivered_events: Type.Integer(),
  oldest_undelivered_at: TimestampOrNull,
  oldest_undelivered_age_seconds: Nullable(Type.Integer({ description: 'Service-clock seconds since the oldest undelivered event was recorded' })),
  covered_properties: Type.Integer(),
  created_at: Timestamp,
});

export const EventListQuery = Type.Object({
  after_sequence: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'The last sequence already seen (exclusive)' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100, description: 'Page size, 1 to 200' })),
  delivery_status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('skipped')])),
});

export const EventRow = Type.Object({
  sequence: Type.Integer(),
  id: Type.String(),
  type: Type.String(),
  origin: Type.String(),
  property_id: Nullable(Type.Integer()),
  window: Nullable(Type.Object({ from: DateString(), to: DateString() })),
  created_at: Timestamp,
  delivery: Type.Object({
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('skipped')]),
    attempts: Type.Integer(),
    delivered_at: TimestampOrNull,
    last_attempt: Nullable(
      Type.Object(
        { attempted_at: Timestamp, status_code: Nullable(Type.Integer()), error: Nullable(Type.String()) },
        { description: 'Latest attempt of an event not delivered yet' },
      ),
    ),
  }),
});

export const EventCursor = Type.Object({ next_after_sequence: Type.Integer(), has_more: Type.Boolean() });

export const PropertyListQuery = Type.Object({
  page: Type.Optional(Type.Integer(Page)),
  per_page: Type.Optional(Type.Integer(PerPage)),
  integration_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Only the properties this integration covers' })),
  brand_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: "Only this brand's properties" })),
});

export const PropertyRow = Type.Object({
  id: Type.Integer(),
  brand_id: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  city: Type.String(),
  external_id: Nullable(Type.String({ description: "The integration's external id (with integration_id)" })),
  covering_integrations: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RecentAttemptsQuery = Type.Object({
  before: Type.Optional(
    Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Attempt id to continue below (exclusive); omitted starts at the newest' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
});

export const AttemptRow = Type.Object({
  id: Type.Integer(),
  attempted_at: Timestamp,
  event: Type.Object({ id: Type.String(), type: Type.String({ description: 'Event kind, or ping' }), sequence: Nullable(Type.Integer()) }),
  attempt: Nullable(Type.Integer()),
  success: Type.Boolean(),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
  response_body: Nullable(Type.String({ description: "First 4 KB of the receiver's answer" })),
  worker: Type.String(),
});

export const AttemptCursor = Type.Object({ next_before: Nullable(Type.Integer()), has_more: Type.Boolean() });

export const StatsQuery = Type.Object({
  hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, default: 24, description: 'How far back, in hours (1 to 168)' })),
});

export const DeliveryStats = Type.Object({
  from: Timestamp,
  to: Timestamp,
  step_seconds: Type.Integer({ description: 'Always 60: one point per minute' }),
  minute_starts: Type.Array(Type.Integer(), { description: 'Unix seconds of each minute, oldest first' }),
  success: Type.Array(Type.Integer(), { description: 'Successful attempts in each minute' }),
  failure: Type.Array(Type.Integer(), { description: 'Failed attempts in each minute' }),
  backlog: Type.Array(Type.Integer(), { description: 'Undelivered events at the end of each minute' }),
});
