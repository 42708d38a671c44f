import { STAFF_TOKEN } from './processes.js';

/** An answer's envelope; `data` has the shape the caller names for the route. */
export interface Answer<T> {
  success?: boolean;
  code?: string;
  message?: string;
  data: T;
}

/** Small fetch wrappers for setting up bench data through the public APIs. */
export async function call<T = unknown>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<{ status: number; body: Answer<T> }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  // null for an empty answer, which no route called here gives
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Answer<T> };
}

export const staff = <T = unknown>(base: string, method: string, path: string, body?: unknown) =>
  call<T>(base, STAFF_TOKEN, method, `/api/staff/v1${path}`, body);

export async function setupIntegration(base: string, options: { name?: string; webhook?: object; brandId?: number } = {}) {
  const brandId = options.brandId ?? (await staff<{ id: number }>(base, 'POST', '/brands', { name: 'Bench Brand' })).body.data.id;
  const res = await staff<{ integration: { id: number }; api_key: string }>(base, 'POST', '/integrations', {
    brand_id: brandId,
    name: options.name ?? `Bench ${Math.random().toString(36).slice(2, 8)}`,
    webhook: options.webhook,
  });
  if (res.status !== 201) throw new Error(`integration create failed: ${JSON.stringify(res.body)}`);
  return { id: res.body.data.integration.id, apiKey: res.body.data.api_key, brandId };
}

let keys = 0;
/** A fresh Idempotency-Key (8 to 128 visible characters). */
export const idempotencyKey = (what: string) => `bench-${what}-${process.pid}-${Date.now().toString(36)}-${++keys}`;

/** A property create body with `units` rooms; unit external ids are `<externalId>-U<n>`. */
export function propertyBody(externalId: string, units: number) {
  return {
    external_id: externalId,
    name: `Bench ${externalId}`,
    description: 'Benchmark property.',
    address: { address_line_1: '1 Bench Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
    space: { bedrooms: units, washrooms: units },
    occupancy: { max_guests: 4 },
    pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
    units: Array.from({ length: units }, (_, i) => ({ name: `Room ${i + 1}`, external_id: `${externalId}-U${i + 1}` })),
  };
}

/** POST /properties; returns the property block (doorloom_id, units…). */
export async function createProperty(base: string, apiKey: string, externalId: string, units: number) {
  const res = await call<{ doorloom_id: number }>(base, apiKey, 'POST', '/api/integrations/v1/properties', propertyBody(externalId, units), {
    'idempotency-key': idempotencyKey('prop'),
  });
  if (res.status !== 201) throw new Error(`property create failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body.data;
}

/** POST /properties/bulk with one property per external id. */
export async function bulkCreate(base: string, apiKey: string, externalIds: string[], units = 1) {
  const res = await call<{ summary: { failed: number }; results: Array<{ property?: { doorloom_id: number } }> }>(
    base,
    apiKey,
    'POST',
    '/api/integrations/v1/properties/bulk',
    { properties: externalIds.map((id) => propertyBody(id, units)) },
    { 'idempotency-key': idempotencyKey('bulk') },
  );
  if (res.status !== 201 || res.body.data.summary.failed !== 0) throw new Error(`bulk create failed: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body.data;
}

/** A POST /bookings body for the given unit aliases and stay. */
export function bookingBody(ref: string, propertyExternalId: string, unitAliases: string[], checkIn: string, checkOut: string) {
  return {
    external_booking_id: ref,
    property: { external_id: propertyExternalId },
    units: unitAliases.map((alias) => ({ external_unit_id: alias, adults: 2 })),
    check_in: checkIn,
    check_out: checkOut,
    guest: { name: 'Bench Guest', phone_code: '+91', mobile: '9000000000' },
    pricing: { total: 10000, currency: 'INR' },
    source: { channel: 'airbnb', reference: ref },
  };
}

/** Staff view of an integration: webhook.last_sequence, delivery.cursor_sequence, … */
export async function staffIntegration(base: string, id: number) {
  const res = await staff<{
    webhook: { last_sequence: number; undelivered_events: number; url: string | null };
    delivery: { cursor_sequence: number };
    status: string;
  }>(base, 'GET', `/integrations/${id}`);
  if (res.status !== 200) throw new Error(`staff view of integration ${id}: ${res.status}`);
  return res.body.data;
}

/** Runs `task` over `items` with at most `width` at once (setup through the API). */
export async function inParallel<T, R>(items: T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i], i);
      }
    }),
  );
  return out;
}
