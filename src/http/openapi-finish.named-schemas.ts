/**
 * Named component schemas for finishOpenApi (openapi-finish.ts): where each is stated, how it is
 * found in an operation, and how every deep-equal copy (or extension) becomes a `$ref` to it.
 */

import type { Json, JsonObject } from './openapi-events.js';
import { STAFF_PREFIX, schemaRef, type Doc } from './openapi-finish.operations.js';

/**
 * Where each named schema is stated, as [path, method, status, pointer into the JSON body], in the
 * order they are extracted: inner ones first, so that outer ones already refer to them.
 */
export const NAMED: Array<{ name: string; at: [string, string, string, string[]]; extends?: boolean }> = [
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

export function responseSchema(operation: JsonObject, status: string): JsonObject | undefined {
  if (status === 'body') {
    const content = (operation.requestBody as JsonObject | undefined)?.content as JsonObject | undefined;
    return (content?.['application/json'] as JsonObject | undefined)?.schema as JsonObject | undefined;
  }
  const responses = operation.responses as Record<string, JsonObject> | undefined;
  const content = responses?.[status]?.content as JsonObject | undefined;
  return (content?.['application/json'] as JsonObject | undefined)?.schema as JsonObject | undefined;
}

/** Follows `properties` by name and `items` for `*`. */
export function at(schema: JsonObject, pointer: string[]): JsonObject | undefined {
  let node: JsonObject | undefined = schema;
  for (const step of pointer) {
    if (!node) return undefined;
    node = (step === '*' ? node.items : (node.properties as JsonObject | undefined)?.[step]) as JsonObject | undefined;
  }
  return node;
}

export function withoutDescription(schema: JsonObject): JsonObject {
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
export function replaceCopies(doc: Doc, canonical: JsonObject, name: string, extend: boolean): void {
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
