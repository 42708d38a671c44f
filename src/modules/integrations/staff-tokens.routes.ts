import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { IdParams, MintedStaffToken, MintStaffTokenBody, StaffTokenView } from './integrations.schemas.js';
import { listStaffTokens, mintStaffToken, revokeStaffToken } from './staff-tokens.service.js';

/** Staff tokens: mint (shown once), list, revoke. */
export function registerStaffTokenRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];

  staff.post<{ Body: Static<typeof MintStaffTokenBody> }>(
    '/staff-tokens',
    { schema: { summary: 'Mint a named staff token (shown once)', tags, body: MintStaffTokenBody, response: { 201: envelope(MintedStaffToken), ...errorResponses(401, 403, 422, 429) } } },
    async (request, reply) => {
      const minted = await mintStaffToken(deps, request.body.name);
      return sendData(reply.header('cache-control', 'no-store'), 201, 'Staff token created.', minted);
    },
  );

  staff.get(
    '/staff-tokens',
    { schema: { summary: 'List the live staff tokens (never the tokens themselves)', tags, response: { 200: envelope(Type.Array(StaffTokenView)), ...errorResponses(401, 403, 429) } } },
    async (_request, reply) => sendData(reply, 200, 'Staff tokens retrieved.', await listStaffTokens(deps)),
  );

  staff.delete<{ Params: Static<typeof IdParams> }>(
    '/staff-tokens/:id',
    {
      schema: {
        summary: 'Revoke a staff token; it stops working at once (not the STAFF_TOKEN setting, not the last live token)',
        tags,
        params: IdParams,
        response: { 200: envelope(StaffTokenView), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Staff token revoked.', await revokeStaffToken(deps, parseId(request.params.id, 'staff token'), request.staffTokenId)),
  );
}
