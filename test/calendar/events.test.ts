import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, firstOfMonth, horizonEnd, lastOfMonth, splitByMonth } from '../../src/lib/time.js';
import { calendarEventDrafts } from '../../src/modules/calendar/calendar.payloads.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { alias, cover, eventsOf, hold, insertProperty, today, type FixtureProperty } from './fixtures.js';

let ctx: TestContext;
let a: TestIntegration;
let b: TestIntegration;
let property: FixtureProperty;
let day0: string;

beforeAll(async () => {
  ctx = await createTestContext();
  a = await ctx.createIntegration();
  b = await ctx.createIntegration({ brandId: a.brandId, horizon_days: 30 });
  property = await insertProperty(ctx, { brandId: a.brandId, units: 2 });
  await cover(ctx, a, property.id, 'P-A');
  await cover(ctx, b, property.id, 'P-B');
  await alias(ctx, a, property.unitIds[0], 'A-U1');
  await alias(ctx, b, property.unitIds[0], 'B-U1');
  day0 = today(ctx);
});
afterAll(() => ctx.close());

async function newEvents(integration: TestIntegration, after: number) {
  return (await eventsOf(ctx, integration.id)).filter((e) => e.sequence > after);
}
async function lastSequence(integration: TestIntegration): Promise<number> {
  const events = await eventsOf(ctx, integration.id);
  return events.length ? events[events.length - 1].sequence : 0;
}
const snapshotData = async (integration: TestIntegration, kind: string, window: { from: string; to: string }) => {
  const res = await ctx.api(integration.apiKey, 'GET', `/properties/${property.id}/${kind}?from=${window.from}&to=${window.to}`);
  expect(res.statusCode).toBe(200);
  return res.json().data.data;
};

