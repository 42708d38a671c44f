import { Signals } from '../../src/signals.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { API_PREFIX, buildApp } from '../../src/app.js';
import { sql } from 'kysely';
import { SnapshotCache } from '../../src/modules/calendar/calendar.snapshot-cache.js';
import { keepSnapshotsFresh } from '../../src/modules/calendar/calendar.snapshot-refresh.js';
import { createRuntimeState } from '../../src/runtime.js';
import { createTestContext, sessionUrl, type TestContext, type TestIntegration } from '../helpers/context.js';
import { startProcess } from '../../src/background.js';
import { bookingBody, createVilla, day, newKey, type Villa } from '../bookings/fixtures.js';

// A cached availability snapshot is served only while the property's calendar version stands.
// Each case below plants a marker payload in the cache at the current version, checks that the
// marker is what a read then serves (so the cache is really in use), makes one kind of write, and
// checks that the next read is no longer the marker but what an empty cache would build.

let ctx: TestContext;
let integ: TestIntegration;
let villa: Villa;
let from: string;
let to: string;
let other: FastifyInstance;

// A payload no build makes (424242 units), still of the snapshot's documented shape.
const PLANTED = { total_units: 424242, units: [], dates: [] };
const MARKER = JSON.stringify(PLANTED);

beforeAll(async () => {
  ctx = await createTestContext();
  integ = await ctx.createIntegration();
  villa = await createVilla(ctx, integ, 3);
  from = day(ctx, 5);
  to = day(ctx, 40);
  // Another process on the same database: the same deps, caches and signals of its own.
  other = await buildApp({ ...ctx.deps, signals: new Signals(), state: createRuntimeState(ctx.database, ctx.deps.log) });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await ctx.close();
});

