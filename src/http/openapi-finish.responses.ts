/**
 * Responses for finishOpenApi (openapi-finish.ts): the error envelope, every failure status and
 * which operations can answer it, each operation's own codes, and the response headers.
 */

import type { Json, JsonObject } from './openapi-events.js';
import { STAFF_PREFIX, operationIdOf, ref, type OperationInfo } from './openapi-finish.operations.js';

export const ERROR_ENVELOPE: JsonObject = {
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
export const FAILURES: Record<string, { description: string; when: (op: OperationInfo) => boolean; retryAfter?: boolean }> = {
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
export const STAFF_FAILURES: Record<string, string> = {
  '401': 'UNAUTHENTICATED: no bearer token, or not a valid staff token.',
  '403': 'NOT_STAFF_TOKEN: a valid bearer token that is not a staff token.',
};

export const HEADERS: Record<string, JsonObject> = {
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
export const NO_STORE = [
  `post ${STAFF_PREFIX}/integrations`,
  `post ${STAFF_PREFIX}/integrations/{id}/api-key/rotate`,
  `post ${STAFF_PREFIX}/integrations/{id}/webhook-secret/rotate`,
  `post ${STAFF_PREFIX}/staff-tokens`,
];

/** The data of an answer is one booking (`Booking`, or `Booking` and more): such answers carry its revision as the ETag. */
export function isOneBooking(response: JsonObject): boolean {
  const media = (response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
  const data = ((media?.schema as JsonObject | undefined)?.properties as JsonObject | undefined)?.data as JsonObject | undefined;
  if (!data) return false;
  const first = Array.isArray(data.allOf) ? (data.allOf[0] as JsonObject) : data;
  return first?.$ref === '#/components/schemas/Booking';
}

/** The operation takes an Idempotency-Key: every answer but a 5xx may be the stored answer to an earlier request. */
export const takesIdempotencyKey = (op: OperationInfo) =>
  ((op.operation.parameters ?? []) as JsonObject[]).some((p) => p.in === 'header' && typeof p.name === 'string' && p.name.toLowerCase() === 'idempotency-key');
export const isSandbox = (op: OperationInfo) => ((op.operation.tags ?? []) as string[]).includes('Sandbox');
export const SANDBOX_NOT_FOUND =
  'NOT_FOUND: every sandbox route answers 404 (rather than 401 or 403) to anyone but a sandbox brand’s integration, as for an unknown path; for a sandbox integration, no such property or booking among its covered ones.';

export function commonHeaders(partner: boolean): Record<string, Json> {
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
export function codesOf(op: OperationInfo, status: string): string | undefined {
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
