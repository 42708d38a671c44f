import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData, sendJson, successBody } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { sendSecret } from '../integrations/integrations.routes.js';
import { CreateIntegrationBody, IdParams, IntegrationView, StaffIntegrationView, UpdateIntegrationBody } from '../integrations/integrations.schemas.js';
import {
  createIntegration,
  integrationView,
  resumeIntegrationWebhook,
  staffIntegrationView,
  updateIntegration,
  type IntegrationViewCache,
} from './accounts.service.js';

/** GET /me on the integrations API. */
export function registerAccountRoutes(api: FastifyInstance, deps: Deps): void {
  const views: IntegrationViewCache = new Map();
  // The JSON answer of each cached view, serialised once.
  const bodies = new WeakMap<object, string>();
  api.get(
    '/me',
    {
      schema: {
        summary: 'The calling integration',
        tags: ['integration'],
        response: { 200: envelope(IntegrationView), ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => {
      const view = await integrationView(deps, views, request.integration.id);
      // A cached view is answered with the bytes it was serialised to the first time.
      let body = bodies.get(view);
      if (body === undefined) bodies.set(view, (body = JSON.stringify(successBody('Integration retrieved.', view))));
      return sendJson(reply, 200, body);
    },
  );
}

/** Staff create, read and change of integrations, and the resume of their delivery. */
export function registerStaffAccountRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];

  const Created = Type.Object({ integration: StaffIntegrationView, api_key: Type.String(), webhook_secret: Type.String() });
  staff.post<{ Body: Static<typeof CreateIntegrationBody> }>(
    '/integrations',
    {
      schema: {
        summary: 'Create an integration (credentials are shown once)',
        tags,
        body: CreateIntegrationBody,
        response: { 201: envelope(Created), ...errorResponses(401, 403, 409, 422) },
      },
    },
    async (request, reply) => sendSecret(reply, 201, 'Integration created.', createIntegration(deps, request.body)),
  );

  staff.get<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id',
    { schema: { summary: 'Read an integration', tags, params: IdParams, response: { 200: envelope(StaffIntegrationView), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => sendData(reply, 200, 'Integration retrieved.', await staffIntegrationView(deps, parseId(request.params.id, 'integration'))),
  );

  staff.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateIntegrationBody> }>(
    '/integrations/:id',
    {
      schema: {
        summary: 'Change an integration',
        tags,
        params: IdParams,
        body: UpdateIntegrationBody,
        response: { 200: envelope(StaffIntegrationView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Integration updated.', await updateIntegration(deps, parseId(request.params.id, 'integration'), request.body)),
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
    async (request, reply) =>
      sendData(reply, 200, 'Webhook delivery resumed.', await resumeIntegrationWebhook(deps, parseId(request.params.id, 'integration'))),
  );
}
