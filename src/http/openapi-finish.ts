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

// The prefixes of app.ts (imported from there, they would make a cycle: app.ts registers this).
const API_PREFIX = '/api/integrations/v1';
const STAFF_PREFIX = '/api/staff/v1';

type Doc = JsonObject & { paths: Record<string, Record<string, JsonObject>>; components?: JsonObject };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });
const schemaRef = (name: string) => ref('schemas', name);

/** operationIds of the known operations; any other route gets one derived from its method and path. */
const OPERATION_IDS: Record<string, string> = {
  'GET /me': 'getMe',
  'GET /properties': 'listProperties',
  'POST /properties': 'createProperty',
  'POST /properties/bulk': 'bulkCreateProperties',
  'PUT /properties/bulk': 'bulkUpdateProperties',
  'GET /properties/{property}': 'getProperty',
  'PUT /properties/{property}': 'updateProperty',
  'GET /properties/{property}/availability': 'getAvailabilitySnapshot',
  'GET /properties/{property}/rates': 'getRatesSnapshot',
  'GET /properties/{property}/restrictions': 'getRestrictionsSnapshot',
  'GET /events': 'listEvents',
  'POST /sync': 'requestSync',
  'POST /bookings': 'createBooking',
  'GET /bookings': 'listBookings',
  'GET /bookings/{id}': 'getBooking',
  'PATCH /bookings/{id}': 'updateBooking',
  'GET /bookings/external/{external_booking_id}': 'getBookingByExternalId',
  'PATCH /bookings/external/{external_booking_id}': 'updateBookingByExternalId',
  'POST /bookings/{id}/cancel': 'cancelBooking',
  'POST /bookings/external/{external_booking_id}/cancel': 'cancelBookingByExternalId',
};

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

/**
 * Where each named schema is stated, as [path, method, status, pointer into the JSON body], in the
 * order they are extracted: inner ones first, so that outer ones already refer to them.
 */
const NAMED: Array<{ name: string; at: [string, string, string, string[]]; extends?: boolean }> = [
  // request bodies ('body' in place of a status)
  { name: 'NightlyPriceInput', at: ['/properties', 'post', 'body', ['pricing', 'weekday']] },
  { name: 'NightlyPriceUpdate', at: ['/properties/{property}', 'put', 'body', ['pricing', 'weekday']] },
  { name: 'AddressInput', at: ['/properties', 'post', 'body', ['address']] },
  { name: 'AddressUpdate', at: ['/properties/{property}', 'put', 'body', ['address']] },
  { name: 'PropertyCreateInput', at: ['/properties', 'post', 'body', []] },
  { name: 'PropertyUpdateInput', at: ['/properties/{property}', 'put', 'body', []] },
  { name: 'BookingUnitInput', at: ['/bookings', 'post', 'body', ['units', '*']] },
  { name: 'BookingCreateInput', at: ['/bookings', 'post', 'body', []] },
  { name: 'BookingUpdateInput', at: ['/bookings/{id}', 'patch', 'body', []] },
  { name: 'BookingCancelInput', at: ['/bookings/{id}/cancel', 'post', 'body', []] },
  { name: 'SyncInput', at: ['/sync', 'post', 'body', []] },
  // responses
  { name: 'Unit', at: ['/properties', 'get', '200', ['data', 'properties', '*', 'units', '*']] },
  { name: 'PropertyBlock', at: ['/properties', 'get', '200', ['data', 'properties', '*']], extends: true },
  { name: 'Pagination', at: ['/bookings', 'get', '200', ['pagination']] },
  { name: 'Cursor', at: ['/events', 'get', '200', ['cursor']] },
  { name: 'Integration', at: ['/me', 'get', '200', ['data']], extends: true },
  { name: 'Booking', at: ['/bookings/{id}', 'get', '200', ['data']], extends: true },
  { name: 'PropertyDetail', at: ['/properties/{property}', 'get', '200', ['data']] },
  { name: 'DateWindow', at: ['/properties/{property}/availability', 'get', '200', ['data', 'window']] },
  { name: 'PropertyReference', at: ['/properties/{property}/availability', 'get', '200', ['data', 'property']] },
  { name: 'AvailabilityPayload', at: ['/properties/{property}/availability', 'get', '200', ['data', 'data']] },
  { name: 'RatesPayload', at: ['/properties/{property}/rates', 'get', '200', ['data', 'data']] },
  { name: 'RestrictionsPayload', at: ['/properties/{property}/restrictions', 'get', '200', ['data', 'data']] },
  { name: 'AvailabilitySnapshot', at: ['/properties/{property}/availability', 'get', '200', ['data']] },
  { name: 'RatesSnapshot', at: ['/properties/{property}/rates', 'get', '200', ['data']] },
  { name: 'RestrictionsSnapshot', at: ['/properties/{property}/restrictions', 'get', '200', ['data']] },
  { name: 'BulkResult', at: ['/properties/bulk', 'put', '200', ['data']] },
  { name: 'SyncResult', at: ['/sync', 'post', '202', ['data']] },
  // staff views
  { name: 'StaffPropertyView', at: [`${STAFF_PREFIX}/properties/{id}`, 'get', '200', ['data']] },
  { name: 'StaffCalendarEdit', at: [`${STAFF_PREFIX}/properties/{id}/calendar`, 'put', '200', ['data']] },
];

