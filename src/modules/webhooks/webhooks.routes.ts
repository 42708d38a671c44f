import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses, Nullable } from '../../http/schemas.js';
import { StaffIntegrationView } from '../integrations/integrations.schemas.js';
import { deliveryLog, resumeWebhook } from './webhooks.service.js';

const IdParams = Type.Object({ id: Type.String() });
const LogQuery = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'Attempt id to continue after (exclusive); 0 starts at the oldest' })),
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

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id/webhook/resume',
    {
      schema: {
        summary: 'Resume webhook delivery now (failures reset, the blocked event goes at once)',
        tags,
        params: IdParams,
        response: { 200: envelope(StaffIntegrationView), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Webhook delivery resumed.', await resumeWebhook(deps, parseId(request.params.id, 'integration'))),
  );
}
