import { randomBytes } from 'node:crypto';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import type { TestContext } from './context.js';

/** Fixtures every area's tests share: fresh keys, the service's today, the recorded events. */

/** A fresh Idempotency-Key. */
export const newKey = (prefix = 'key') => `${prefix}-${randomBytes(8).toString('hex')}`;

/** Today in Asia/Kolkata on the service clock (the test clock may have moved). */
export function today(ctx: TestContext): string {
  return kolkataDate(ctx.deps.clock.now());
}

/** The date `days` after today (Asia/Kolkata, service clock). */
export function day(ctx: TestContext, days: number): string {
  return addDays(today(ctx), days);
}

/** An event as recorded for an integration: the envelope its webhook and GET /events carry. */
export interface RecordedEvent {
  type: string;
  sequence: number;
  origin: string;
  window: { from: string; to: string } | null;
  property: { doorloom_id: number; external_id: string | null };
  data: any;
}

/** The events recorded for an integration after a sequence, oldest first, as envelopes. */
export async function eventsOf(ctx: TestContext, integrationId: number, afterSequence = 0): Promise<RecordedEvent[]> {
  const rows = await ctx.deps.db
    .selectFrom('events')
    .select(['sequence', 'body'])
    .where('integration_id', '=', integrationId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .execute();
  return rows.map((r) => JSON.parse(r.body) as RecordedEvent);
}

/** The integration's last event sequence. */
export async function lastSequence(ctx: TestContext, integrationId: number): Promise<number> {
  const row = await ctx.deps.db.selectFrom('integrations').select('last_sequence').where('id', '=', integrationId).executeTakeFirstOrThrow();
  return row.last_sequence;
}
