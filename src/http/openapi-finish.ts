/**
 * Finishes the OpenAPI document that @fastify/swagger builds from the route schemas, so that
 * clients can be generated from it: operationIds, named component schemas
 * referenced instead of inlined copies, every status and response header the service can answer,
 * optional bodies, integer path ids, a server, and the webhooks under OpenAPI 3.1 `webhooks`.
 *
 * It runs as swagger's `transformObject`, after the routes are collected, so route files keep their
 * plain TypeBox schemas. Named schemas are taken from where the document itself states them (the
 * Booking of GET /bookings/{id}, …) and every deep-equal copy elsewhere becomes a `$ref`; a route that
 * changes a shape changes the component with it, and a near-copy shows up in test/openapi.test.ts.
 */

import { addEventSchemas, webhooks, type Json, type JsonObject } from './openapi-events.js';
import { NAMED, at, replaceCopies, responseSchema, withoutDescription } from './openapi-finish.named-schemas.js';
import {
  API_PREFIX,
  OPERATION_IDS,
  STAFF_PREFIX,
  collectOperations,
  derivedId,
  ref,
  schemaRef,
  typeIntegerIds,
  type Doc,
} from './openapi-finish.operations.js';
import {
  ERROR_ENVELOPE,
  FAILURES,
  HEADERS,
  NO_STORE,
  SANDBOX_NOT_FOUND,
  STAFF_FAILURES,
  codesOf,
  commonHeaders,
  isOneBooking,
  isSandbox,
  takesIdempotencyKey,
} from './openapi-finish.responses.js';

/** Tags of the partner API, in reading order. */
const TAGS = [
  { name: 'integration', description: 'The calling integration' },
  { name: 'properties', description: 'Properties: create, update, list (Property blocks)' },
  { name: 'calendar', description: 'Snapshots of availability, rates and restrictions, with their watermark' },
  { name: 'events', description: 'Event replay, full re-sync and the delivery attempt log' },
  { name: 'bookings', description: 'Bookings: create, read, update, cancel, list' },
  { name: 'Sandbox', description: "Test helpers for a sandbox brand's integrations: act as the host on covered properties (404 to every other integration)" },
  { name: 'staff', description: 'Platform staff API (staff token; not for partners)' },
];