const path = (ref: string) => `/properties/${encodeURIComponent(ref)}/availability?from=${from}&to=${to}`;
const read = async (ref = villa.externalId) => {
  const res = await ctx.api(integ.apiKey, 'GET', path(ref));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const keyOf = (ref: string) => SnapshotCache.key(integ.id, ref, from, to);

/** Reads once (filling the cache), swaps the entry's payload for the marker and checks it is served. */
async function plantMarker(ref = villa.externalId): Promise<void> {
  await read(ref);
  const entry = ctx.deps.state.snapshots.get(keyOf(ref));
  expect(entry, 'the read left an entry').toBeDefined();
  ctx.deps.state.snapshots.set(keyOf(ref), { ...entry!, json: MARKER });
  expect((await read(ref)).data).toEqual(PLANTED);
}

/** The snapshot as an empty cache builds it. */
async function uncached(ref = villa.externalId) {
  ctx.deps.state.snapshots.delete(keyOf(ref));
  return read(ref);
}

async function expectFresh(ref = villa.externalId) {
  const served = await read(ref);
  expect(served.data).not.toEqual(PLANTED);
  expect(served).toEqual(await uncached(ref));
  return served;
}

const writeHeaders = () => ({ 'idempotency-key': newKey() });

/** A booking of one unit made through the other process. */
const bookThroughOther = (unitId: number, checkIn: string, checkOut: string) =>
  other.inject({
    method: 'POST',
    url: `${API_PREFIX}/bookings`,
    headers: { authorization: `Bearer ${integ.apiKey}`, 'content-type': 'application/json', ...writeHeaders() },
    payload: JSON.stringify(bookingBody(ctx, villa, { units: [{ inventory_id: unitId, adults: 2 }], check_in: checkIn, check_out: checkOut })),
  });

describe('availability snapshot cache', () => {
  it('serves a snapshot again while nothing changed, with the current watermark', async () => {
    const first = await read();
    const second = await read();
    expect(second).toEqual(first);
    // An event of another property moves the watermark; the cached payload is still current.
    const elsewhere = await createVilla(ctx, integ, 1);
    const third = await read();
    expect(third.sequence).toBeGreaterThan(first.sequence);
    expect(third.data).toEqual(first.data);
    expect(elsewhere.id).not.toBe(villa.id);
  });

  it('a booking create, a change of dates and a cancel each move the version', async () => {
    await plantMarker();
    const created = await ctx.api(
      integ.apiKey,
      'POST',
      '/bookings',
      bookingBody(ctx, villa, { check_in: day(ctx, 10), check_out: day(ctx, 12) }),
      writeHeaders(),
    );
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id;
    let served = await expectFresh();
    expect(served.data.units[0].unavailable).toEqual([day(ctx, 10), day(ctx, 11)]);

    await plantMarker();
    const moved = await ctx.api(integ.apiKey, 'PATCH', `/bookings/${id}`, { check_in: day(ctx, 20), check_out: day(ctx, 21) }, writeHeaders());
    expect(moved.statusCode, moved.body).toBe(200);
    served = await expectFresh();
    expect(served.data.units[0].unavailable).toEqual([day(ctx, 20)]);

    await plantMarker();
    const cancelled = await ctx.api(integ.apiKey, 'POST', `/bookings/${id}/cancel`, { reason: 'guest cancelled' }, writeHeaders());
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    served = await expectFresh();
    expect(served.data.units[0].unavailable).toEqual([]);
  });

  it('a host calendar edit moves the version', async () => {
    await plantMarker();
    const res = await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 30), to: day(ctx, 31), units_cap: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const served = await expectFresh();
    expect(served.data.dates.find((d: { date: string }) => d.date === day(ctx, 30)).units_cap).toBe(1);
  });

  it('a partner unit change (name, alias, off sale) moves the version', async () => {
    await plantMarker();
    const res = await ctx.api(
      integ.apiKey,
      'PUT',
      `/properties/${encodeURIComponent(villa.externalId)}`,
      {
        units: [
          { inventory_id: villa.unitIds[1], name: 'Renamed', external_id: 'NEW-ALIAS' },
          { inventory_id: villa.unitIds[2], is_active: false },
        ],
      },
      writeHeaders(),
    );
    expect(res.statusCode, res.body).toBe(200);
    const served = await expectFresh();
    expect(served.data.total_units).toBe(2);
    expect(served.data.units[1]).toMatchObject({ inventory_id: villa.unitIds[1], name: 'Renamed', external_unit_id: 'NEW-ALIAS' });
  });

  it('removing coverage drops the aliases from what the integration is served when it covers the property again', async () => {
    const ref = String(villa.id);
    await plantMarker(ref);
    expect((await ctx.staff('DELETE', `/integrations/${integ.id}/coverage/${villa.id}`)).statusCode).toBe(200);
    expect((await ctx.api(integ.apiKey, 'GET', path(ref))).statusCode).toBe(404);
    const res = await ctx.staff('PUT', `/integrations/${integ.id}/coverage/${villa.id}`, { external_id: villa.externalId });
    expect([200, 201]).toContain(res.statusCode);
    const served = await expectFresh(ref);
    expect(served.data.units.map((u: { external_unit_id: string | null }) => u.external_unit_id)).toEqual([null, null]);
  });

  it('a rebuild reads again only the holds of units whose hold version moved', async () => {
    // unit 2 holds a night, so it has a hold version; the next read keeps its holds with it
    const held = await ctx.api(
      integ.apiKey,
      'POST',
      '/bookings',
      bookingBody(ctx, villa, { units: [{ inventory_id: villa.unitIds[1], adults: 2 }], check_in: day(ctx, 25), check_out: day(ctx, 26) }),
      writeHeaders(),
    );
    expect(held.statusCode, held.body).toBe(201);
    await read();
    const entry = ctx.deps.state.snapshots.get(keyOf(villa.externalId))!;
    const kept = entry.holds!.get(villa.unitIds[1])!;
    expect(kept.version).not.toBeNull();
    // a planted night (the window's first) at the same version: served only if those holds are reused
    ctx.deps.state.snapshots.set(keyOf(villa.externalId), {
      ...entry,
      holds: new Map(entry.holds).set(villa.unitIds[1], { ...kept, nights: [0, ...(kept.nights ?? [])] }),
    });
    const unavailable = (data: { units: Array<{ inventory_id: number; unavailable: string[] }> }, unitId: number) =>
      data.units.find((u) => u.inventory_id === unitId)!.unavailable;

    // a host edit moves the property's version, not the units' hold versions
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 33), to: day(ctx, 33), units_cap: 2 })).statusCode).toBe(200);
    let served = (await read()).data;
    expect(unavailable(served, villa.unitIds[1])).toContain(from);
    expect(served.dates.find((d: { date: string }) => d.date === day(ctx, 33)).units_cap).toBe(2);

    // a booking of unit 1 (through another process) is read again; unit 2's kept holds still stand
    const other1 = await bookThroughOther(villa.unitIds[0], day(ctx, 27), day(ctx, 28));
    expect(other1.statusCode, other1.body).toBe(201);
    served = (await read()).data;
    expect(unavailable(served, villa.unitIds[0])).toContain(day(ctx, 27));
    expect(unavailable(served, villa.unitIds[1])).toContain(from);

    // cancelling unit 2's booking moves its hold version: its holds are read again, the planted night goes
    expect((await ctx.api(integ.apiKey, 'POST', `/bookings/${held.json().data.id}/cancel`, { reason: 'guest cancelled' }, writeHeaders())).statusCode).toBe(
      200,
    );
    await expectFresh();
    expect(unavailable((await read()).data, villa.unitIds[1])).not.toContain(from);
    expect((await ctx.api(integ.apiKey, 'POST', `/bookings/${other1.json().data.id}/cancel`, { reason: 'guest cancelled' }, writeHeaders())).statusCode).toBe(
      200,
    );
  });

  it('a write made by another process moves the version this process checks', async () => {
    await plantMarker();
    const res = await bookThroughOther(villa.unitIds[0], day(ctx, 15), day(ctx, 16));
    expect(res.statusCode, res.body).toBe(201);
    // this process heard nothing: no rebuild here, the marker waits for the next read's check
    await new Promise((resolve) => setImmediate(resolve));
    expect(ctx.deps.state.snapshots.rebuilding(keyOf(villa.externalId))).toBeUndefined();
    expect(ctx.deps.state.snapshots.get(keyOf(villa.externalId))?.json).toBe(MARKER);
    const served = await expectFresh();
    expect(served.data.units[0].unavailable).toEqual([day(ctx, 15)]);
  });
});

