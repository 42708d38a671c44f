import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { ALERT_NAMES } from './alerts.evaluate.js';

const Timestamp = Type.String({ description: 'ISO-8601 with +05:30' });

export const AlertListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: '1-based page' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
  severity: Type.Optional(Type.Union([Type.Literal('critical'), Type.Literal('warning')], { description: 'Only alerts of this severity' })),
  integration_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: "Only this integration's alerts" })),
});

export const BookingAlertDetail = Type.Object(
  {
    booking_id: Nullable(Type.Integer({ description: "The booking's Doorloom id" })),
    external_booking_id: Nullable(Type.String({ description: "The booking's id at the partner" })),
    event_id: Type.String({ description: 'The oldest undelivered booking.changed event' }),
    sequence: Type.Integer(),
    event_recorded_at: Timestamp,
    event_age_seconds: Type.Integer({ description: 'Service-clock seconds since the event was recorded' }),
  },
  { description: 'booking_undelivered_15m and booking_undelivered_30m: the oldest booking event the integration has not received' },
);

export const PausedAlertDetail = Type.Object(
  {
    paused_reason: Nullable(Type.String({ description: 'delivery_failures or attempts_exhausted' })),
    paused_at: Timestamp,
  },
  { description: 'integration_paused' },
);

export const AlertFields = {
  id: Type.String({ description: '`<name>:<integration id>`: the same while the alert lasts' }),
  name: Type.Union(ALERT_NAMES.map((n) => Type.Literal(n))),
  severity: Type.Union([Type.Literal('critical'), Type.Literal('warning')]),
  integration: Type.Object({ id: Type.Integer(), slug: Type.String() }),
  since: Type.String({ description: 'When the condition started to hold (service clock), ISO-8601 with +05:30' }),
  summary: Type.String({ description: 'One sentence for a person (a chat message or a page)' }),
  runbook: Type.String({ description: 'The runbook section in docs/operations.md' }),
  detail: Type.Union([BookingAlertDetail, PausedAlertDetail]),
};

export const AlertRow = Type.Object(AlertFields, { description: 'An alert the service evaluates itself' });