const ERROR_ENVELOPE: JsonObject = {
  type: 'object',
  description: 'Every failure: `success` false, a machine-readable `code` to branch on, a `message` for people, and sometimes `errors`.',
  required: ['success', 'message', 'code'],
  properties: {
    success: { type: 'boolean', const: false },
    message: { type: 'string' },
    code: { type: 'string', examples: ['VALIDATION_FAILED'] },
    errors: {
      type: 'object',
      additionalProperties: true,
      description:
        'Validation: dotted field paths (`units.2.external_id`) to arrays of messages. Other codes: their details (`retry_after`, `doorloom_id`, `availability`).',
    },
  },
};

/** Failure statuses: what each means, and which operations can answer it. */
const FAILURES: Record<string, { description: string; when: (op: OperationInfo) => boolean; retryAfter?: boolean }> = {
  '400': { description: 'INVALID_JSON (the body is not JSON) or BAD_REQUEST (a malformed request).', when: () => true },
  '401': { description: 'UNAUTHENTICATED: no bearer token, or not a valid one.', when: () => true },
  '403': { description: 'NOT_INTEGRATION_TOKEN (another surface’s token) or INTEGRATION_DISABLED.', when: () => true },
  '404': { description: 'NOT_FOUND: no such record for this caller (another integration’s records are NOT_FOUND too).', when: (op) => op.hasPathParams },
  '408': { description: 'REQUEST_TIMEOUT: the request was not received in time.', when: () => true },
  '409': {
    description: 'A conflict; see the operation’s description for its codes (IN_PROGRESS: retry the same request after a few seconds).',
    when: () => false,
  },
  '412': { description: 'PRECONDITION_FAILED: `If-Match` names a revision that is no longer current.', when: () => false },
  '413': { description: 'PAYLOAD_TOO_LARGE: the body is larger than 1 MiB, or exceeds a payload cap.', when: (op) => op.hasBody || op.method !== 'get' },
  '414': { description: 'URI_TOO_LONG: a path segment is too long.', when: () => true },
  '415': {
    description: 'UNSUPPORTED_MEDIA_TYPE: send bodies as `Content-Type: application/json` (a body sent where none is expected is read too).',
    when: (op) => op.hasBody || op.method !== 'get',
  },
  '422': {
    description:
      'VALIDATION_FAILED (`errors` keyed by dotted field path; on any route, a query parameter holding a NUL character) or another refusal named by `code`; do not retry unchanged.',
    when: () => true,
  },
  '431': { description: 'HEADERS_TOO_LARGE: the request line and headers are larger than 16 KiB.', when: () => true },
  '429': { description: 'RATE_LIMITED: wait `Retry-After`, then send the same request.', when: () => true, retryAfter: true },
  '503': { description: 'DATABASE_UNAVAILABLE or the service is shutting down: retry after a pause.', when: () => true, retryAfter: true },
};

