import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { absentBodyIsEmpty, bodyValidation } from '../../http/validation.js';
import { countSyncCallToday, requestSync, SyncBody, SYNC_DAILY_CALLS, type SyncInput } from './sync.service.js';

const SyncAccepted = Type.Object({
  queued_properties: Type.Integer(),
  horizon_days: Type.Integer(),
  types: Type.Array(Type.String(), { description: 'Normalised to the .changed names' }),
});

/** POST /sync on the integrations API (tagged with the event routes, as the contract lists it). */
export function registerSyncRoutes(api: FastifyInstance, deps: Deps): void {
  const tags = ['events'];

  // The daily quota is a tier of its own; it names the X-RateLimit fields when it is the tightest,
  // on the 202 and on the refusals that follow the count (422, SYNC_TOO_SOON) alike.
  const countCall = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const remaining = await countSyncCallToday(deps, request.integration.id);
    const shown = Number(reply.getHeader('x-ratelimit-remaining'));
    if (!(Number.isFinite(shown) && shown < remaining)) {
      reply.header('x-ratelimit-limit', String(SYNC_DAILY_CALLS)).header('x-ratelimit-remaining', String(remaining));
    }
  };

  api.post<{ Body: SyncInput }>(
    '/sync',
    {
      // No body (or null) is a sync of everything. The call is counted before the body is
      // validated: refusals count, a 422 included.
      preValidation: [absentBodyIsEmpty(true), countCall],
      validatorCompiler: bodyValidation(),
      schema: {
        summary: 'Queue a full re-sync through the webhook path (one per 24 hours)',
        tags,
        body: SyncBody,
        response: { 202: envelope(SyncAccepted), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const accepted = await requestSync(deps, request.integration.id, request.body);
      return sendData(reply, 202, 'Sync queued.', {
        queued_properties: accepted.queued_properties,
        horizon_days: accepted.horizon_days,
        types: accepted.types,
      });
    },
  );
}