describe('availability snapshot cache, writes this process does not see', () => {
  it('a write of another node (here plain SQL, past the local hint) is found by the version check', async () => {
    await plantMarker();
    const night = day(ctx, 35);
    // what another node's host edit commits: a night's cap, and the property's version moved
    await sql`insert into calendar_nights (property_id, night, units_cap) values (${villa.id}, ${night}::date, 1)
      on conflict (property_id, night) do update set units_cap = 1`.execute(ctx.deps.db);
    await sql`update calendar_versions set version = nextval('calendar_version_seq') where property_id = ${villa.id}`.execute(ctx.deps.db);
    expect(ctx.deps.state.snapshots.touchedSince(ctx.deps.state.snapshots.get(keyOf(villa.externalId))!)).toBe(false);
    const served = await expectFresh();
    expect(served.data.dates.find((d: { date: string }) => d.date === night).units_cap).toBe(1);
  });

  it('a write through this process skips the version check: the read goes straight to the rebuild', async () => {
    await plantMarker();
    const entry = ctx.deps.state.snapshots.get(keyOf(villa.externalId))!;
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 36), to: day(ctx, 36), units_cap: 2 })).statusCode).toBe(200);
    expect(ctx.deps.state.snapshots.touchedSince(entry)).toBe(true);
    const served = await expectFresh();
    expect(served.data.dates.find((d: { date: string }) => d.date === day(ctx, 36)).units_cap).toBe(2);
    // the rebuilt entry is current again: the next read is served from it after the check
    expect(ctx.deps.state.snapshots.touchedSince(ctx.deps.state.snapshots.get(keyOf(villa.externalId))!)).toBe(false);
  });
});

