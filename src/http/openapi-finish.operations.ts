/**
 * The operations of the OpenAPI document as finishOpenApi (openapi-finish.ts) walks them: the
 * prefixes, the `$ref` helpers, each operation's operationId and its integer path ids.
 */

import type { JsonObject } from './openapi-events.js';

// The prefixes of app.ts (imported from there, they would make a cycle: app.ts registers this).
export const API_PREFIX = '/api/integrations/v1';
export const STAFF_PREFIX = '/api/staff/v1';

export type Doc = JsonObject & { paths: Record<string, Record<string, JsonObject>>; components?: JsonObject };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
export const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string): JsonObject => ({ $ref: `#/components/${kind}/${name}` });
export const schemaRef = (name: string) => ref('schemas', name);

/** operationIds of the known operations; any other route gets one derived from its method and path. */
export const OPERATION_IDS: Record<string, string> = {
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

export interface OperationInfo {
  path: string;
  method: string;
  partner: boolean;
  hasBody: boolean;
  hasQuery: boolean;
  hasPathParams: boolean;
  operation: JsonObject;
}

export function operationIdOf(op: OperationInfo): string {
  const id = op.operation.operationId;
  return typeof id === 'string' ? id : '';
}

export function collectOperations(doc: Doc): OperationInfo[] {
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
export function derivedId(method: string, path: string, prefix = ''): string {
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
export function typeIntegerIds(operation: JsonObject): void {
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
