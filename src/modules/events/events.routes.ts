import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { errorResponses, Nullable } from '../../http/schemas.js';
import { parseTypesFilter, replayEvents, REPLAY_DEFAULT_LIMIT, REPLAY_MAX_LIMIT, type DeliveryColumns } from './events.replay.js';

const ReplayQuery = Type.Object({
  after_sequence: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0, description: 'The last sequence already applied; events after it are returned' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: REPLAY_MAX_LIMIT, default: REPLAY_DEFAULT_LIMIT, description: `Page size, 1 to ${REPLAY_MAX_LIMIT}` }),
  ),
  types: Type.Optional(Type.String({ description: 'Comma-separated event kinds to return (e.g. availability.changed,rates.changed)' })),
});

const ReplayRow = Type.Object({
  sequence: Type.Integer(),
  event: Type.Object({}, { additionalProperties: true, description: 'The event envelope, exactly as delivered' }),
  delivery: Type.Object({
    status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('skipped')]),
    attempts: Type.Integer(),
    delivered_at: Nullable(Type.String()),
  }),
});

const ReplayPage = Type.Object({
  success: Type.Literal(true),
  message: Type.String(),
  data: Type.Array(ReplayRow),
  cursor: Type.Object({ next_after_sequence: Type.Integer(), has_more: Type.Boolean() }),
});

/** GET /events (replay) on the integrations API, each event with its delivery (`deliveryColumns`). */
export function registerEventRoutes(api: FastifyInstance, deps: Deps, deliveryColumns: DeliveryColumns): void {
  const tags = ['events'];

  api.get<{ Querystring: Static<typeof ReplayQuery> }>(
    '/events',
    {
      schema: {
        summary: 'Replay recorded events after a cursor (30 days)',
        tags,
        querystring: ReplayQuery,
        response: { 200: ReplayPage, ...errorResponses(401, 403, 410, 422, 429) },
      },
    },
    async (request, reply) => {
      const types = parseTypesFilter(request.query.types);
      const page = await replayEvents(
        deps,
        request.integration.id,
        {
          afterSequence: request.query.after_sequence ?? 0,
          limit: request.query.limit ?? REPLAY_DEFAULT_LIMIT,
          types,
        },
        deliveryColumns,
      );
      return sendData(reply, 200, 'Events retrieved.', page.data, { cursor: page.cursor });
    },
  );
}
