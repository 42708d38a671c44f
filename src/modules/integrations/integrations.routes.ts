import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { Brand, BrandPlanBody, CreateBrandBody, UpdateBrandBody, IdParams } from './integrations.schemas.js';
import { createBrand, getBrand, updateBrand, rotateApiKey, rotateWebhookSecret, setBrandPlan } from './integrations.service.js';
import { registerStaffTokenRoutes } from './staff-tokens.routes.js';

/** An answer carrying a credential must not be kept by any cache on the way. */
/** A success that shows a secret once, with `Cache-Control: no-store` (a refusal holds no secret and says nothing of caching). */
export const sendSecret = async <T>(reply: FastifyReply, status: number, message: string, secret: Promise<T>) => {
  const data = await secret;
  return sendData(reply.header('cache-control', 'no-store'), status, message, data);
};

/** Staff management of brands, integrations, credentials, staff tokens and the test clock. */
export function registerStaffIntegrationRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];
  registerStaffTokenRoutes(staff, deps);

  staff.post<{ Body: Static<typeof CreateBrandBody> }>(
    '/brands',
    {
      schema: {
        summary: 'Create a brand',
        tags,
        body: CreateBrandBody,
        description: '`sandbox: true` needs an admin staff token (403 INSUFFICIENT_SCOPE otherwise).',
        response: { 201: envelope(Brand), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => sendData(reply, 201, 'Brand created.', await createBrand(deps, request.body.name, request.body.sandbox, request.staffToken)),
  );

  staff.get<{ Params: Static<typeof IdParams> }>(
    '/brands/:id',
    { schema: { summary: 'Read a brand', tags, params: IdParams, response: { 200: envelope(Brand), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => sendData(reply, 200, 'Brand retrieved.', await getBrand(deps, parseId(request.params.id, 'brand'))),
  );

  staff.patch<{ Params: Static<typeof IdParams>; Body: Static<typeof UpdateBrandBody> }>(
    '/brands/:id',
    {
      schema: {
        summary: 'Change a brand (name, sandbox)',
        description: 'A body with `sandbox` needs an admin staff token (403 INSUFFICIENT_SCOPE otherwise).',
        tags,
        params: IdParams,
        body: UpdateBrandBody,
        response: { 200: envelope(Brand), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Brand updated.', await updateBrand(deps, request.staffToken, parseId(request.params.id, 'brand'), request.body)),
  );

  staff.put<{ Params: Static<typeof IdParams>; Body: Static<typeof BrandPlanBody> }>(
    '/brands/:id/plan',
    {
      schema: {
        summary: 'Turn a brand plan on or off',
        tags,
        params: IdParams,
        body: BrandPlanBody,
        response: { 200: envelope(Brand), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Brand plan updated.', await setBrandPlan(deps, parseId(request.params.id, 'brand'), request.body.active)),
  );

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id/api-key/rotate',
    {
      schema: {
        summary: 'Issue a new API key; the previous one stops at once',
        tags,
        params: IdParams,
        response: { 200: envelope(Type.Object({ api_key: Type.String() })), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => sendSecret(reply, 200, 'API key rotated.', rotateApiKey(deps, parseId(request.params.id, 'integration'))),
  );

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/integrations/:id/webhook-secret/rotate',
    {
      schema: {
        summary: 'Issue a new webhook secret; the previous one verifies for 24 hours more',
        tags,
        params: IdParams,
        response: { 200: envelope(Type.Object({ webhook_secret: Type.String() })), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => sendSecret(reply, 200, 'Webhook secret rotated.', rotateWebhookSecret(deps, parseId(request.params.id, 'integration'))),
  );
}