describe('host calendar edits emit events', () => {
  it('one event per calendar month touched, windowed to the nights, clamped to each horizon, equal to the snapshot', async () => {
    // from three days ago (clamped to today) to 45 days ahead: 2–3 months for a, fewer for b (30-day horizon)
    const from = addDays(day0, -3);
    const to = addDays(day0, 45);
    const seqA = await lastSequence(a);
    const seqB = await lastSequence(b);
    const res = await ctx.staff('PUT', `/properties/${property.id}/calendar`, { from, to, block_scope: 'ota_only' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ doorloom_id: property.id, window: { from, to } });

    const expectedA = splitByMonth(day0, to);
    const evA = await newEvents(a, seqA);
    expect(evA.map((e) => e.type)).toEqual(expectedA.map(() => 'availability.changed'));
    expect(evA.map((e) => e.window)).toEqual(expectedA);
    expect(evA.map((e) => e.sequence)).toEqual(expectedA.map((_, i) => seqA + 1 + i));
    expect(evA.every((e) => e.origin === 'doorloom')).toBe(true);
    expect(evA[0].property).toEqual({ doorloom_id: property.id, external_id: 'P-A' });

    const endB = horizonEnd(day0, 30);
    const expectedB = splitByMonth(day0, to < endB ? to : endB);
    const evB = await newEvents(b, seqB);
    expect(evB.map((e) => e.window)).toEqual(expectedB);
    expect(evB[0].property).toEqual({ doorloom_id: property.id, external_id: 'P-B' });

    for (const [integration, events] of [
      [a, evA],
      [b, evB],
    ] as const) {
      for (const event of events) {
        expect(event.data.dates.every((d: { block_scope: string }) => d.block_scope === 'ota_only')).toBe(true);
        expect(await snapshotData(integration, 'availability', event.window!)).toEqual(event.data);
      }
    }
    // each integration sees its own unit alias
    expect(evA[0].data.units[0].external_unit_id).toBe('A-U1');
    expect(evB[0].data.units[0].external_unit_id).toBe('B-U1');
  });

  it('rate overrides emit rates.changed; per-night restrictions emit restrictions.changed for those nights', async () => {
    const night = addDays(day0, 5);
    const seqA = await lastSequence(a);
    expect((await ctx.staff('PUT', `/properties/${property.id}/rates`, { from: night, to: night, base_price: 12345 })).statusCode).toBe(200);
    expect((await ctx.staff('PUT', `/properties/${property.id}/restrictions`, { from: night, to: night, stop_sell: true })).statusCode).toBe(200);
    const events = await newEvents(a, seqA);
    expect(events.map((e) => [e.type, e.window])).toEqual([
      ['rates.changed', { from: night, to: night }],
      ['restrictions.changed', { from: night, to: night }],
    ]);
    expect(events[0].data.dates[0]).toMatchObject({ base_price: 12345, source: 'override' });
    expect(events[1].data.dates[0]).toMatchObject({ stop_sell: true });
    expect(await snapshotData(a, 'rates', { from: night, to: night })).toEqual(events[0].data);
    expect(await snapshotData(a, 'restrictions', { from: night, to: night })).toEqual(events[1].data);
  });

  it('meal plans, tax and booking rules emit their type for the whole horizon, month by month', async () => {
    const months = splitByMonth(day0, horizonEnd(day0, 30));
    const seqB = await lastSequence(b);
    await ctx.staff('PUT', `/properties/${property.id}/meal-plans`, [{ code: 'CP', adult_price: 250, child_price: 100 }]);
    await ctx.staff('PUT', `/properties/${property.id}/tax`, { price_includes_gst: true });
    await ctx.staff('PUT', `/properties/${property.id}/restrictions`, { rules: { min_stay: 2 } });
    const events = await newEvents(b, seqB);
    expect(events.map((e) => [e.type, e.window])).toEqual([
      ...months.map((m) => ['rates.changed', m]),
      ...months.map((m) => ['rates.changed', m]),
      ...months.map((m) => ['restrictions.changed', m]),
    ]);
    expect(events[0].window!.from).toBe(day0);
    expect(events[months.length - 1].window!.to).toBe(lastOfMonth(events[months.length - 1].window!.to));
    const lastRates = events[2 * months.length - 1];
    expect(lastRates.data).toMatchObject({ price_includes_gst: true, meal_plans: [{ code: 'EP' }, { code: 'CP', adult_price: 250, child_price: 100 }] });
    expect(await snapshotData(b, 'rates', lastRates.window!)).toEqual(lastRates.data);
    const lastRestrictions = events[events.length - 1];
    expect(lastRestrictions.data.rules.min_stay).toBe(2);
    expect(await snapshotData(b, 'restrictions', lastRestrictions.window!)).toEqual(lastRestrictions.data);
  });

  it('emits nothing for nights outside every horizon', async () => {
    const seqB = await lastSequence(b);
    const far = addDays(day0, 400);
    expect((await ctx.staff('PUT', `/properties/${property.id}/calendar`, { from: far, to: far, units_cap: 1 })).statusCode).toBe(200);
    expect(await newEvents(b, seqB)).toEqual([]);
  });

  it('wakes delivery after commit for the integrations with a webhook URL', async () => {
    // no delivery worker runs in this file: nothing is sent to the URL
    await ctx.staff('PATCH', `/integrations/${a.id}`, { webhook: { url: 'http://127.0.0.1:9/hooks' } });
    const woken: number[][] = [];
    const listener = (ids: number[]) => woken.push(ids);
    ctx.deps.signals.on('events', listener);
    try {
      await ctx.staff('PUT', `/properties/${property.id}/calendar`, { from: day0, to: day0, units_cap: 2 });
    } finally {
      ctx.deps.signals.off('events', listener);
      await ctx.staff('PATCH', `/integrations/${a.id}`, { webhook: { url: null } });
    }
    expect(woken).toEqual([[a.id]]); // b records its events too, to be replayed, but has no URL to send them to
    expect((await newEvents(b, 0)).length).toBeGreaterThan(0);
  });
});

