import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData, sendJson, successBody } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import {
  Brand,
  BrandPlanBody,
  CreateBrandBody,
  CreateIntegrationBody,
  UpdateBrandBody,
  IdParams,
  IntegrationView,
  StaffIntegrationView,
  UpdateIntegrationBody,
} from './integrations.schemas.js';
import {
  createBrand,
  createIntegration,
  getBrand,
  updateBrand,
  integrationView,
  rotateApiKey,
  rotateWebhookSecret,
  setBrandPlan,
  staffIntegrationView,
  updateIntegration,
} from './integrations.service.js';
import { registerStaffTokenRoutes } from './staff-tokens.routes.js';

/** GET /me on the integrations API. */
export function registerIntegrationRoutes(api: FastifyInstance, deps: Deps): void {
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
      const view = await integrationView(deps, request.integration.id);
      // A cached view is answered with the bytes it was serialised to the first time.
      const bodies = deps.state.meBodies;
      let body = bodies.get(view);
      if (body === undefined) bodies.set(view, (body = JSON.stringify(successBody('Integration retrieved.', view))));
      return sendJson(reply, 200, body);
    },
  );
}

/** An answer carrying a credential must not be kept by any cache on the way. */
const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

/** Staff management of brands, integrations, credentials, staff tokens and the test clock. */
export function registerStaffIntegrationRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];
  registerStaffTokenRoutes(staff, deps);

  staff.post<{ Body: Static<typeof CreateBrandBody> }>(
    '/brands',
    { schema: { summary: 'Create a brand', tags, body: CreateBrandBody, description: '`sandbox: true` needs an admin staff token (403 INSUFFICIENT_SCOPE otherwise).', response: { 201: envelope(Brand), ...errorResponses(401, 403, 422) } } },
    async (request, reply) => sendData(reply, 201, 'Brand created.', await createBrand(deps, request.body.name, request.body.sandbox, request.staffToken)),
  );

  staff.get<{ Params: Static<typeof IdParams> }>(
    '/brands/:id',
    { schema: { summary: 'Read a brand', tags, params: IdParams, response: { 200: envelope(Brand), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => sendData(reply, 200, 'Brand retrieved.', await getBrand(deps, parseId(request.params.id, 'brand'))),
  );

  staff.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateBrandBody> }>(
    '/brands/:id',
    { schema: { summary: 'Change a brand (name, sandbox)', description: 'A body with `sandbox` needs an admin staff token (403 INSUFFICIENT_SCOPE otherwise).', tags, params: IdParams, body: UpdateBrandBody, response: { 200: envelope(Brand), ...errorResponses(401, 403, 404, 422) } } },
    async (request, reply) => sendData(reply, 200, 'Brand updated.', await updateBrand(deps, request.staffToken, parseId(request.params.id, 'brand'), request.body)),
  );

  staff.put<{ Params: Static<typeof IdParams>; Body: Static<typeof BrandPlanBody> }>(
    '/brands/:id/plan',
    { schema: { summary: 'Turn a brand plan on or off', tags, params: IdParams, body: BrandPlanBody, response: { 200: envelope(Brand), ...errorResponses(401, 403, 404, 422) } } },
    async (request, reply) =>
      sendData(reply, 200, 'Brand plan updated.', await setBrandPlan(deps, parseId(request.params.id, 'brand'), request.body.active)),
  );

  const Created = Type.Object({ integration: StaffIntegrationView, api_key: Type.String(), webhook_secret: Type.String() });
  staff.post<{ Body: Static<typeof CreateIntegrationBody> }>(
    '/integrations',
    { schema: { summary: 'Create an integration (credentials are shown once)', tags, body: CreateIntegrationBody, response: { 201: envelope(Created), ...errorResponses(401, 403, 409, 422) } } },
    async (request, reply) => sendData(noStore(reply), 201, 'Integration created.', await createIntegration(deps, request.body)),
  );

  staff.get<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id',
    { schema: { summary: 'Read an integration', tags, params: IdParams, response: { 200: envelope(StaffIntegrationView), ...errorResponses(401, 403, 404) } } },
    async (request, reply) =>
      sendData(reply, 200, 'Integration retrieved.', await staffIntegrationView(deps, parseId(request.params.id, 'integration'))),
  );

  staff.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateIntegrationBody> }>(
    '/integrations/:id',
    { schema: { summary: 'Change an integration', tags, params: IdParams, body: UpdateIntegrationBody, response: { 200: envelope(StaffIntegrationView), ...errorResponses(401, 403, 404, 422) } } },
    async (request, reply) =>
      sendData(reply, 200, 'Integration updated.', await updateIntegration(deps, parseId(request.params.id, 'integration'), request.body)),
  );

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id/api-key/rotate',
    { schema: { summary: 'Issue a new API key; the previous one stops at once', tags, params: IdParams, response: { 200: envelope(Type.Object({ api_key: Type.String() })), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => sendData(noStore(reply), 200, 'API key rotated.', await rotateApiKey(deps, parseId(request.params.id, 'integration'))),
  );

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id/webhook-secret/rotate',
    { schema: { summary: 'Issue a new webhook secret; the previous one verifies for 24 hours more', tags, params: IdParams, response: { 200: envelope(Type.Object({ webhook_secret: Type.String() })), ...errorResponses(401, 403, 404) } } },
    async (request, reply) =>
      sendData(noStore(reply), 200, 'Webhook secret rotated.', await rotateWebhookSecret(deps, parseId(request.params.id, 'integration'))),
  );
}