describe('availability snapshots rebuilt after a write of this process', () => {
  // The service does this on PostgreSQL only; here on either engine (subscribing twice is a no-op).
  beforeAll(() => keepSnapshotsFresh(ctx.deps));
  const versionNow = async () =>
    String(
      (await sql<{ version: string }>`select version::text as version from calendar_versions where property_id = ${villa.id}`.execute(ctx.deps.db)).rows[0]
        .version,
    );
  const cache = () => ctx.deps.state.snapshots;
  /** The rebuild a write starts (on the turn after its answer), to its end. */
  const rebuildAfterWrite = async (key: string) => {
    await new Promise((resolve) => setImmediate(resolve));
    await cache().rebuilding(key)?.done;
  };

  it('a kept snapshot that was read is rebuilt once the write commits, before any read', async () => {
    await plantMarker();
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 37), to: day(ctx, 37), units_cap: 2 })).statusCode).toBe(200);
    await rebuildAfterWrite(keyOf(villa.externalId));
    const entry = cache().get(keyOf(villa.externalId))!;
    expect(entry.json).not.toBe(MARKER);
    expect(entry.read).toBe(false);
    expect(entry.version).toBe(await versionNow());
    expect(ctx.deps.state.snapshots.touchedSince(entry)).toBe(false);
    // what it keeps is what a read builds from an empty cache
    const kept = JSON.parse(entry.json);
    expect(kept.dates.find((d: { date: string }) => d.date === day(ctx, 37)).units_cap).toBe(2);
    expect(await read()).toEqual(await uncached());
  });

  it('an entry nobody read since its rebuild is left to the next read', async () => {
    await read();
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 38), to: day(ctx, 38), units_cap: 2 })).statusCode).toBe(200);
    await rebuildAfterWrite(keyOf(villa.externalId));
    const rebuilt = cache().get(keyOf(villa.externalId))!;
    expect(rebuilt.read).toBe(false);
    // a second write: the entry was not read since it was rebuilt, nothing rebuilds it now
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 38), to: day(ctx, 38), units_cap: 1 })).statusCode).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache().rebuilding(keyOf(villa.externalId))).toBeUndefined();
    expect(cache().get(keyOf(villa.externalId))).toBe(rebuilt);
    expect(rebuilt.version).not.toBe(await versionNow());
    const served = await expectFresh();
    expect(served.data.dates.find((d: { date: string }) => d.date === day(ctx, 38)).units_cap).toBe(1);
  });

  it('a read that comes while a rebuild of its window runs waits for it and is served what it kept', async () => {
    await read();
    const key = keyOf(villa.externalId);
    const entry = cache().get(key)!;
    let finished = false;
    cache().rebuild(key, async () => {
      await sleep(50);
      cache().set(key, { ...entry, json: JSON.stringify({ ...PLANTED, total_units: 434343 }) });
      finished = true;
    });
    const served = await read();
    expect(finished).toBe(true);
    expect(served.data.total_units).toBe(434343);
    cache().delete(key);
  });

  it('counts in /metrics how each availability snapshot was had', async () => {
    const counted = async () => {
      const metric = await ctx.deps.metrics!.registry.getSingleMetric('doorloom_availability_snapshots_total')!.get();
      return Object.fromEntries(metric.values.map((v) => [String(v.labels.outcome), v.value]));
    };
    cache().delete(keyOf(villa.externalId));
    const before = await counted();
    await read(); // built
    await read(); // kept
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 40), to: day(ctx, 40), units_cap: 2 })).statusCode).toBe(200);
    await rebuildAfterWrite(keyOf(villa.externalId));
    await read(); // kept: rebuilt after the write
    const after = await counted();
    expect(after.built - before.built).toBe(1);
    expect(after.kept - before.kept).toBe(2);
    expect(after.rebuilt_after_write - before.rebuilt_after_write).toBe(1);
    expect(after.rebuild_failed - before.rebuild_failed).toBe(0);
    expect(after.rebuild_unread - before.rebuild_unread).toBe(0);

    // a rebuild that no read serves before the next write is wasted: counted when it is replaced
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 40), to: day(ctx, 40), units_cap: 1 })).statusCode).toBe(200);
    await rebuildAfterWrite(keyOf(villa.externalId));
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 40), to: day(ctx, 40), units_cap: 2 })).statusCode).toBe(200);
    await rebuildAfterWrite(keyOf(villa.externalId)); // none: the entry was not read
    await read(); // built, in place of the unread rebuild
    const later = await counted();
    expect(later.rebuilt_after_write - after.rebuilt_after_write).toBe(1);
    expect(later.rebuild_unread - after.rebuild_unread).toBe(1);
    expect(later.built - after.built).toBe(1);
  });

  it('a rebuild that fails drops the entry and leaves the answer to the next read', async () => {
    await read();
    const key = keyOf(villa.externalId);
    const entry = cache().get(key)!;
    // an entry whose request no longer names a covered property: its rebuild answers 404
    const gone = SnapshotCache.key(integ.id, 'no-such-property', from, to);
    cache().set(gone, { ...entry, request: { ...entry.request, propertyRef: 'no-such-property' } });
    expect((await ctx.staff('PUT', `/properties/${villa.id}/calendar`, { from: day(ctx, 39), to: day(ctx, 39), units_cap: 2 })).statusCode).toBe(200);
    await rebuildAfterWrite(gone);
    await cache().rebuilding(key)?.done;
    expect(cache().get(gone)).toBeUndefined();
    const failed = (await ctx.deps.metrics!.registry.getSingleMetric('doorloom_availability_snapshots_total')!.get()).values.find(
      (v) => v.labels.outcome === 'rebuild_failed',
    );
    expect(failed?.value).toBeGreaterThanOrEqual(1);
    await expectFresh();
  });
});

