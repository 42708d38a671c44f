import { selectAppendTargets } from '../../src/modules/properties/properties.sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { appendEvents, unitOfWork, type EventDraft } from '../../src/modules/events/events.log.js';
import { createTestContext, type TestContext, type TestIntegration } from '../helpers/context.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function makeProperty(brandId: number): Promise<number> {
  const now = ctx.deps.clock.now();
  const row = await ctx.deps.db
    .insertInto('properties')
    .values({ brand_id: brandId, name: 'Villa', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function cover(integration: TestIntegration, propertyId: number, externalId: string | null = null) {
  await ctx.deps.db
    .insertInto('coverage')
    .values({ integration_id: integration.id, property_id: propertyId, external_id: externalId, created_at: ctx.deps.clock.now() })
    .execute();
}

function record(propertyId: number | null, actor: number | null, drafts: EventDraft[], only?: number) {
  return unitOfWork(ctx.deps, async (trx) =>
    appendEvents(trx, {
      clock: ctx.deps.clock,
      propertyId,
      targets: await selectAppendTargets(trx, propertyId, only),
      actorIntegrationId: actor,
      build: () => drafts,
    }),
  );
}

const eventsOf = (integrationId: number) =>
  ctx.deps.db.selectFrom('events').selectAll().where('integration_id', '=', integrationId).orderBy('sequence').execute();

describe('event log', () => {
  it('records the envelope for every covering integration with its own sequence, mapping and origin', async () => {
    const a = await ctx.createIntegration({ webhook: { url: 'https://a.example.com/h', event_types: ['property.changed'] } });
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const outsider = await ctx.createIntegration({ brandId: a.brandId });
    const propertyId = await makeProperty(a.brandId);
    await cover(a, propertyId, 'A-1');
    await cover(b, propertyId);

    await record(propertyId, a.id, [
      { type: 'property.changed', data: { n: 1 } },
      { type: 'rates.changed', window: { from: '2026-12-01', to: '2026-12-31' }, data: { n: 2 } },
    ]);

    const [ea1, ea2] = await eventsOf(a.id);
    const eb = await eventsOf(b.id);
    expect(await eventsOf(outsider.id)).toEqual([]);
    expect(eb.map((e) => e.sequence)).toEqual([1, 2]);
    const envelope = JSON.parse(ea1.body);
    expect(envelope).toEqual({
      id: ea1.id,
      type: 'property.changed',
      sequence: 1,
      origin: 'partner',
      version: '2026-09',
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/),
      integration: { id: a.id, slug: a.slug },
      property: { doorloom_id: propertyId, external_id: 'A-1' },
      window: null,
      data: { n: 1 },
    });
    expect(ea1.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(JSON.parse(ea2.body)).toMatchObject({ sequence: 2, window: { from: '2026-12-01', to: '2026-12-31' } });
    // a's subscription holds only property.changed: rates.changed is recorded but skipped
    expect([ea1.delivery_status, ea2.delivery_status]).toEqual(['pending', 'skipped']);
    expect(JSON.parse(eb[0].body)).toMatchObject({ origin: 'doorloom', property: { doorloom_id: propertyId, external_id: null } });
    expect(new Set([ea1.id, ea2.id, eb[0].id, eb[1].id]).size).toBe(4);

    const me = (await ctx.api(a.apiKey, 'GET', '/me')).json().data;
    expect(me.webhook).toMatchObject({ last_sequence: 2, undelivered_events: 1 });
    expect(me.covered_properties).toBe(1);
  });

  it('records nothing for a disabled integration, and nothing when the write rolls back', async () => {
    const a = await ctx.createIntegration();
    const propertyId = await makeProperty(a.brandId);
    await cover(a, propertyId);
    await ctx.staff('PATCH', `/integrations/${a.id}`, { status: 'disabled' });
    await record(propertyId, null, [{ type: 'property.changed', data: {} }]);
    expect(await eventsOf(a.id)).toEqual([]);

    await ctx.staff('PATCH', `/integrations/${a.id}`, { status: 'active' });
    await expect(
      unitOfWork(ctx.deps, async (trx) => {
        await appendEvents(trx, {
          clock: ctx.deps.clock,
          propertyId,
          targets: await selectAppendTargets(trx, propertyId),
          actorIntegrationId: null,
          build: () => [{ type: 'property.changed', data: {} }],
        });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await eventsOf(a.id)).toEqual([]);
    await record(propertyId, null, [{ type: 'property.changed', data: {} }]);
    expect((await eventsOf(a.id)).map((e) => e.sequence)).toEqual([1]); // no gap left by the rollback
  });

  it('records for the named integration only when asked (sync)', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const propertyId = await makeProperty(a.brandId);
    await cover(a, propertyId);
    await cover(b, propertyId);
    await record(propertyId, b.id, [{ type: 'availability.changed', data: {} }], b.id);
    expect(await eventsOf(a.id)).toEqual([]);
    expect((await eventsOf(b.id)).map((e) => e.origin)).toEqual(['partner']);
  });

  it('8 concurrent writers × 50 events yield sequences 1…400 exactly', async () => {
    const a = await ctx.createIntegration();
    const b = await ctx.createIntegration({ brandId: a.brandId });
    const properties = await Promise.all(Array.from({ length: 8 }, () => makeProperty(a.brandId)));
    for (const p of properties) {
      await cover(a, p);
      await cover(b, p);
    }
    await Promise.all(
      properties.map(async (p) => {
        for (let i = 0; i < 50; i++) await record(p, null, [{ type: 'availability.changed', data: { i } }]);
      }),
    );
    for (const integration of [a, b]) {
      const sequences = (await eventsOf(integration.id)).map((e) => e.sequence);
      expect(sequences).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    }
  });

  describe('appends in a unit of work', () => {
    const recordLast = (propertyId: number, drafts: EventDraft[], before?: (trx: Kysely<DB>) => Promise<void>) =>
      unitOfWork(ctx.deps, async (trx) => {
        await before?.(trx);
        return appendEvents(trx, {
          clock: ctx.deps.clock,
          propertyId,
          targets: await selectAppendTargets(trx, propertyId),
          actorIntegrationId: null,
          build: () => drafts,
        });
      });

    it('writes the events in the transaction, and wakes delivery once it has committed', async () => {
      const a = await ctx.createIntegration({ webhook: { url: 'https://a.example.com/h', event_types: ['booking.changed'] } });
      const b = await ctx.createIntegration({ brandId: a.brandId });
      const propertyId = await makeProperty(a.brandId);
      await cover(a, propertyId);
      await cover(b, propertyId);
      const woken: number[][] = [];
      const onEvents = (ids: number[]) => woken.push(ids);
      ctx.deps.signals.on('events', onEvents);
      try {
        const result = await recordLast(propertyId, [
          { type: 'booking.changed', data: { n: 1 } },
          { type: 'availability.changed', data: { n: 2 } },
        ]);
        expect(Object.fromEntries(result.recorded)).toEqual({ [a.id]: 2, [b.id]: 2 });
        expect(result.deliverable).toEqual([a.id]);
        expect(Object.fromEntries(result.types)).toEqual({ 'booking.changed': 2, 'availability.changed': 2 });
        expect(woken).toEqual([[a.id]]);
      } finally {
        ctx.deps.signals.off('events', onEvents);
      }
      expect((await eventsOf(a.id)).map((e) => [e.sequence, e.type, e.delivery_status])).toEqual([
        [1, 'booking.changed', 'pending'],
        [2, 'availability.changed', 'skipped'],
      ]);
      expect((await eventsOf(b.id)).map((e) => e.sequence)).toEqual([1, 2]);
    });

    it('records nothing, and wakes nothing, for an integration disabled before its events are written', async () => {
      const a = await ctx.createIntegration({ webhook: { url: 'https://a.example.com/h' } });
      const propertyId = await makeProperty(a.brandId);
      await cover(a, propertyId);
      const woken: number[][] = [];
      const onEvents = (ids: number[]) => woken.push(ids);
      ctx.deps.signals.on('events', onEvents);
      try {
        // the targets are read before the append; the integration is disabled before the write
        const result = await unitOfWork(ctx.deps, async (trx) => {
          const appended = await appendEvents(trx, {
            clock: ctx.deps.clock,
            propertyId,
            targets: await selectAppendTargets(trx, propertyId),
            actorIntegrationId: null,
            build: async () => {
              await trx.updateTable('integrations').set({ status: 'disabled' }).where('id', '=', a.id).execute();
              return [{ type: 'property.changed', data: {} }];
            },
          });
          return appended;
        });
        expect(result.recorded.size).toBe(0);
        expect(result.deliverable).toEqual([]);
        expect(woken).toEqual([]);
      } finally {
        ctx.deps.signals.off('events', onEvents);
      }
      expect(await eventsOf(a.id)).toEqual([]);
    });

    it('an error in an event write rolls the whole unit back', async () => {
      const a = await ctx.createIntegration();
      const propertyId = await makeProperty(a.brandId);
      await cover(a, propertyId);
      await expect(
        // a row in the way of the first sequence, written earlier in the same unit
        recordLast(propertyId, [{ type: 'property.changed', data: {} }], async (trx) => {
          await trx
            .insertInto('events')
            .values({
              integration_id: a.id,
              sequence: 1,
              id: 'x',
              type: 'property.changed',
              origin: 'doorloom',
              body: '{}',
              created_at: ctx.deps.clock.now(),
              delivery_status: 'skipped',
            } as never)
            .execute();
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await eventsOf(a.id)).toEqual([]);
      expect((await ctx.deps.db.selectFrom('integrations').select('last_sequence').where('id', '=', a.id).executeTakeFirstOrThrow()).last_sequence).toBe(0);
    });

    it('8 concurrent writers × 50 events yield sequences 1…400 exactly', async () => {
      const a = await ctx.createIntegration();
      const properties = await Promise.all(Array.from({ length: 8 }, () => makeProperty(a.brandId)));
      for (const p of properties) await cover(a, p);
      await Promise.all(
        properties.map(async (p) => {
          for (let i = 0; i < 50; i++) await recordLast(p, [{ type: 'availability.changed', data: { i } }]);
        }),
      );
      expect((await eventsOf(a.id)).map((e) => e.sequence)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    });
  });
});