/** The staff API's own wording where it differs (its token, its refusals). */
const STAFF_FAILURES: Record<string, string> = {
  '401': 'UNAUTHENTICATED: no bearer token, or not a valid staff token.',
  '403': 'NOT_STAFF_TOKEN: a valid bearer token that is not a staff token.',
};

const HEADERS: Record<string, JsonObject> = {
  'X-Request-Id': {
    description: 'The request’s id (the caller’s own when it sent a valid one); quote it when asking about a request.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'Remaining requests per tier that applied (`"<tier>";r=<remaining>;t=<seconds to reset>`, comma-separated).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': { description: 'The tiers that applied (`"<tier>";q=<limit>;w=60`, comma-separated).', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Limit of the tightest tier that applied, per minute.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the tightest tier this minute.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before sending the same request again.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: { description: 'The booking’s revision (`"3"`); send it back as `If-Match`.', schema: { type: 'string', pattern: '^"[0-9]+"$' } },
  'Cache-Control': { description: '`no-store`: the answer holds a secret shown once; no cache may keep it.', schema: { type: 'string', enum: ['no-store'] } },
};

/** Staff answers that hand out a secret (an API key, a webhook secret, a staff token) and say `Cache-Control: no-store`. */
const NO_STORE = [
  `post ${STAFF_PREFIX}/integrations`,
  `post ${STAFF_PREFIX}/integrations/{id}/api-key/rotate`,
  `post ${STAFF_PREFIX}/integrations/{id}/webhook-secret/rotate`,
  `post ${STAFF_PREFIX}/staff-tokens`,
];

/** The data of an answer is one booking (`Booking`, or `Booking` and more): such answers carry its revision as the ETag. */
function isOneBooking(response: JsonObject): boolean {
  const media = (response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
  const data = ((media?.schema as JsonObject | undefined)?.properties as JsonObject | undefined)?.data as JsonObject | undefined;
  if (!data) return false;
  const first = Array.isArray(data.allOf) ? (data.allOf[0] as JsonObject) : data;
  return first?.$ref === '#/components/schemas/Booking';
}

/** The operation takes an Idempotency-Key: every answer but a 5xx may be the stored answer to an earlier request. */
const takesIdempotencyKey = (op: OperationInfo) =>
  ((op.operation.parameters ?? []) as JsonObject[]).some((p) => p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() === 'idempotency-key');
const isSandbox = (op: OperationInfo) => ((op.operation.tags ?? []) as string[]).includes('Sandbox');
const SANDBOX_NOT_FOUND =
  'NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones.';

interface OperationInfo {
  path: string;
  method: string;
  partner: boolean;
  hasBody: boolean;
  hasQuery: boolean;
  hasPathParams: boolean;
  operation: JsonObject;
}

function operationIdOf(op: OperationInfo): string {
  const id = op.operation.operationId;
  return typeof id === 'string' ? id : '';
}

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

function collectOperations(doc: Doc): OperationInfo[] {
  const list: OperationInfo[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      const parameters = (operation.parameters ?? []) as JsonObject[];
      list.push({
        path,
        method,
        partner: path.startsWith(API_PREFIX + '/'),
        hasBody: operation.requestBody !== undefined,
        hasQuery: parameters.some((p) => p.in === 'query'),
        hasPathParams: parameters.some((p) => p.in === 'path'),
        operation,
      });
    }
  }
  return list;
}

/** `GET /bookings/{id}/cancel` → `getBookingsByIdCancel` (staff: `staffGet…`). */
function derivedId(method: string, path: string, prefix = ''): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by_${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const camel = [method, ...words].map((w, i) => (i === 0 && !prefix ? w : w[0].toUpperCase() + w.slice(1))).join('');
  return prefix ? prefix + camel : camel;
}

/** Numeric path ids are integers (`{property}` also takes the partner's external_id, so it stays a string). */
function typeIntegerIds(operation: JsonObject): void {
  for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
    if (parameter.in !== 'path') continue;
    if (parameter.name === 'id' || parameter.name === 'property_id') {
      parameter.schema = { type: 'integer', minimum: 1, maximum: 2147483647 };
    } else if (parameter.name === 'property') {
      parameter.schema = { type: 'string', minLength: 1, maxLength: 128 };
      parameter.description = 'The service’s property id (doorloom_id) or the partner’s external_id; whichever is recognised is used.';
    } else if (parameter.name === 'external_booking_id') {
      parameter.schema = { type: 'string', minLength: 1, maxLength: 128 };
      parameter.description = 'The partner’s booking id, URL-encoded.';
    }
  }
}

