import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestContext, TestIntegration } from '../helpers/context.js';

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

export const newKey = () => `key-${randomBytes(8).toString('hex')}`;

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

/** The events recorded for an integration, oldest first, as envelopes. */
export async function eventsOf(ctx: TestContext, integrationId: number, afterSequence = 0) {
  const rows = await ctx.deps.db
    .selectFrom('events')
    .select(['sequence', 'body'])
    .where('integration_id', '=', integrationId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .execute();
  return rows.map((r) => JSON.parse(r.body) as { type: string; sequence: number; origin: string; window: { from: string; to: string } | null; property: { doorloom_id: number; external_id: string | null }; data: any });
}

export async function lastSequence(ctx: TestContext, integrationId: number): Promise<number> {
  const row = await ctx.deps.db.selectFrom('integrations').select('last_sequence').where('id', '=', integrationId).executeTakeFirstOrThrow();
  return row.last_sequence;
}

export async function countProperties(ctx: TestContext, brandId: number): Promise<number> {
  const row = await ctx.deps.db
    .selectFrom('properties')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('brand_id', '=', brandId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
