import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../lib/contract.js';

import { Nullable, Timestamp } from '../../http/schemas.js';
const TimestampOrNull = Type.Union([Timestamp(), Type.Null()]);

export const Brand = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  plan: Type.Object({ active: Type.Boolean() }),
  sandbox: Type.Boolean({ description: "Whether the brand's integrations may call the sandbox test-helper routes" }),
});

const SandboxFlag = Type.Boolean({
  description: "A sandbox brand's integrations may call the test-helper routes under /api/integrations/v1/sandbox (default false)",
});

export const CreateBrandBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Brand name' }),
  sandbox: Type.Optional(SandboxFlag),
});

export const UpdateBrandBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Brand name' })),
  sandbox: Type.Optional(SandboxFlag),
});

export const BrandPlanBody = Type.Object({
  active: Type.Boolean({ description: 'Whether the brand has an active plan (drives the inactive sweep)' }),
});

export const WebhookInput = Type.Object({
  url: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], { description: 'HTTPS delivery URL; null removes it' })),
  event_types: Type.Optional(
    Type.Array(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))), { maxItems: EVENT_TYPES.length, uniqueItems: true, description: 'Subscribed kinds' }),
  ),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, description: 'Response deadline per delivery' })),
});

export const CreateIntegrationBody = Type.Object({
  brand_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$', description: 'Lowercase letters, digits, dashes; derived from name when omitted' })),
  webhook: Type.Optional(WebhookInput),
  horizon_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 730, description: 'Days ahead that events cover (default 365)' })),
});

export const UpdateIntegrationBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  webhook: Type.Optional(WebhookInput),
  horizon_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 730 })),
  status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])),
});

export const IntegrationView = Type.Object({
  id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')]),
  brand: Type.Object({ id: Type.Integer(), name: Type.String() }),
  api_version: Type.String(),
  webhook: Type.Object({
    configured: Type.Boolean(),
    url: Nullable(Type.String()),
    event_types: Type.Array(Type.String()),
    timeout_seconds: Type.Integer(),
    last_sequence: Type.Integer(),
    undelivered_events: Type.Integer(),
    consecutive_failures: Type.Integer(),
    last_success_at: TimestampOrNull,
    last_failure_at: TimestampOrNull,
    paused_at: TimestampOrNull,
    paused_reason: Nullable(Type.String()),
  }),
  horizon_days: Type.Integer(),
  covered_properties: Type.Integer(),
});

export const StaffIntegrationView = Type.Intersect([
  IntegrationView,
  Type.Object({
    delivery: Type.Object({
      cursor_sequence: Type.Integer({ description: 'Every event up to here is delivered or skipped' }),
      next_attempt_at: TimestampOrNull,
      attempts: Type.Integer({ description: 'Attempts made on the event at the head of the queue' }),
    }),
  }),
]);

export const IdParams = Type.Object({ id: Type.String() });

const StaffScope = Type.Union([Type.Literal('admin'), Type.Literal('operator')], {
  description: 'admin: everything, minting and revoking staff tokens included; operator: everything else',
});

export const StaffTokenView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Type.Union([Type.Literal('bootstrap'), Type.Literal('named')], {
    description: 'bootstrap: STAFF_TOKEN or the token generated at the first start; named: minted through this API',
  }),
  scope: StaffScope,
  created_at: Timestamp(),
  last_used_at: Type.Union([Timestamp('ISO-8601 with +05:30; recorded at most once a minute'), Type.Null()]),
  expires_at: Type.Union([Timestamp('ISO-8601 with +05:30; the token authenticates no more from then on'), Type.Null()]),
  revoked_at: TimestampOrNull,
});

export const MintStaffTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for (shown in the list)' }),
  scope: Type.Optional(
    Type.Union([Type.Literal('admin'), Type.Literal('operator')], { description: 'operator unless given; only admin tokens may mint and revoke staff tokens' }),
  ),
  expires_in_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 3650, description: 'Days (of the service clock) until the token stops working; never when absent' }),
  ),
});

export const StaffTokenListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: '1-based page' })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
});

export const StaffTokenPagination = Type.Object({
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
  last_page: Type.Integer(),
});

export const MintedStaffToken = Type.Object({
  staff_token: StaffTokenView,
  token: Type.String({ description: 'dls_ and 40 base62 characters; shown once' }),
});