// LISTEN needs a session: behind a transaction pooler only with DATABASE_DIRECT_URL.
describe.skipIf(!sessionUrl)("availability snapshots rebuilt after another process's write (PostgreSQL)", () => {
  // This process listens as the service does (server.ts); the other process writes through an
  // integration with a webhook, so its commits notify: the calendar's notification rides on them.
  let listener: { stop(): Promise<void> };
  let hooked: TestIntegration;
  let hookedVilla: Villa;
  const cache = () => ctx.deps.state.snapshots;
  const hookedPath = () => `/properties/${encodeURIComponent(hookedVilla.externalId)}/availability?from=${from}&to=${to}`;
  const hookedKey = () => SnapshotCache.key(hooked.id, hookedVilla.externalId, from, to);
  const readHooked = async () => {
    const res = await ctx.api(hooked.apiKey, 'GET', hookedPath());
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const versionOf = async (propertyId: number) =>
    String(
      (await sql<{ version: string }>`select version::text as version from calendar_versions where property_id = ${propertyId}`.execute(ctx.deps.db)).rows[0]
        .version,
    );
  const bookThroughOtherAs = (integration: TestIntegration, villa: Villa, checkIn: string, checkOut: string) =>
    other.inject({
      method: 'POST',
      url: `${API_PREFIX}/bookings`,
      headers: { authorization: `Bearer ${integration.apiKey}`, 'content-type': 'application/json', ...writeHeaders() },
      payload: JSON.stringify(bookingBody(ctx, villa, { units: [{ inventory_id: villa.unitIds[0], adults: 2 }], check_in: checkIn, check_out: checkOut })),
    });

  beforeAll(async () => {
    keepSnapshotsFresh(ctx.deps);
    listener = await startProcess(ctx.deps, { background: false });
    // a webhook nobody delivers to here (no delivery worker runs in the tests' runtime)
    hooked = await ctx.createIntegration({ name: 'Hooked', webhook: { url: 'http://127.0.0.1:9/hooks' } });
    hookedVilla = await createVilla(ctx, hooked, 2);
    for (let i = 0; ctx.deps.state.authCache.unheard; i++) {
      if (i > 500) throw new Error('the listener did not come up');
      await sleep(10);
    }
  });
  afterAll(async () => {
    await listener.stop();
  });

  it("a snapshot this process keeps is rebuilt when another process's write commits, before any read", async () => {
    await readHooked();
    const before = cache().get(hookedKey())!;
    expect(before.read).toBe(true);
    const res = await bookThroughOtherAs(hooked, hookedVilla, day(ctx, 7), day(ctx, 9));
    expect(res.statusCode, res.body).toBe(201);
    const version = await versionOf(hookedVilla.id);
    expect(version).not.toBe(before.version);
    let entry = cache().get(hookedKey());
    for (let i = 0; entry?.version !== version; i++) {
      if (i > 500) throw new Error("the kept snapshot was not rebuilt after the other process's write");
      await sleep(10);
      entry = cache().get(hookedKey());
    }
    expect(entry.read).toBe(false);
    expect(JSON.parse(entry.json).units[0].unavailable).toEqual([day(ctx, 7), day(ctx, 8)]);
    // served as kept, and what an empty cache builds
    const served = await readHooked();
    expect(cache().get(hookedKey())).toBe(entry);
    cache().delete(hookedKey());
    expect(served).toEqual(await readHooked());
  });

  it("a write whose commit notifies no one (no webhook) is left to the next read's version check", async () => {
    await plantMarker();
    const res = await bookThroughOther(villa.unitIds[1], day(ctx, 25), day(ctx, 26));
    expect(res.statusCode, res.body).toBe(201);
    // a notifying write after it: notifications arrive in commit order, so once this one is
    // rebuilt, the first would have been heard too
    await readHooked();
    expect((await bookThroughOtherAs(hooked, hookedVilla, day(ctx, 11), day(ctx, 12))).statusCode).toBe(201);
    const version = await versionOf(hookedVilla.id);
    for (let i = 0; cache().get(hookedKey())?.version !== version; i++) {
      if (i > 500) throw new Error('the notifying write was not heard');
      await sleep(10);
    }
    expect(cache().get(keyOf(villa.externalId))?.json).toBe(MARKER);
    const served = await expectFresh();
    expect(served.data.units[1].unavailable).toContain(day(ctx, 25));
  });
});

describe('SnapshotCache', () => {
  const entry = (json: string, propertyId = 1, read = true) => ({
    request: { integrationId: 1, propertyRef: 'P', window: { from: '2026-01-01', to: '2026-01-02' } },
    propertyId,
    version: '1',
    touch: 0,
    json,
    holds: null,
    read,
  });

  it('finds the entries of a property that were read since they were built, and forgets dropped ones', () => {
    const cache = new SnapshotCache(1000);
    cache.set('a', entry('1', 1));
    cache.set('b', entry('2', 1, false));
    cache.set('c', entry('3', 2));
    expect(cache.readEntriesOf(1, 8).map(([key]) => key)).toEqual(['a']);
    cache.delete('a');
    expect(cache.readEntriesOf(1, 8)).toEqual([]);
    cache.set('b', entry('2', 1, true));
    cache.set('d', entry('4', 1, true));
    expect(cache.readEntriesOf(1, 1).map(([key]) => key)).toEqual(['b']);
    expect(cache.readEntriesOf(3, 8)).toEqual([]);
  });

  it('runs a rebuild once more when asked while it runs, never two side by side', async () => {
    const cache = new SnapshotCache(1000);
    let running = 0;
    let runs = 0;
    let most = 0;
    const work = async () => {
      running += 1;
      runs += 1;
      most = Math.max(most, running);
      await sleep(20);
      running -= 1;
    };
    const first = cache.rebuild('k', work);
    expect(cache.rebuild('k', work)).toBe(first);
    expect(cache.rebuild('k', work)).toBe(first);
    await first.done;
    expect(runs).toBe(2);
    expect(most).toBe(1);
    expect(cache.rebuilding('k')).toBeUndefined();
    // a failing work ends the rebuild without rejecting
    await cache.rebuild('k', async () => {
      throw new Error('boom');
    }).done;
    expect(cache.rebuilding('k')).toBeUndefined();
  });

  it('keeps at most its byte budget, dropping the entry used least recently', () => {
    const cache = new SnapshotCache(10);
    cache.set('a', entry('1234'));
    cache.set('b', entry('1234'));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('c', entry('1234'));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    cache.set('big', entry('x'.repeat(11)));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
