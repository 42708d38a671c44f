import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { errorResponses, Nullable } from '../../http/schemas.js';
import { deliveryLog, partnerDeliveries } from './webhooks.service.js';

const IdParams = Type.Object({ id: Type.String() });
const LogQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Attempt id to continue after (exclusive); 0 starts at the oldest' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200' })),
});

const AttemptView = Type.Object({
  id: Type.Integer(),
  attempted_at: Type.String(),
  event: Type.Object({ id: Type.String(), type: Type.String({ description: 'Event kind, or ping' }), sequence: Nullable(Type.Integer()) }),
  attempt: Nullable(Type.Integer({ description: "The event's attempt number; null for pings" })),
  success: Type.Boolean(),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String({ description: 'CODE: detail when no HTTP answer came' })),
  duration_ms: Type.Integer(),
  response_body: Nullable(Type.String({ description: 'First 4 KB of the answer' })),
  worker: Type.String({ description: 'host:pid of the delivering process' }),
});
const LogPage = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Array(AttemptView),
  cursor: Type.Object({ next_after: Type.Integer(), has_more: Type.Boolean() }),
});

const DeliveriesQuery = Type.Object({
  before: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Attempt id to continue before (exclusive): the cursor.next_before of the previous page; absent starts at the newest',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size, 1 to 200 (default 50)' })),
});

const DeliveryAttempt = Type.Object({
  id: Type.Integer({ description: 'Attempt id (the paging cursor)' }),
  attempted_at: Type.String({ description: 'When the attempt started (ISO-8601 with +05:30)' }),
  sequence: Type.Integer({ description: "The event's sequence" }),
  type: Type.String({ description: 'Event kind' }),
  event_id: Type.String({ description: 'Event id (ULID)' }),
  attempt: Type.Integer({ description: "The event's attempt number, from 1" }),
  success: Type.Boolean({ description: 'The receiver answered 2xx in time' }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status of the answer; null when none came' })),
  error: Nullable(Type.String({ description: 'CODE: detail when no HTTP answer came (timeout, refused, network error)' })),
  duration_ms: Type.Integer({ description: 'From the request to the whole answer, or to the failure' }),
  response_body: Nullable(
    Type.String({
      description:
        'First 4 KB of the answer; null when none came, or when it came from a loopback, private, link-local or reserved address (possible only where the service allows such receivers)',
    }),
  ),
  next_attempt_at: Nullable(
    Type.String({ description: 'When this failed event is tried again (the latest failure of the event at the head of the queue); null otherwise' }),
  ),
});

const DeliveriesPage = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Array(DeliveryAttempt),
  cursor: Type.Object({
    next_before: Nullable(Type.Integer({ description: 'Pass as `before` for the next (older) page' })),
    has_more: Type.Boolean(),
  }),
});

/** The partner's own delivery attempts (GET /deliveries on the integrations API). */
export function registerDeliveryRoutes(api: FastifyInstance, deps: Deps): void {
  api.get<{ Querystring: Static<typeof DeliveriesQuery> }>(
    '/deliveries',
    {
      schema: {
        summary: "The integration's latest webhook delivery attempts, newest first",
        description:
          'Attempts of this integration’s own events (connectivity pings left out), kept 30 days. Page with `before` = `cursor.next_before` until `has_more` is false. Rate tier: 60 a minute.',
        tags: ['events'],
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesPage, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const page = await partnerDeliveries(deps, request.integration.id, request.query.before ?? null, request.query.limit ?? 50);
      return sendData(reply, 200, 'Delivery attempts retrieved.', page.data, { cursor: page.cursor });
    },
  );
}

/** Staff: the delivery attempt log and resuming a paused webhook. */
export function registerStaffWebhookRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];

  staff.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof LogQuery> }>(
    '/integrations/:id/deliveries',
    {
      schema: {
        summary: 'Webhook delivery attempts, oldest first (kept 30 days)',
        tags,
        params: IdParams,
        querystring: LogQuery,
        response: { 200: LogPage, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const page = await deliveryLog(deps, parseId(request.params.id, 'integration'), request.query.after ?? 0, request.query.limit ?? 50);
      return sendData(reply, 200, 'Delivery attempts retrieved.', page.data, { cursor: page.cursor });
    },
  );
}
