import { selectAppendTargets } from '../../src/modules/properties/properties.sql.js';
import { appendEvents, unitOfWork, type EventDraft } from '../../src/modules/events/events.log.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { eventDeliveryPage } from '../../src/modules/webhooks/webhooks.stats.sql.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/** A file's test context (with `env`) and a receiver for its webhooks, for its beforeAll; on failure nothing is left open. */
export async function openReceiverContext(env: Record<string, string> = {}): Promise<{ ctx: TestContext; receiver: Receiver }> {
  const ctx = await createTestContext(env);
  try {
    return { ctx, receiver: await startReceiver() };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/** The same with a delivery worker on the context, polling every 200 ms. */
export async function openDeliveryContext(env: Record<string, string> = {}): Promise<{ ctx: TestContext; receiver: Receiver; worker: DeliveryWorker }> {
  const opened = await openReceiverContext(env);
  return { ...opened, worker: startDeliveryWorker(opened.ctx.deps, { pollMs: 200 }) };
}

/** Closes what those opened (the worker first), for a file's afterAll (none of it is there when the beforeAll failed). */
export async function closeDeliveryContext({ ctx, receiver, worker }: { ctx?: TestContext; receiver?: Receiver; worker?: DeliveryWorker }): Promise<void> {
  await worker?.stop();
  await receiver?.close();
  await ctx?.close();
}

/**
 * Records integration-wide events (no property needed) for one integration through the normal
 * event log, which wakes delivery after the commit as for every writer.
 */
export async function recordEvents(
  ctx: TestContext,
  integrationId: number,
  count: number,
  type: keyof typeof EMPTY_PAYLOADS = 'availability.changed',
  data: (i: number) => object = (i) => ({ i }),
) {
  await unitOfWork(ctx.deps, async (trx) =>
    appendEvents(trx, {
      clock: ctx.deps.clock,
      propertyId: null,
      actorIntegrationId: null,
      targets: await selectAppendTargets(trx, null, integrationId),
      build: () => Array.from({ length: count }, (_, i) => ({ type, data: { ...EMPTY_PAYLOADS[type], ...data(i) } })),
    }),
  );
}

/**
 * The least payload of each kind that the OpenAPI document allows (replay answers are checked
 * against it); a test's own fields go beside it. property.changed and booking.changed carry a
 * whole property or booking: tests record those through the API.
 */
const EMPTY_PAYLOADS = {
  'availability.changed': { total_units: 0, units: [], dates: [] },
  'rates.changed': { currency: 'INR', gst_applicable: false, price_includes_gst: false, meal_plans: [], dates: [] },
  'restrictions.changed': { rules: { min_stay: 1, max_stay: 30, min_advance_days: 0, max_advance_days: 365 }, dates: [] },
  'inventory.changed': { units: [] },
} satisfies Partial<Record<EventDraft['type'], object>>;

export async function staffView(ctx: TestContext, integrationId: number) {
  const res = await ctx.staff('GET', `/integrations/${integrationId}`);
  if (res.statusCode !== 200) throw new Error(`staff view failed: ${res.body}`);
  return res.json().data;
}

export async function attemptsOf(ctx: TestContext, integrationId: number) {
  const res = await ctx.staff('GET', `/integrations/${integrationId}/deliveries?limit=200`);
  if (res.statusCode !== 200) throw new Error(`deliveries failed: ${res.body}`);
  return res.json().data as Array<{
    id: number;
    attempted_at: string;
    event: { id: string; type: string; sequence: number | null };
    attempt: number | null;
    success: boolean;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    response_body: string | null;
  }>;
}

/** Seconds between two +05:30 timestamps. */
export function secondsBetween(a: string, b: string): number {
  return (Date.parse(b) - Date.parse(a)) / 1000;
}

/** Polls until `check` returns true (database state settling after a delivery). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = 'the condition'): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * An integration's events with their delivery as the API shows it (a delivered event's row keeps
 * `pending`; the delivery cursor says it was delivered), in sequence order.
 */
export async function deliveryRows(db: Kysely<DB>, integrationId: number, status: 'pending' | 'delivered' | 'skipped' | null = null) {
  const { rows } = await eventDeliveryPage(db, integrationId, { afterSequence: 0, limit: 1_000_000, status });
  return rows;
}