describe('host calendar edit validation', () => {
  const path = (kind: string, id: number | string = property.id) => `/properties/${id}/${kind}`;

  it('answers 404 for an unknown property', async () => {
    for (const kind of ['calendar', 'rates', 'restrictions', 'tax']) {
      const res = await ctx.staff('PUT', path(kind, 999999), {
        from: day0,
        to: day0,
        block_scope: null,
        base_price: 1,
        rules: { min_stay: 1 },
        gst_applicable: true,
      });
      expect(res.statusCode, kind).toBe(404);
    }
    expect((await ctx.staff('PUT', path('meal-plans', 'abc'), [])).statusCode).toBe(404);
  });

  it('refuses bad bodies with dotted keys', async () => {
    const cases: Array<[string, unknown, string[]]> = [
      ['calendar', { to: day0, block_scope: 'everywhere' }, ['from']],
      ['calendar', { from: day0, to: addDays(day0, -1), block_scope: 'everywhere' }, ['to']],
      ['calendar', { from: day0, to: addDays(day0, 731), block_scope: 'everywhere' }, ['to']],
      ['calendar', { from: day0, to: day0 }, ['block_scope']],
      ['calendar', { from: day0, to: day0, block_scope: 'sometimes' }, ['block_scope']],
      ['calendar', { from: day0, to: day0, units_cap: -1 }, ['units_cap']],
      ['calendar', { from: day0, to: day0, units_cap: '2' }, ['units_cap']],
      ['calendar', { from: day0, to: day0, block_scope: 'everywhere', inventory_ids: [property.unitIds[0], 999999] }, ['inventory_ids.1']],
      ['rates', { from: day0, to: day0 }, ['base_price']],
      ['rates', { from: day0, to: day0, base_price: -5 }, ['base_price']],
      ['rates', { from: day0, to: day0, base_price: 5, clear: true }, ['clear']],
      ['restrictions', {}, ['rules']],
      ['restrictions', { stop_sell: true }, ['from', 'to']],
      ['restrictions', { from: day0, to: day0, min_stay: 0 }, ['min_stay']],
      ['restrictions', { from: day0, to: day0, max_stay: 31 }, ['max_stay']],
      ['restrictions', { from: day0, to: day0, min_stay: 5, max_stay: 3 }, ['max_stay']],
      ['restrictions', { rules: { min_stay: 20, max_stay: 10 } }, ['rules.max_stay']],
      ['restrictions', { rules: { max_advance_days: 800 } }, ['rules.max_advance_days']],
      ['meal-plans', [{ code: 'XX', adult_price: 1, child_price: 1 }], ['0.code']],
      ['meal-plans', [{ code: 'CP', adult_price: 1 }], ['0.child_price']],
      [
        'meal-plans',
        [
          { code: 'CP', adult_price: 1, child_price: 1 },
          { code: 'CP', adult_price: 2, child_price: 2 },
        ],
        ['1.code'],
      ],
      ['meal-plans', [{ code: 'EP', adult_price: 100, child_price: 0 }], ['0.adult_price']],
      ['tax', {}, ['gst_applicable']],
      ['tax', { gst_applicable: 'yes' }, ['gst_applicable']],
    ];
    for (const [kind, body, keys] of cases) {
      const res = await ctx.staff('PUT', path(kind), body);
      expect(res.statusCode, `${kind} ${JSON.stringify(body)}`).toBe(422);
      expect(res.json()).toMatchObject(failure('VALIDATION_FAILED'));
      expect(Object.keys(res.json().errors).sort(), `${kind} ${JSON.stringify(body)}`).toEqual(keys);
    }
  });

  it('writes nothing and records no event when refused', async () => {
    const seqA = await lastSequence(a);
    await ctx.staff('PUT', path('calendar'), { from: day0, to: day0, block_scope: 'everywhere', inventory_ids: [999999] });
    expect(await newEvents(a, seqA)).toEqual([]);
    const data = await snapshotData(a, 'availability', { from: day0, to: day0 });
    expect(data.dates[0].block_scope).not.toBe('everywhere');
  });

  it('is for staff only', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: `/api/staff/v1/properties/${property.id}/calendar`,
      headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ from: day0, to: day0, units_cap: 1 }),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject(failure('NOT_STAFF_TOKEN'));
  });
});

describe('calendarEventDrafts (used by property create and sync)', () => {
  it('returns type-major drafts whose data equal the snapshots', async () => {
    const p = await insertProperty(ctx, { brandId: a.brandId, units: 2 });
    await cover(ctx, a, p.id, 'DRAFTS');
    await hold(ctx, p.unitIds[1], addDays(day0, 2), addDays(day0, 4));
    const windows = [
      { from: day0, to: lastOfMonth(day0) },
      { from: firstOfMonth(addDays(lastOfMonth(day0), 1)), to: lastOfMonth(addDays(lastOfMonth(day0), 1)) },
    ];
    const drafts = await ctx.deps.db.transaction().execute((trx) =>
      calendarEventDrafts(
        trx,
        p.id,
        ['restrictions', 'availability', 'rates'],
        windows,
        {
          integrationId: a.id,
          slug: a.slug,
          propertyExternalId: 'DRAFTS',
          origin: 'partner',
          horizonDays: 365,
        },
        ctx.deps.config,
      ),
    );
    expect(drafts.map((d) => [d.type, d.window])).toEqual([
      ['availability.changed', windows[0]],
      ['availability.changed', windows[1]],
      ['rates.changed', windows[0]],
      ['rates.changed', windows[1]],
      ['restrictions.changed', windows[0]],
      ['restrictions.changed', windows[1]],
    ]);
    for (const draft of drafts) {
      const kind = draft.type.split('.')[0];
      const res = await ctx.api(a.apiKey, 'GET', `/properties/${p.id}/${kind}?from=${draft.window!.from}&to=${draft.window!.to}`);
      expect(res.json().data.data).toEqual(draft.data);
    }
    expect(await ctx.deps.db.transaction().execute((trx) => calendarEventDrafts(trx, p.id, ['rates'], [], {} as never))).toEqual([]);
  });
});
