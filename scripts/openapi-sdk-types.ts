import openapiTS, { astToString } from 'openapi-typescript';

/** Every partner path starts with this prefix; the SDK's generated paths are relative to it. */
export const PARTNER_PREFIX = '/api/integrations/v1';

const HEADER = `/**
 * Generated from docs/openapi.json by \`npm run sdk:generate\` (openapi-typescript). Do not edit:
 * a test regenerates it and fails when it differs from this file.
 */

`;

/**
 * The SDK's types from the service's OpenAPI document: only the partner API (the staff API is not
 * the partner's), with paths relative to the partner prefix so that a client's base URL names it once.
 */
export async function generateSdkTypes(documentText: string): Promise<string> {
  const document = JSON.parse(documentText) as { paths: Record<string, unknown>; servers?: unknown; [k: string]: unknown };
  const paths: Record<string, unknown> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (path.startsWith(PARTNER_PREFIX + '/')) paths[path.slice(PARTNER_PREFIX.length)] = item;
  }
  const components = structuredClone((document.components ?? {}) as { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> });
  // Staff views are not the partner's business.
  for (const name of Object.keys(components.schemas ?? {})) if (name.startsWith('Staff')) delete components.schemas![name];
  delete components.securitySchemes?.staffToken;
  const partner = { ...document, paths, components, servers: [{ url: PARTNER_PREFIX }] };
  const ast = await openapiTS(partner as never, { silent: true, alphabetize: false });
  return HEADER + astToString(ast);
}