function responseSchema(operation: JsonObject, status: string): JsonObject | undefined {
  if (status === 'body') {
    const content = (operation.requestBody as JsonObject | undefined)?.content as JsonObject | undefined;
    return (content?.['application/json'] as JsonObject | undefined)?.schema as JsonObject | undefined;
  }
  const responses = operation.responses as Record<string, JsonObject> | undefined;
  const content = responses?.[status]?.content as JsonObject | undefined;
  return (content?.['application/json'] as JsonObject | undefined)?.schema as JsonObject | undefined;
}

/** Follows `properties` by name and `items` for `*`. */
function at(schema: JsonObject, pointer: string[]): JsonObject | undefined {
  let node: JsonObject | undefined = schema;
  for (const step of pointer) {
    if (!node) return undefined;
    node = (step === '*' ? node.items : (node.properties as JsonObject | undefined)?.[step]) as JsonObject | undefined;
  }
  return node;
}

function withoutDescription(schema: JsonObject): JsonObject {
  const { description: _ignored, ...rest } = structuredClone(schema);
  return rest;
}

function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as Json[]).length && a.every((v, i) => sameJson(v, (b as Json[])[i]));
  const ak = Object.keys(a);
  const bo = b as JsonObject;
  return ak.length === Object.keys(bo).length && ak.every((k) => k in bo && sameJson(a[k], bo[k]));
}

/** Equal apart from a description at the top. */
function sameSchema(node: JsonObject, canonical: JsonObject): boolean {
  return sameJson(withoutDescriptionShallow(node), canonical);
}
function withoutDescriptionShallow(node: JsonObject): JsonObject {
  if (!('description' in node)) return node;
  const { description: _ignored, ...rest } = node;
  return rest;
}

/**
 * An object schema that has every property of `canonical` (each the same) and requires what it
 * requires, plus more: `allOf` of the named schema and the rest.
 */
function extensionOf(node: JsonObject, canonical: JsonObject): JsonObject | null {
  if (node.type !== 'object' || typeof node.properties !== 'object' || node.properties === null) return null;
  const props = node.properties as JsonObject;
  const base = canonical.properties as JsonObject;
  const baseKeys = Object.keys(base);
  if (Object.keys(props).length <= baseKeys.length) return null;
  if (!baseKeys.every((k) => k in props && sameJson(props[k], base[k]))) return null;
  const required = (node.required ?? []) as string[];
  const baseRequired = (canonical.required ?? []) as string[];
  if (!baseRequired.every((k) => required.includes(k))) return null;
  const extraProps = Object.fromEntries(Object.entries(props).filter(([k]) => !baseKeys.includes(k)));
  const extraRequired = required.filter((k) => !baseRequired.includes(k));
  return { type: 'object', properties: extraProps, ...(extraRequired.length ? { required: extraRequired } : {}) };
}