export function finishOpenApi(input: JsonObject): JsonObject {
  const doc = structuredClone(input) as Doc;
  const components = (doc.components ??= {}) as Record<string, JsonObject>;
  const schemas = (components.schemas ??= {}) as Record<string, Json>;

  doc.info = { ...(doc.info as JsonObject), description: DESCRIPTION };
  doc.servers = [{ url: '/', description: 'The service’s own origin (http://127.0.0.1:8080 after `npm start` with the default PORT)' }];
  doc.tags = TAGS;
  components.securitySchemes = {
    bearer: { type: 'http', scheme: 'bearer', description: 'The integration’s API key: `Authorization: Bearer <API_KEY>`.' },
    staffToken: { type: 'http', scheme: 'bearer', description: 'A staff token (platform staff only).' },
  };

  const operations = collectOperations(doc);

  for (const op of operations) {
    const key = `${op.method.toUpperCase()} ${op.partner ? op.path.slice(API_PREFIX.length) : op.path}`;
    op.operation.operationId = op.partner
      ? (OPERATION_IDS[key] ?? derivedId(op.method, op.path.slice(API_PREFIX.length)))
      : derivedId(op.method, op.path.slice(STAFF_PREFIX.length), 'staff');
    if (!op.partner) op.operation.security = [{ staffToken: [] }];
    typeIntegerIds(op.operation);
  }

  // Cancel, sync and staff coverage accept no body at all (an empty body is "no body").
  for (const op of operations) {
    if (/\/cancel$/.test(op.path) || op.path === `${API_PREFIX}/sync` || op.path === `${STAFF_PREFIX}/integrations/{id}/coverage/{property_id}`) {
      const body = op.operation.requestBody as JsonObject | undefined;
      if (body) body.required = false;
    }
  }

  // Named schemas: extracted from their statement, every copy replaced by a $ref.
  // Partner operations by their path below the prefix, staff ones by their whole path.
  const partnerPaths = Object.fromEntries(operations.map((o) => [`${o.method} ${o.partner ? o.path.slice(API_PREFIX.length) : o.path}`, o.operation]));
  for (const named of NAMED) {
    const [path, method, status, pointer] = named.at;
    const operation = partnerPaths[`${method} ${path}`];
    if (!operation) continue;
    const body = responseSchema(operation, status);
    const found = body && at(body, pointer);
    if (!found || '$ref' in found) continue;
    const canonical = withoutDescription(found);
    schemas[named.name] = canonical;
    replaceCopies(doc, canonical, named.name, named.extends ?? false);
  }
  schemas.ErrorEnvelope = ERROR_ENVELOPE;
  addEventSchemas(schemas);

  // The replay rows hold the event envelope exactly as delivered.
  const replay = partnerPaths[`get /events`];
  const rows = replay && responseSchema(replay, '200');
  const eventSlot = rows && at(rows, ['data', '*']);
  if (eventSlot && typeof eventSlot.properties === 'object') (eventSlot.properties as JsonObject).event = schemaRef('Event');
  if (eventSlot) {
    schemas.EventRow = withoutDescription(eventSlot);
    replaceCopies(doc, schemas.EventRow, 'EventRow', false);
  }

  // Responses: headers on every answer, every failure status in the envelope.
  components.headers = Object.fromEntries(Object.entries(HEADERS));
  const failureResponses: Record<string, JsonObject> = {};
  for (const [status, failure] of Object.entries(FAILURES)) {
    const name = `Failure${status}`;
    failureResponses[name] = {
      description: failure.description,
      headers: { ...commonHeaders(true), ...(failure.retryAfter ? { 'Retry-After': ref('headers', 'Retry-After') } : {}) },
      content: { 'application/json': { schema: schemaRef('ErrorEnvelope') } },
    };
  }
  components.responses = failureResponses;

  for (const op of operations) {
    const responses = (op.operation.responses ??= {}) as Record<string, JsonObject>;
    for (const [status, failure] of Object.entries(FAILURES)) {
      if (!(status in responses) && (failure.when(op) || (status === '404' && isSandbox(op)))) responses[status] = {};
    }
    const idempotentOp = takesIdempotencyKey(op);
    for (const [status, response] of Object.entries(responses)) {
      const code = Number(status);
      if (code >= 400) {
        const shared = FAILURES[status];
        const describedHere = op.partner ? (status === '404' && isSandbox(op) ? SANDBOX_NOT_FOUND : codesOf(op, status)) : undefined;
        const replayable = idempotentOp && code < 500;
        if (shared && !describedHere && op.partner && !replayable) {
          responses[status] = ref('responses', `Failure${status}`);
        } else {
          responses[status] = {
            description: describedHere ?? (op.partner ? undefined : STAFF_FAILURES[status]) ?? shared?.description ?? 'Failure',
            headers: {
              ...commonHeaders(op.partner),
              ...(status === '429' || status === '503' ? { 'Retry-After': ref('headers', 'Retry-After') } : {}),
              ...(replayable ? { 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') } : {}),
            },
            content: { 'application/json': { schema: schemaRef('ErrorEnvelope') } },
          };
        }
        continue;
      }
      const headers: Record<string, Json> = { ...commonHeaders(op.partner) };
      if (idempotentOp) headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
      if (isOneBooking(response)) headers.ETag = ref('headers', 'ETag');
      if (NO_STORE.includes(`${op.method} ${op.path}`)) headers['Cache-Control'] = ref('headers', 'Cache-Control');
      response.headers = headers;
      if (!response.description || response.description === 'Default Response') response.description = 'Success';
      const content = response.content as JsonObject | undefined;
      const media = content?.['application/json'] as JsonObject | undefined;
      if (media?.schema && typeof media.schema === 'object') delete (media.schema as JsonObject).description;
    }
  }

  // Only the shared failure answers some operation refers to.
  const used = JSON.stringify(doc.paths);
  for (const name of Object.keys(failureResponses)) if (!used.includes(`"#/components/responses/${name}"`)) delete failureResponses[name];

  doc.webhooks = webhooks();
  return sortTopLevel(doc);
}

// ---------------------------------------------------------------------------------------------

const DESCRIPTION = [
  'The partner API lives under `/api/integrations/v1`; the platform staff API under `/api/staff/v1`.',
  '',
  'Every answer is a JSON object with `success` and `message`; successes add `data`, failures add `code` and sometimes `errors`.',
  'Paged reads put `pagination` (or, for replay, `cursor`) beside `data`. Timestamps carry the offset `+05:30`.',
  '',
  'Retry guidance: on a timeout or 5xx resend the identical request (creates with the same Idempotency-Key); on 409 IN_PROGRESS retry the same key after a few seconds; on 429 wait `Retry-After`; never retry a 422 or 409 PROPERTY_EXTERNAL_ID_EXISTS unchanged.',
  '',
  'Webhooks are signed twice over the raw body: `X-Service-Signature: t=<unix>,v1=<hex>` (HMAC-SHA256 of `<t>.<body>` keyed by the whole `whsec_` secret) and the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature`. During a secret rotation each carries one signature per live secret. Tolerance 300 s either way.',
].join('\n');

function sortTopLevel(doc: Doc): JsonObject {
  const order = ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'webhooks', 'components'];
  const out: JsonObject = {};
  for (const key of order) if (key in doc) out[key] = doc[key]!;
  for (const [key, value] of Object.entries(doc)) if (!(key in out)) out[key] = value;
  return out;
}
