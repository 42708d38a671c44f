import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { IdParams, MintedStaffToken, MintStaffTokenBody, StaffTokenListQuery, StaffTokenPagination, StaffTokenView } from './integrations.schemas.js';
import { listStaffTokens, mintStaffToken, revokeStaffToken } from './staff-tokens.service.js';

/** Staff tokens: mint (shown once) and revoke, by admin tokens only; list, paged. */
export function registerStaffTokenRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];

  staff.post<{ Body: Static<typeof MintStaffTokenBody> }>(
    '/staff-tokens',
    {
      schema: {
        summary: 'Mint a named staff token (shown once; admin tokens only)',
        tags,
        body: MintStaffTokenBody,
        response: { 201: envelope(MintedStaffToken), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const minted = await mintStaffToken(deps, request.staffToken, request.body);
      return sendData(reply.header('cache-control', 'no-store'), 201, 'Staff token created.', minted);
    },
  );

  staff.get<{ Querystring: Static<typeof StaffTokenListQuery> }>(
    '/staff-tokens',
    {
      schema: {
        summary: 'List the live staff tokens, paged (never the tokens themselves)',
        tags,
        querystring: StaffTokenListQuery,
        response: {
          200: Type.Composite([envelope(Type.Array(StaffTokenView)), Type.Object({ pagination: StaffTokenPagination })]),
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { data, pagination } = await listStaffTokens(deps, request.query);
      return sendData(reply, 200, 'Staff tokens retrieved.', data, { pagination });
    },
  );

  staff.delete<{ Params: Static<typeof IdParams> }>(
    '/staff-tokens/:id',
    {
      schema: {
        summary: 'Revoke a staff token; it stops working at once (admin tokens, or a token itself; not the STAFF_TOKEN setting, not the last live admin token)',
        tags,
        params: IdParams,
        response: { 200: envelope(StaffTokenView), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Staff token revoked.', await revokeStaffToken(deps, request.staffToken, parseId(request.params.id, 'staff token'))),
  );
}
