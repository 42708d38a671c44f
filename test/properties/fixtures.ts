import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestIntegration } from '../helpers/context.js';
import { newKey } from '../helpers/fixtures.js';

export { eventsOf, lastSequence, newKey } from '../helpers/fixtures.js';

/** A complete, valid create body (every required field, nothing optional). */
export function createBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Sea Breeze Villa',
    description: 'Three bedrooms by the beach.',
    address: { address_line_1: '12 Beach Road', city: 'Candolim', state: 'Goa', pin_code: '403515' },
    space: { bedrooms: 3, washrooms: 2 },
    occupancy: { max_guests: 6 },
    pricing: { weekday: { base_price: 12000 }, weekend: { base_price: 15000 } },
    ...overrides,
  };
}

/** POST /properties with a fresh Idempotency-Key. */
export function create(ctx: TestContext, integration: TestIntegration, body: unknown, key = newKey()): Promise<LightMyRequestResponse> {
  return ctx.api(integration.apiKey, 'POST', '/properties', body, { 'idempotency-key': key });
}

/** Creates a property and returns its Property block (throws unless 201). */
export async function createOk(ctx: TestContext, integration: TestIntegration, overrides: Record<string, unknown> = {}) {
  const res = await create(ctx, integration, createBody(overrides));
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

export function put(ctx: TestContext, integration: TestIntegration, ref: string | number, body: unknown): Promise<LightMyRequestResponse> {
  return ctx.api(integration.apiKey, 'PUT', `/properties/${encodeURIComponent(String(ref))}`, body);
}

export async function countProperties(ctx: TestContext, brandId: number): Promise<number> {
  const row = await ctx.deps.db
    .selectFrom('properties')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
