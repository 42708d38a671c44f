import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, firstOfMonth, horizonEnd, lastOfMonth } from '../../src/lib/time.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';
import { cover, eventsOf, insertProperty, today, type FixtureProperty } from './fixtures.js';

let ctx: TestContext;
let short: TestIntegration; // 30-day horizon
let long: TestIntegration; // default 365
let disabled: TestIntegration;
let property: FixtureProperty;
let day0: string;

beforeAll(async () => {
  ctx = await createTestContext();
  short = await ctx.createIntegration({ horizon_days: 30 });
  long = await ctx.createIntegration({ brandId: short.brandId });
  disabled = await ctx.createIntegration({ brandId: short.brandId });
  property = await insertProperty(ctx, { brandId: short.brandId, units: 2 });
  for (const i of [short, long, disabled]) await cover(ctx, i, property.id);
  await ctx.staff('PATCH', `/integrations/${disabled.id}`, { status: 'disabled' });
  day0 = today(ctx);
});
afterAll(() => ctx.close());

const runRoll = async () => {
  const res = await ctx.staff('POST', '/jobs/horizon-roll/run');
  expect(res.statusCode).toBe(200);
  return res.json().data as { job: string; result: { properties: number; events: number } };
};

/** Whole months after `afterNight`, through `end`; nights before `today` are past and never sent. */
function monthsBetween(afterNight: string, end: string, today: string) {
  const out = [];
  for (let m = addDays(afterNight, 1); m <= end; m = addDays(lastOfMonth(m), 1)) out.push({ from: m < today ? today : m, to: lastOfMonth(m) });
  return out;
}

describe('horizon roll', () => {
  it('sends nothing while no month has entered a horizon since coverage began', async () => {
    expect(await runRoll()).toEqual({ job: 'horizon-roll', result: { properties: 0, events: 0 } });
    for (const i of [short, long, disabled]) expect(await eventsOf(ctx, i.id)).toEqual([]);
  });

  it('sends each month entering the horizon, whole, as availability, rates and restrictions, once', async () => {
    await ctx.advanceClock(40 * 86400);
    const day40 = today(ctx);
    expect(day40).toBe(addDays(day0, 40));

    const first = await runRoll();
    const shortMonths = monthsBetween(horizonEnd(day0, 30), horizonEnd(day40, 30), day40);
    const longMonths = monthsBetween(horizonEnd(day0, 365), horizonEnd(day40, 365), day40);
    expect(shortMonths.length).toBeGreaterThanOrEqual(1);
    expect(longMonths.length).toBeGreaterThanOrEqual(1);

    const shortEvents = await eventsOf(ctx, short.id);
    expect(shortEvents.map((e) => [e.type, e.window])).toEqual([
      ...shortMonths.map((m) => ['availability.changed', m]),
      ...shortMonths.map((m) => ['rates.changed', m]),
      ...shortMonths.map((m) => ['restrictions.changed', m]),
    ]);
    for (const e of shortEvents) {
      expect([firstOfMonth(e.window!.from), day40]).toContain(e.window!.from);
      expect(e.origin).toBe('doorloom');
    }
    const longEvents = await eventsOf(ctx, long.id);
    expect(longEvents.map((e) => e.window)).toEqual([...longMonths, ...longMonths, ...longMonths]);
    expect(await eventsOf(ctx, disabled.id)).toEqual([]);
    expect(first.result).toEqual({ properties: 1, events: shortEvents.length + longEvents.length });

    // the events carry the same data as the snapshots (rates for a month beyond 92 days is split here)
    for (const e of shortEvents) {
      const kind = e.type.split('.')[0];
      const res = await ctx.api(short.apiKey, 'GET', `/properties/${property.id}/${kind}?from=${e.window!.from}&to=${e.window!.to}`);
      expect(res.json().data.data).toEqual(e.data);
    }

    // a second run the same day (or a later day in the same month) sends nothing
    expect((await runRoll()).result).toEqual({ properties: 0, events: 0 });
    expect(await eventsOf(ctx, short.id)).toHaveLength(shortEvents.length);
  });

  it('does not resend to a property covered after the month entered', async () => {
    const later = await insertProperty(ctx, { brandId: short.brandId, units: 1 });
    await cover(ctx, short, later.id);
    const before = (await eventsOf(ctx, short.id)).length;
    expect((await runRoll()).result.events).toBe(0);
    expect(await eventsOf(ctx, short.id)).toHaveLength(before);
  });

  it('concurrent runs send each month once', async () => {
    await ctx.advanceClock(35 * 86400);
    const shortBefore = (await eventsOf(ctx, short.id)).length;
    const longBefore = (await eventsOf(ctx, long.id)).length;
    const results = await Promise.all([runRoll(), runRoll(), runRoll()]);
    const sent = results.reduce((n, r) => n + r.result.events, 0);
    const addedShort = (await eventsOf(ctx, short.id)).slice(shortBefore);
    const addedLong = (await eventsOf(ctx, long.id)).slice(longBefore);
    expect(addedShort.length).toBeGreaterThan(0);
    for (const added of [addedShort, addedLong]) {
      const windows = added.filter((e) => e.type === 'availability.changed').map((e) => JSON.stringify([e.property.doorloom_id, e.window]));
      expect(new Set(windows).size).toBe(windows.length); // no month twice for a property
    }
    expect(sent).toBe(addedShort.length + addedLong.length);
    expect(results.filter((r) => r.result.events > 0).length).toBeGreaterThanOrEqual(1);
  });

  it('raising horizon_days lets the new months enter', async () => {
    const before = (await eventsOf(ctx, short.id)).length;
    const res = await ctx.staff('PATCH', `/integrations/${short.id}`, { horizon_days: 120 });
    expect(res.statusCode).toBe(200);
    await runRoll();
    const added = (await eventsOf(ctx, short.id)).slice(before);
    const now = today(ctx);
    const months = added.filter((e) => e.type === 'availability.changed').map((e) => e.window!);
    expect(months.length).toBeGreaterThan(0);
    expect(months[months.length - 1].to).toBe(horizonEnd(now, 120));
  });
});
