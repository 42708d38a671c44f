import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, horizonEnd } from '../../src/lib/time.js';
import { startSyncRunner } from '../../src/modules/sync/sync.runner.js';
import { cover, insertProperty, today } from '../calendar/fixtures.js';
import { bookingBody, createVilla, newKey, postBooking, type Villa } from '../bookings/fixtures.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { eventually } from '../webhooks/helpers.js';

/**
 * The event-payload invariant (docs/decisions.md, "Event ordering"): for a property P, a type T and
 * a night N, no change to (P, T, N) committed after an event's payload was read may hold a lower
 * sequence than that event. A partner that applies events in sequence order then ends with the
 * state the snapshot shows.
 *
 * Each test runs a producer (the sync job, the horizon roll) while writers change one night per
 * property in parallel streams, then replays the log through GET /events as a partner would and
 * compares, per property, the last event covering the night with the snapshot. On PostgreSQL the
 * transactions really overlap; PGlite serialises them, where the same checks must hold.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ RATE_LIMITS: 'off' });
});
afterAll(() => ctx.close());

const PROPERTIES = 20;
const STREAMS = 4;
const HORIZON = 90;

interface Envelope {
  sequence: number;
  type: string;
  property: { doorloom_id: number } | null;
  window: { from: string; to: string } | null;
  data: { dates?: Array<{ date: string } & Record<string, unknown>> };
}

/** The integration's whole log through GET /events, as a partner replays it. */
async function replay(integration: TestIntegration): Promise<Envelope[]> {
  const out: Envelope[] = [];
  let after = 0;
  for (;;) {
    const res = await ctx.api(integration.apiKey, 'GET', `/events?after_sequence=${after}&limit=200`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    out.push(...page.data.map((row: { event: Envelope }) => row.event));
    after = page.cursor.next_after_sequence;
    if (!page.cursor.has_more) return out;
  }
}

/** The night's entry in the last event of `type` about `propertyId` whose window holds `night`. */
function lastCovering(events: Envelope[], propertyId: number, type: string, night: string) {
  let last: Envelope | undefined;
  for (const e of events) {
    if (e.type === type && e.property?.doorloom_id === propertyId && e.window && e.window.from <= night && night <= e.window.to) {
      if (!last || e.sequence > last.sequence) last = e;
    }
  }
  return last?.data.dates?.find((d) => d.date === night);
}

/**
 * Producer events (month windows) whose value for the night differs from the last writer event
 * (windowed to the night alone) with a lower sequence: a payload read before a write that got the
 * lower sequence.
 */
function olderThanSequence(events: Envelope[], propertyId: number, type: string, night: string, field: string): string[] {
  const out: string[] = [];
  let written: { sequence: number; value: unknown } | null = null;
  for (const e of [...events].sort((a, b) => a.sequence - b.sequence)) {
    if (e.type !== type || e.property?.doorloom_id !== propertyId || !e.window || e.window.from > night || night > e.window.to) continue;
    const value = e.data.dates?.find((d) => d.date === night)?.[field];
    if (e.window.from === night && e.window.to === night) written = { sequence: e.sequence, value };
    else if (written && value !== written.value) {
      out.push(
        `property ${propertyId}: event ${e.sequence} carries ${String(value)}, but event ${written.sequence} (a write before it) set ${String(written.value)}`,
      );
    }
  }
  return out;
}

async function snapshotNight(integration: TestIntegration, propertyId: number, kind: 'availability' | 'rates' | 'restrictions', night: string) {
  const res = await ctx.api(integration.apiKey, 'GET', `/properties/${propertyId}/${kind}?from=${night}&to=${night}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.data.dates[0];
}

/**
 * Runs `streams` writer loops (each over its share of the properties) until `producer` settles,
 * then waits for the writers. Returns how many writes were made.
 */
async function whileWriting(propertyIds: number[], write: (propertyId: number, n: number) => Promise<void>, producer: () => Promise<void>): Promise<number> {
  // A first write on every property before the producer starts: every producer event then has a
  // writer event before it to be compared with.
  for (const id of propertyIds) await write(id, 0);
  let done = false;
  let writes = 0;
  const streams = Array.from({ length: STREAMS }, async (_, k) => {
    const mine = propertyIds.filter((_, i) => i % STREAMS === k);
    for (let n = 1; !done; n++) {
      for (const id of mine) {
        await write(id, n);
        writes += 1;
      }
    }
  });
  try {
    await producer();
  } finally {
    done = true;
    await Promise.all(streams);
  }
  return writes;
}

async function coveredProperties(count: number, integrations: TestIntegration[]): Promise<number[]> {
  const ids: number[] = [];
  for (let k = 0; k < count; k++) {
    const p = await insertProperty(ctx, { brandId: integrations[0].brandId, units: 2 });
    for (const i of integrations) await cover(ctx, i, p.id, `INV-${i.id}-${k}`);
    ids.push(p.id);
  }
  return ids;
}

/** POST /sync for each integration and runs the sync job to the end. */
async function syncAll(integrations: TestIntegration[]): Promise<void> {
  for (const i of integrations) {
    const res = await ctx.api(i.apiKey, 'POST', '/sync', {});
    expect(res.statusCode, res.body).toBe(202);
  }
  const runner = startSyncRunner(ctx.deps, { pollMs: 20 });
  try {
    const ids = integrations.map((i) => i.id);
    await eventually(
      async () =>
        (await ctx.deps.db.selectFrom('sync_jobs').select('id').where('integration_id', 'in', ids).where('finished_at', 'is', null).execute()).length === 0,
      60_000,
      'the sync jobs',
    );
  } finally {
    await runner.stop();
  }
}

async function expectConverged(
  integrations: TestIntegration[],
  propertyIds: number[],
  kind: 'availability' | 'rates' | 'restrictions',
  night: string,
  field: string,
): Promise<void> {
  for (const integration of integrations) {
    const events = await replay(integration);
    const stale: string[] = [];
    const older: string[] = [];
    for (const id of propertyIds) {
      const snapshot = await snapshotNight(integration, id, kind, night);
      const mirrored = lastCovering(events, id, `${kind}.changed`, night);
      if (mirrored?.[field] !== snapshot[field]) stale.push(`property ${id}: events say ${String(mirrored?.[field])}, snapshot ${String(snapshot[field])}`);
      older.push(...olderThanSequence(events, id, `${kind}.changed`, night, field));
    }
    // The partner mirror's end state (what the partner is left with) …
    expect(stale, `integration ${integration.id}: the last ${kind}.changed event of ${night} disagrees with the snapshot`).toEqual([]);
    // … and every producer event on the way: a later write overwrites a stale one before the end,
    // so this catches each interleaving, not only the last.
    expect(older, `integration ${integration.id}: ${kind}.changed events carrying a state older than their sequence`).toEqual([]);
  }
}

describe('event payloads are never older than their sequence', () => {
  it('sync job against staff rate overrides on one night per property', async () => {
    const first = await ctx.createIntegration({ horizon_days: HORIZON });
    const integrations = [first, await ctx.createIntegration({ brandId: first.brandId, horizon_days: HORIZON })];
    const propertyIds = await coveredProperties(PROPERTIES, integrations);
    const night = addDays(today(ctx), 5);
    const writes = await whileWriting(
      propertyIds,
      async (id, n) => {
        const res = await ctx.staff('PUT', `/properties/${id}/rates`, { from: night, to: night, base_price: 1000 + ((id * 7 + n * 13) % 9000) });
        expect(res.statusCode, res.body).toBe(200);
      },
      () => syncAll(integrations),
    );
    expect(writes).toBeGreaterThan(0);
    await expectConverged(integrations, propertyIds, 'rates', night, 'base_price');
  });

  it('sync job against staff restrictions on one night per property', async () => {
    const first = await ctx.createIntegration({ horizon_days: HORIZON });
    const integrations = [first, await ctx.createIntegration({ brandId: first.brandId, horizon_days: HORIZON })];
    const propertyIds = await coveredProperties(PROPERTIES, integrations);
    const night = addDays(today(ctx), 6);
    await whileWriting(
      propertyIds,
      async (id, n) => {
        const res = await ctx.staff('PUT', `/properties/${id}/restrictions`, { from: night, to: night, min_stay: 1 + ((id + n) % 7) });
        expect(res.statusCode, res.body).toBe(200);
      },
      () => syncAll(integrations),
    );
    await expectConverged(integrations, propertyIds, 'restrictions', night, 'min_stay');
  });

  it('sync job against bookings made and cancelled on one night per property', async () => {
    // The whole default horizon: a longer regeneration per property widens the window the defect needs.
    const integration = await ctx.createIntegration({ horizon_days: 365 });
    const villas = new Map<number, Villa>();
    for (let k = 0; k < PROPERTIES; k++) {
      const villa = await createVilla(ctx, integration, 3);
      villas.set(villa.id, villa);
    }
    const propertyIds = [...villas.keys()];
    const night = addDays(today(ctx), 7);
    // Writes alternate on each property: book one unit for the night, then cancel that booking.
    const open = new Map<number, number>();
    await whileWriting(
      propertyIds,
      async (id) => {
        const booked = open.get(id);
        if (booked === undefined) {
          const body = bookingBody(ctx, villas.get(id)!, { units: [{ adults: 1 }], check_in: night, check_out: addDays(night, 1) });
          const res = await postBooking(ctx, integration, body);
          expect(res.statusCode, res.body).toBe(201);
          open.set(id, res.json().data.id);
        } else {
          const res = await ctx.api(integration.apiKey, 'POST', `/bookings/${booked}/cancel`, {}, { 'idempotency-key': newKey() });
          expect(res.statusCode, res.body).toBe(200);
          open.delete(id);
        }
      },
      () => syncAll([integration]),
    );
    await expectConverged([integration], propertyIds, 'availability', night, 'available_units');
  });

  it('horizon roll against staff rate overrides on a night of the month entering the horizon', async () => {
    const first = await ctx.createIntegration({ horizon_days: HORIZON });
    const integrations = [first, await ctx.createIntegration({ brandId: first.brandId, horizon_days: HORIZON })];
    const propertyIds = await coveredProperties(PROPERTIES, integrations);
    const day0 = today(ctx);
    await ctx.advanceClock(40 * 86400);
    // The last night of the new horizon lies in a month that entered it since coverage began.
    const night = horizonEnd(today(ctx), 30);
    expect(night > horizonEnd(day0, 30)).toBe(true);
    let rolled = { properties: 0, events: 0 };
    await whileWriting(
      propertyIds,
      async (id, n) => {
        const res = await ctx.staff('PUT', `/properties/${id}/rates`, { from: night, to: night, base_price: 2000 + ((id * 11 + n * 17) % 8000) });
        expect(res.statusCode, res.body).toBe(200);
      },
      async () => {
        const res = await ctx.staff('POST', '/jobs/horizon-roll/run');
        expect(res.statusCode, res.body).toBe(200);
        rolled = res.json().data.result;
      },
    );
    expect(rolled.properties).toBeGreaterThanOrEqual(PROPERTIES);
    await expectConverged(integrations, propertyIds, 'rates', night, 'base_price');
  });
});
