import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { expect } from 'vitest';
import type { FleetState } from '../../scripts/fleet.js';
import type { Receiver } from '../helpers/receiver.js';

/** Clients of the fleet: partners and hosts talking to the node HAProxy (or to one node directly). */

export { sleep } from '../../scripts/lib.js';
export const newKey = (prefix = 'fleet') => `${prefix}-${randomBytes(8).toString('hex')}`;

/** One answer: status, the envelope's code, the node that answered (from X-Request-Id), how long it took. */
export interface Answer {
  status: number;
  code?: string;
  body: any;
  text: string;
  node?: string;
  /** performance.now() when it was sent. */
  sentAt: number;
  ms: number;
  contentType: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send to this base URL instead of the node HAProxy. */
  base?: string;
  dispatcher?: Agent;
  timeoutMs?: number;
}

/** A request; a transport failure (reset, timeout) is an answer with status 0. */
export async function call(state: FleetState, token: string | null, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const res = await fetch(`${options.base ?? state.apiUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      // @ts-expect-error undici's dispatcher option (Node's fetch accepts it)
      dispatcher: options.dispatcher,
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (a proxy's own page)
    }
    const requestId = res.headers.get('x-request-id') ?? '';
    return {
      status: res.status,
      code: body?.code,
      body,
      text,
      node: /^req-(\d+)-/.exec(requestId)?.[1],
      sentAt: started,
      ms: performance.now() - started,
      contentType: res.headers.get('content-type') ?? '',
    };
  } catch (error) {
    return { status: 0, body: null, text: String((error as Error)?.cause ?? error), sentAt: started, ms: performance.now() - started, contentType: '' };
  }
}

export const staff = (state: FleetState, method: string, path: string, body?: unknown, options: CallOptions = {}) =>
  call(state, state.staffToken, method, `/api/staff/v1${path}`, { ...options, body });

export const api = (state: FleetState, key: string, method: string, path: string, options: CallOptions = {}) =>
  call(state, key, method, `/api/integrations/v1${path}`, options);

/** A night `days` from today (UTC), YYYY-MM-DD. */
export function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export interface Partner {
  id: number;
  slug: string;
  key: string;
  brandId: number;
  villa: { id: number; externalId: string; aliases: string[]; unitIds: number[] };
}

/** A brand, an integration (webhook to `receiver` when given) and a villa of `units` units of its own. */
export async function seedPartner(state: FleetState, name: string, units: number, receiver?: Receiver): Promise<Partner> {
  const brand = await staff(state, 'POST', '/brands', { name: `${name} brand` });
  expect(brand.status, brand.text).toBe(201);
  const created = await staff(state, 'POST', '/integrations', {
    brand_id: brand.body.data.id,
    name,
    ...(receiver ? { webhook: { url: `${receiver.url}/${name}` } } : {}),
  });
  expect(created.status, created.text).toBe(201);
  const key: string = created.body.data.api_key;
  const externalId = `${name}-villa`;
  const aliases = Array.from({ length: units }, (_, i) => `${externalId}-U${i + 1}`);
  const property = await api(state, key, 'POST', '/properties', {
    headers: { 'idempotency-key': newKey() },
    body: {
      external_id: externalId,
      name: `${name} villa`,
      description: 'Fleet test villa.',
      address: { address_line_1: '1 Test Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: units, washrooms: 1 },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: aliases.map((alias, i) => ({ name: `Room ${i + 1}`, external_id: alias })),
    },
  });
  expect(property.status, property.text).toBe(201);
  const block = property.body.data;
  return {
    id: created.body.data.integration.id,
    slug: created.body.data.integration.slug,
    key,
    brandId: brand.body.data.id,
    villa: { id: block.doorloom_id, externalId, aliases, unitIds: block.units.map((u: { inventory_id: number }) => u.inventory_id) },
  };
}

export function bookingBody(partner: Partner, unit: number, checkIn: number, nights = 1): Record<string, unknown> {
  return {
    external_booking_id: newKey('BK'),
    property: { external_id: partner.villa.externalId },
    units: [{ external_unit_id: partner.villa.aliases[unit], adults: 2 }],
    check_in: day(checkIn),
    check_out: day(checkIn + nights),
    guest: { name: 'Asha Rao', phone_code: '+91', mobile: '9876543210' },
    pricing: { total: 10000, currency: 'INR' },
    source: { channel: 'airbnb', reference: 'HM-1' },
  };
}

/** Every event of an integration through GET /events, in sequence order. */
export async function allEvents(state: FleetState, partner: Partner): Promise<any[]> {
  const events: any[] = [];
  let after = 0;
  for (;;) {
    const page = await api(state, partner.key, 'GET', `/events?after_sequence=${after}&limit=200`, {
      headers: { 'x-forwarded-for': `198.18.${partner.id % 250}.1` },
    });
    expect(page.status, page.text).toBe(200);
    events.push(...page.body.data.map((row: { event: unknown }) => row.event));
    after = page.body.cursor.next_after_sequence;
    if (!page.body.cursor.has_more) return events;
  }
}

/** The answers a client may see from the fleet while a part of it fails: never a 500, never the proxy's own page. */
export function expectServiceAnswer(answer: Answer, allowed: number[]): void {
  if (answer.status === 503) {
    expect(answer.code, `a 503 not in the service's envelope: ${answer.text.slice(0, 200)}`).toBe('DATABASE_UNAVAILABLE');
    return;
  }
  expect(allowed, `unexpected answer ${answer.status}: ${answer.text.slice(0, 300)}`).toContain(answer.status);
}