/** Replaces every copy of `canonical` in paths and components (except the component itself). */
function replaceCopies(doc: Doc, canonical: JsonObject, name: string, extend: boolean): void {
  const target = schemaRef(name);
  const visit = (node: Json, skip: boolean): Json => {
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (!skip && '$ref' in node === false) {
      if (sameSchema(node, canonical)) return typeof node.description === 'string' ? { ...target, description: node.description } : { ...target };
      if (extend) {
        const rest = extensionOf(node, canonical);
        if (rest) return { allOf: [{ ...target }, visit(rest, true)], ...(typeof node.description === 'string' ? { description: node.description } : {}) };
      }
    }
    for (const [k, v] of Object.entries(node)) node[k] = visit(v, false);
    return node;
  };
  doc.paths = visit(doc.paths, true) as Doc['paths'];
  const schemas = (doc.components as Record<string, Record<string, Json>>).schemas;
  // A component's own top is never replaced (the named one would become a $ref to itself); its
  // inside may hold copies.
  for (const [key, schema] of Object.entries(schemas)) schemas[key] = visit(schema, true);
}

function commonHeaders(partner: boolean): Record<string, Json> {
  const headers: Record<string, Json> = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  if (partner) {
    headers.RateLimit = ref('headers', 'RateLimit');
    headers['RateLimit-Policy'] = ref('headers', 'RateLimit-Policy');
    headers['X-RateLimit-Limit'] = ref('headers', 'X-RateLimit-Limit');
    headers['X-RateLimit-Remaining'] = ref('headers', 'X-RateLimit-Remaining');
  }
  return headers;
}

/** The codes one partner operation can answer with a status, when they are more than the shared text says. */
function codesOf(op: OperationInfo, status: string): string | undefined {
  const id = operationIdOf(op);
  const table: Record<string, Record<string, string>> = {
    '409': {
      createProperty:
        'PROPERTY_EXTERNAL_ID_EXISTS (`errors.doorloom_id` names the holder; fix the body, use a new key) or IN_PROGRESS (retry the same key after a few seconds).',
      bulkCreateProperties: 'IN_PROGRESS: an identical batch is still running; retry the same key after a few seconds.',
      updateProperty: 'PROPERTY_EXTERNAL_ID_EXISTS: the external_id is mapped to another property.',
      createBooking: 'UNAVAILABLE (`errors.availability` holds the per-night picture) or IN_PROGRESS (retry the same key after a few seconds).',
      updateBooking: 'UNAVAILABLE: the changed stay is not free.',
      updateBookingByExternalId: 'UNAVAILABLE: the changed stay is not free.',
    },
    '412': {},
    '422': {
      createProperty: 'VALIDATION_FAILED (dotted keys), IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED.',
      bulkCreateProperties: 'VALIDATION_FAILED (keys `properties.N.*`; nothing written), IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED.',
      updateProperty: 'VALIDATION_FAILED (dotted keys, `units.N.*`) or PROPERTY_ARCHIVED.',
      createBooking: 'VALIDATION_FAILED, PROPERTY_NOT_MAPPED, PROPERTY_ARCHIVED, UNIT_INACTIVE, IDEMPOTENCY_KEY_REQUIRED or IDEMPOTENCY_KEY_REUSED.',
      requestSync: 'VALIDATION_FAILED or PROPERTY_NOT_MAPPED (an unknown or uncovered property id); does not use up the 24-hour window.',
      getAvailabilitySnapshot: 'VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`).',
      getRatesSnapshot: 'VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`).',
      getRestrictionsSnapshot: 'VALIDATION_FAILED: a window over 92 days, or `to` more than 730 days ahead (against `to`).',
    },
    '429': {
      requestSync: 'SYNC_TOO_SOON (one sync per 24 hours; `errors.retry_after` in seconds) or RATE_LIMITED (six calls a day).',
    },
    '410': {
      listEvents: 'CURSOR_EXPIRED: `after_sequence` is older than the 30-day replay window; take snapshots instead.',
    },
  };
  return table[status]?.[id];
}

function sortTopLevel(doc: Doc): JsonObject {
  const order = ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'webhooks', 'components'];
  const out: JsonObject = {};
  for (const key of order) if (key in doc) out[key] = doc[key]!;
  for (const [key, value] of Object.entries(doc)) if (!(key in out)) out[key] = value;
  return out;
}
