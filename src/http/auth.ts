import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { digestsEqual, sha256Hex } from '../lib/secrets.js';
import { AppError } from './errors.js';

export interface IntegrationContext {
  id: number;
  brandId: number;
  slug: string;
  status: 'active' | 'paused';
}

declare module 'fastify' {
  interface FastifyRequest {
    integration: IntegrationContext;
  }
}

const BEARER = /^Bearer ([A-Za-z0-9_\-.~+/]+=*)$/;

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  return BEARER.exec(header.trim())?.[1] ?? null;
}

const unauthenticated = () => new AppError(401, 'UNAUTHENTICATED', 'A valid API key is required: send Authorization: Bearer <API_KEY>.');

async function isStaffToken(deps: Deps, token: string): Promise<boolean> {
  if (!token.startsWith('dls_')) return false;
  const hash = sha256Hex(token);
  const row = await deps.db.selectFrom('staff_tokens').select('token_hash').where('token_hash', '=', hash).executeTakeFirst();
  return !!row && digestsEqual(row.token_hash, hash);
}

async function findIntegrationByKey(deps: Deps, token: string) {
  if (!token.startsWith('dlk_')) return undefined;
  const hash = sha256Hex(token);
  const row = await deps.db
    .selectFrom('integrations')
    .select(['id', 'brand_id', 'slug', 'status', 'api_key_hash'])
    .where('api_key_hash', '=', hash)
    .executeTakeFirst();
  return row && digestsEqual(row.api_key_hash, hash) ? row : undefined;
}

/** onRequest hook of the integrations API: resolves the API key to its integration. */
export function integrationAuth(deps: Deps) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw unauthenticated();
    const integration = await findIntegrationByKey(deps, token);
    if (!integration) {
      if (await isStaffToken(deps, token)) {
        throw new AppError(403, 'NOT_INTEGRATION_TOKEN', 'This token is not an integration API key.');
      }
      throw unauthenticated();
    }
    if (integration.status === 'disabled') {
      throw new AppError(403, 'INTEGRATION_DISABLED', 'This integration has been disabled.');
    }
    request.integration = {
      id: integration.id,
      brandId: integration.brand_id,
      slug: integration.slug,
      status: integration.status,
    };
  };
}

/** onRequest hook of the staff API. */
export function staffAuth(deps: Deps) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new AppError(401, 'UNAUTHENTICATED', 'A valid staff token is required: send Authorization: Bearer <STAFF_TOKEN>.');
    if (await isStaffToken(deps, token)) return;
    if (await findIntegrationByKey(deps, token)) {
      throw new AppError(403, 'NOT_STAFF_TOKEN', 'An integration API key cannot call the staff API.');
    }
    throw new AppError(401, 'UNAUTHENTICATED', 'A valid staff token is required: send Authorization: Bearer <STAFF_TOKEN>.');
  };
}
