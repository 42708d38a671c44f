import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX, STAFF_PREFIX } from '../../src/app.js';
import { createTestContext, STAFF_TOKEN, type TestContext, type TestIntegration } from '../helpers/context.js';
import { changedTables, tableDigest } from '../helpers/digest.js';
import { fillPath, listRoutes } from '../helpers/routes.js';
import { bookingBody, buildWorld, day, expectStatus, newKey, newRef, type World } from './world.js';

/**
 * Scope rule (contract: "every call sees only the data of its own integration … 404 NOT_FOUND,
 * never 403, so ids cannot be probed"; decisions §4 Visibility). For every endpoint taking an id,
 * another integration's id answers exactly what a missing id answers — same status, same body —
 * and changes nothing; lists never carry another integration's records.
 */

let ctx: TestContext;
let w: World;
/** A property id and a booking id that exist nowhere. */
let missingId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  w = await buildWorld(ctx);
  missingId = 2_000_000_000;
});
afterAll(() => ctx.close());

const enc = encodeURIComponent;

/** What a refusal tells a caller: the status, the whole body, and the headers that could give a record away. */
function answer(res: LightMyRequestResponse) {
  return { status: res.statusCode, body: res.json(), etag: res.headers.etag };
}

/**
 * Calls `request` with each foreign reference and with a missing one of the same kind; every
 * foreign answer must equal the missing one, which must be 404 NOT_FOUND; nothing is written.
 */
async function expectSameAsMissing(
  label: string,
  request: (ref: string) => Promise<LightMyRequestResponse>,
  foreign: Record<string, string | number>,
  missing: string | number,
) {
  await ctx.advanceClock(60); // a fresh rate window: a 429 would answer instead
  const before = await tableDigest(ctx);
  const expected = answer(await request(String(missing)));
  expect(expected, `${label}: a missing id`).toEqual({
    status: 404,
    body: { success: false, code: 'NOT_FOUND', message: expect.any(String) },
    etag: undefined,
  });
  for (const [name, ref] of Object.entries(foreign)) {
    const res = await request(String(ref));
    expect(answer(res), `${label} with ${name} (${ref})`).toEqual(expected);
    expect(res.statusCode).not.toBe(403);
  }
  expect(changedTables(before, await tableDigest(ctx)), `${label}: written by refused requests`).toEqual([]);
}

describe('property endpoints: another integration’s property is a missing property', () => {
  const foreignProperties = () => ({
    "B's property by id": w.villaB.id,
    "B's property by B's external_id": w.villaB.externalId,
    'an uncovered property of the same brand by id': w.uncovered.id,
    "the shared property by C's external_id": w.shared.externalIdC,
  });

  it('GET /properties/{property}', async () => {
    expectStatus(await ctx.api(w.a.apiKey, 'GET', `/properties/${w.villaA.id}`), 200);
    expectStatus(await ctx.api(w.a.apiKey, 'GET', `/properties/${enc(w.shared.externalIdA)}`), 200);
    await expectSameAsMissing('GET /properties/{property}', (ref) => ctx.api(w.a.apiKey, 'GET', `/properties/${enc(ref)}`), foreignProperties(), missingId);
    await expectSameAsMissing(
      'GET /properties/{external_id}',
      (ref) => ctx.api(w.a.apiKey, 'GET', `/properties/${enc(ref)}`),
      foreignProperties(),
      newRef('NOPE'),
    );
  });

  it('PUT /properties/{property}, with a valid body and with an invalid one', async () => {
    for (const body of [{ name: 'Taken over' }, { name: 'Taken over', units: [{ inventory_id: w.villaB.unitIds[0], name: 'Mine now' }] }]) {
      await expectSameAsMissing(
        'PUT /properties/{property}',
        (ref) => ctx.api(w.a.apiKey, 'PUT', `/properties/${enc(ref)}`, body),
        foreignProperties(),
        missingId,
      );
      await expectSameAsMissing(
        'PUT /properties/{external_id}',
        (ref) => ctx.api(w.a.apiKey, 'PUT', `/properties/${enc(ref)}`, body),
        foreignProperties(),
        newRef('NOPE'),
      );
    }
    // an archived property of another integration is not found, rather than PROPERTY_ARCHIVED
    await expectSameAsMissing(
      'PUT /properties/{property} (archived, of another integration)',
      (ref) => ctx.api(w.c.apiKey, 'PUT', `/properties/${enc(ref)}`, { name: 'x' }),
      { "A's archived property by id": w.archivedA.id, "A's archived property by external_id": w.archivedA.externalId },
      missingId,
    );
  });

  for (const kind of ['availability', 'rates', 'restrictions']) {
    it(`GET /properties/{property}/${kind}`, async () => {
      const query = `?from=${day(ctx, 1)}&to=${day(ctx, 10)}`;
      expectStatus(await ctx.api(w.a.apiKey, 'GET', `/properties/${w.villaA.id}/${kind}${query}`), 200);
      const request = (ref: string) => ctx.api(w.a.apiKey, 'GET', `/properties/${enc(ref)}/${kind}${query}`);
      await expectSameAsMissing(`GET /properties/{property}/${kind}`, request, foreignProperties(), missingId);
      await expectSameAsMissing(`GET /properties/{external_id}/${kind}`, request, foreignProperties(), newRef('NOPE'));
    });
  }

  it('a unit of another property in a PUT is refused exactly like a unit that does not exist', async () => {
    const put = (inventoryId: number) => ctx.api(w.a.apiKey, 'PUT', `/properties/${w.villaA.id}`, { units: [{ inventory_id: inventoryId, name: 'Renamed' }] });
    const missing = await put(missingId);
    expectStatus(missing, 422);
    expect(Object.keys(missing.json().errors)).toEqual(['units.0.inventory_id']);
    for (const inventoryId of [w.villaB.unitIds[0], w.uncovered.unitIds[0]]) {
      expect(answer(await put(inventoryId))).toEqual(answer(missing));
    }
  });

  it('PUT /properties/bulk: a foreign property fails its item exactly like a missing one', async () => {
    const bulk = (item: Record<string, unknown>) => ctx.api(w.a.apiKey, 'PUT', '/properties/bulk', { properties: [{ ...item, name: 'Bulk takeover' }] });
    const before = await tableDigest(ctx);
    const byId = await bulk({ doorloom_id: missingId });
    expectStatus(byId, 200);
    expect(byId.json().data.results[0]).toMatchObject({ status: 'failed', doorloom_id: null, error: { code: 'NOT_FOUND' } });
    for (const id of [w.villaB.id, w.uncovered.id]) expect(answer(await bulk({ doorloom_id: id })).body.data).toEqual(byId.json().data);

    const missingExternal = newRef('NOPE');
    const byExternal = (await bulk({ external_id: missingExternal })).json().data;
    expect(byExternal.results[0]).toMatchObject({ status: 'failed', doorloom_id: null, error: { code: 'NOT_FOUND' } });
    for (const ref of [w.villaB.externalId, w.shared.externalIdC]) {
      const data = (await bulk({ external_id: ref })).json().data;
      expect(JSON.parse(JSON.stringify(data).replaceAll(ref, missingExternal))).toEqual(byExternal);
    }
    expect(changedTables(before, await tableDigest(ctx))).toEqual([]);
  });
});

describe('booking endpoints: another integration’s booking is a missing booking', () => {
  const foreignIds = () => ({
    "B's booking": w.bookingB.id,
    "C's booking on a property A covers too": w.bookingC.id,
    'a host booking on a property A does not cover': w.hostBookingUncovered.id,
  });
  const foreignExternalIds = () => ({
    "B's booking": w.bookingB.externalId,
    "C's booking on a property A covers too": w.bookingC.externalId,
    'a host booking on a property A does not cover': w.hostBookingUncovered.externalId,
  });

  it('GET /bookings/{id} and /bookings/external/{external_booking_id}', async () => {
    expectStatus(await ctx.api(w.a.apiKey, 'GET', `/bookings/${w.bookingA.id}`), 200);
    expectStatus(await ctx.api(w.a.apiKey, 'GET', `/bookings/${w.hostBookingShared.id}`), 200);
    await expectSameAsMissing('GET /bookings/{id}', (ref) => ctx.api(w.a.apiKey, 'GET', `/bookings/${ref}`), foreignIds(), missingId);
    await expectSameAsMissing(
      'GET /bookings/external/{external_booking_id}',
      (ref) => ctx.api(w.a.apiKey, 'GET', `/bookings/external/${enc(ref)}`),
      foreignExternalIds(),
      newRef('NOPE'),
    );
  });

  // With and without a stale If-Match: a 412 would tell the id exists.
  for (const headers of [{}, { 'if-match': '"999"' }] as Array<Record<string, string>>) {
    const label = Object.keys(headers).length ? ' with a stale If-Match' : '';
    it(`PATCH by id and by external id${label}`, async () => {
      const body = { notes: 'Hijacked', guest: { name: 'Mallory' } };
      await expectSameAsMissing(
        `PATCH /bookings/{id}${label}`,
        (ref) => ctx.api(w.a.apiKey, 'PATCH', `/bookings/${ref}`, body, headers),
        foreignIds(),
        missingId,
      );
      await expectSameAsMissing(
        `PATCH /bookings/external/{external_booking_id}${label}`,
        (ref) => ctx.api(w.a.apiKey, 'PATCH', `/bookings/external/${enc(ref)}`, body, headers),
        foreignExternalIds(),
        newRef('NOPE'),
      );
    });

    it(`cancel by id and by external id${label}`, async () => {
      await expectSameAsMissing(
        `POST /bookings/{id}/cancel${label}`,
        (ref) => ctx.api(w.a.apiKey, 'POST', `/bookings/${ref}/cancel`, { reason: 'x' }, headers),
        foreignIds(),
        missingId,
      );
      await expectSameAsMissing(
        `POST /bookings/external/{external_booking_id}/cancel${label}`,
        (ref) => ctx.api(w.a.apiKey, 'POST', `/bookings/external/${enc(ref)}/cancel`, undefined, headers),
        foreignExternalIds(),
        newRef('NOPE'),
      );
    });
  }

  it('an already cancelled booking of another integration is not found (not "already cancelled")', async () => {
    const victim = await ctx.api(w.b.apiKey, 'POST', '/bookings', bookingBody(ctx, w.villaB, 40), { 'idempotency-key': newKey() });
    expectStatus(victim, 201);
    expectStatus(await ctx.api(w.b.apiKey, 'POST', `/bookings/${victim.json().data.id}/cancel`), 200);
    await expectSameAsMissing(
      'POST /bookings/{id}/cancel',
      (ref) => ctx.api(w.a.apiKey, 'POST', `/bookings/${ref}/cancel`),
      { "B's cancelled booking": victim.json().data.id },
      missingId,
    );
  });

  it('GET /bookings?property_id= of a foreign property answers like a missing property, with no bookings', async () => {
    const list = (ref: string) => ctx.api(w.a.apiKey, 'GET', `/bookings?property_id=${ref}`);
    const missing = await list(String(missingId));
    expectStatus(missing, 200);
    expect(missing.json()).toMatchObject({ success: true, data: [], pagination: { total: 0 } });
    for (const id of [w.villaB.id, w.uncovered.id]) expect(answer(await list(String(id)))).toEqual(answer(missing));
    // C covers the shared property too, but sees only its own booking and the host's there
    const c = await ctx.api(w.c.apiKey, 'GET', `/bookings?property_id=${w.shared.id}`);
    expect(
      c
        .json()
        .data.map((b: { id: number }) => b.id)
        .sort(),
    ).toEqual([w.bookingC.id, w.hostBookingShared.id].sort());
  });

  it('POST /bookings naming a foreign property is PROPERTY_NOT_MAPPED exactly like a missing one, and creates nothing', async () => {
    const before = await tableDigest(ctx);
    const post = (property: Record<string, unknown>) =>
      ctx.api(
        w.a.apiKey,
        'POST',
        '/bookings',
        { ...bookingBody(ctx, w.villaA, 50), external_booking_id: 'SCOPE-1', property, units: [{ adults: 1 }] },
        { 'idempotency-key': newKey() },
      );
    const byId = answer(await post({ doorloom_id: missingId }));
    expect(byId).toMatchObject({ status: 422, body: { success: false, code: 'PROPERTY_NOT_MAPPED' } });
    for (const id of [w.villaB.id, w.uncovered.id]) expect(answer(await post({ doorloom_id: id }))).toEqual(byId);
    const byExternal = answer(await post({ external_id: newRef('NOPE') }));
    expect(byExternal.body.code).toBe('PROPERTY_NOT_MAPPED');
    for (const ref of [w.villaB.externalId, w.shared.externalIdC]) expect(answer(await post({ external_id: ref }))).toEqual(byExternal);
    // a unit of another property on one's own property
    const unit = (inventoryId: number) =>
      ctx.api(w.a.apiKey, 'POST', '/bookings', { ...bookingBody(ctx, w.villaA, 50), units: [{ inventory_id: inventoryId }] }, { 'idempotency-key': newKey() });
    const missingUnit = answer(await unit(missingId));
    expect(missingUnit).toMatchObject({ status: 422, body: { code: 'VALIDATION_FAILED', errors: { 'units.0.inventory_id': expect.any(Array) } } });
    expect(answer(await unit(w.villaB.unitIds[0]))).toEqual(missingUnit);
    expect(changedTables(before, await tableDigest(ctx))).toEqual([]);
  });

  it('POST /sync naming a foreign property is PROPERTY_NOT_MAPPED exactly like a missing one', async () => {
    const fresh = await ctx.createIntegration({ brandId: w.a.brandId, horizon_days: 30 });
    const sync = (id: number) => ctx.api(fresh.apiKey, 'POST', '/sync', { property_ids: [id] });
    const missing = answer(await sync(missingId));
    expect(missing).toMatchObject({ status: 422, body: { code: 'PROPERTY_NOT_MAPPED', errors: { 'property_ids.0': expect.any(Array) } } });
    for (const id of [w.villaB.id, w.villaA.id, w.shared.id]) {
      const got = answer(await sync(id));
      expect(JSON.parse(JSON.stringify(got).replaceAll(`property ${id} `, `property ${missingId} `))).toEqual(missing);
    }
  });
});

describe('every route, read from the app', () => {
  /** Foreign and missing values by path parameter; a new kind of id must be added here. */
  const idsOf = (param: string): { foreign: Record<string, string | number>; missing: Array<string | number> } | undefined => {
    switch (param) {
      case 'property':
        return {
          foreign: {
            "B's property": w.villaB.id,
            "B's external_id": w.villaB.externalId,
            'an uncovered property': w.uncovered.id,
            "C's external_id": w.shared.externalIdC,
          },
          missing: [missingId, newRef('NOPE')],
        };
      case 'id':
        return {
          foreign: { "B's booking": w.bookingB.id, "C's booking": w.bookingC.id, 'an invisible host booking': w.hostBookingUncovered.id },
          missing: [missingId],
        };
      case 'external_booking_id':
        return {
          foreign: {
            "B's booking": w.bookingB.externalId,
            "C's booking": w.bookingC.externalId,
            'an invisible host booking': w.hostBookingUncovered.externalId,
          },
          missing: [newRef('NOPE')],
        };
      default:
        return undefined;
    }
  };

  /** Wrong token kinds, by API: what each sends and the contract's answer. */
  const wrongTokens = (api: 'partner' | 'staff'): Array<{ kind: string; authorization?: string; status: number; code: string }> => [
    { kind: 'no Authorization header', status: 401, code: 'UNAUTHENTICATED' },
    { kind: 'a malformed header', authorization: 'Basic dXNlcjpwYXNz', status: 401, code: 'UNAUTHENTICATED' },
    { kind: 'a bearer without a token', authorization: 'Bearer ', status: 401, code: 'UNAUTHENTICATED' },
    ...(api === 'partner'
      ? [
          { kind: 'an unknown API key', authorization: `Bearer ${w.a.apiKey}x`, status: 401, code: 'UNAUTHENTICATED' },
          { kind: 'the staff token', authorization: `Bearer ${STAFF_TOKEN}`, status: 403, code: 'NOT_INTEGRATION_TOKEN' },
        ]
      : [
          { kind: 'an unknown staff token', authorization: `Bearer ${STAFF_TOKEN}x`, status: 401, code: 'UNAUTHENTICATED' },
          { kind: 'an integration API key', authorization: `Bearer ${w.a.apiKey}`, status: 403, code: 'NOT_STAFF_TOKEN' },
        ]),
  ];

  it('answers wrong token kinds with the contract’s codes on every route of both APIs, writing nothing (new routes included)', async () => {
    const routes = listRoutes(ctx.app).filter((r) => r.method !== 'HEAD' && (r.url.startsWith(`${API_PREFIX}/`) || r.url.startsWith(`${STAFF_PREFIX}/`)));
    expect(routes.filter((r) => r.url.startsWith(API_PREFIX)).length).toBeGreaterThanOrEqual(20);
    expect(routes.filter((r) => r.url.startsWith(STAFF_PREFIX)).length).toBeGreaterThanOrEqual(20);
    await ctx.advanceClock(60); // a fresh rate window: a 429 would answer instead
    const before = await tableDigest(ctx);
    for (const route of routes) {
      const url = fillPath(route.url, Object.fromEntries(route.params.map((p) => [p, '1'])));
      for (const token of wrongTokens(route.url.startsWith(API_PREFIX) ? 'partner' : 'staff')) {
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { 'content-type': 'application/json', 'idempotency-key': newKey(), ...(token.authorization ? { authorization: token.authorization } : {}) },
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: '{}' }),
        });
        // The sandbox's routes answer whoever is not a sandbox integration as a path that does not exist.
        const hidden = route.url.startsWith(`${API_PREFIX}/sandbox/`);
        expect({ status: res.statusCode, body: res.json() }, `${route.method} ${route.url} with ${token.kind}`).toEqual({
          status: hidden ? 404 : token.status,
          body: { success: false, code: hidden ? 'NOT_FOUND' : token.code, message: expect.any(String) },
        });
      }
    }
    expect(changedTables(before, await tableDigest(ctx)), 'written by refused requests').toEqual([]);
  });

  it('answers a foreign id exactly as a missing one on every method and path (new routes included)', async () => {
    const routes = listRoutes(ctx.app).filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.params.length > 0 && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThanOrEqual(11);
    const query = `?from=${day(ctx, 1)}&to=${day(ctx, 5)}`;
    for (const route of routes) {
      expect(route.params, `${route.method} ${route.url}: one id per path`).toHaveLength(1);
      const ids = idsOf(route.params[0]);
      expect(ids, `${route.method} ${route.url}: no scope check for :${route.params[0]} yet`).toBeDefined();
      const send = (ref: string) =>
        ctx.app.inject({
          method: route.method as 'GET',
          url: route.url.replace(`:${route.params[0]}`, encodeURIComponent(ref)) + (route.method === 'GET' ? query : ''),
          headers: { authorization: `Bearer ${w.a.apiKey}`, 'content-type': 'application/json', 'idempotency-key': newKey() },
          ...(route.method === 'GET' ? {} : { payload: '{}' }),
        });
      for (const missing of ids!.missing) await expectSameAsMissing(`${route.method} ${route.url}`, send, ids!.foreign, missing);
    }
  });
});

describe('lists never carry another integration’s records', () => {
  /** Every identifier that is not A's: its text must appear nowhere in what A reads. */
  const secretsOfOthers = () => [
    w.villaB.externalId,
    ...w.villaB.aliases,
    w.shared.externalIdC,
    w.bookingB.externalId,
    w.bookingC.externalId,
    w.hostBookingUncovered.externalId,
  ];

  async function all(integration: TestIntegration, path: string) {
    const res = await ctx.api(integration.apiKey, 'GET', path);
    expectStatus(res, 200);
    return res;
  }

  it('GET /properties: exactly the covered properties, in every filter and page', async () => {
    const ids = (res: LightMyRequestResponse) =>
      res
        .json()
        .data.properties.map((p: { doorloom_id: number }) => p.doorloom_id)
        .sort((x: number, y: number) => x - y);
    const mine = [w.villaA.id, w.archivedA.id, w.shared.id].sort((x, y) => x - y);
    const everything = await all(w.a, '/properties?per_page=200');
    expect(ids(everything)).toEqual(mine);
    expect(everything.json().pagination.total).toBe(3);
    const paged = [
      ...ids(await all(w.a, '/properties?per_page=1&page=1')),
      ...ids(await all(w.a, '/properties?per_page=1&page=2')),
      ...ids(await all(w.a, '/properties?per_page=1&page=3')),
    ];
    expect(paged.sort((x, y) => x - y)).toEqual(mine);
    expect(ids(await all(w.a, '/properties?per_page=1&page=4'))).toEqual([]);
    for (const status of ['active', 'inactive', 'archived']) {
      for (const id of ids(await all(w.a, `/properties?status=${status}`))) expect(mine).toContain(id);
    }
    for (const secret of secretsOfOthers()) expect(everything.body).not.toContain(secret);
    // C sees the shared property under its own external id only
    const c = await all(w.c, '/properties');
    expect(c.json().data.properties.map((p: { doorloom_id: number; external_id: string }) => [p.doorloom_id, p.external_id])).toEqual([
      [w.shared.id, w.shared.externalIdC],
    ]);
    expect(c.body).not.toContain(w.shared.externalIdA);
  });

  it('GET /bookings: own bookings and host bookings on covered properties, in every filter', async () => {
    const mine = [w.bookingA.id, w.bookingASharedProperty.id, w.hostBookingShared.id].sort((x, y) => x - y);
    const ids = (res: LightMyRequestResponse) =>
      res
        .json()
        .data.map((b: { id: number }) => b.id)
        .sort((x: number, y: number) => x - y);
    const everything = await all(w.a, '/bookings?per_page=200');
    expect(ids(everything)).toEqual(mine);
    expect(everything.json().pagination.total).toBe(3);
    for (const query of [
      'status=confirmed',
      'status=cancelled',
      `property_id=${w.shared.id}`,
      `updated_since=2000-01-01`,
      `check_in_from=${day(ctx, 0)}`,
      'per_page=1&page=2',
    ]) {
      for (const id of ids(await all(w.a, `/bookings?${query}`))) expect(mine, query).toContain(id);
    }
    for (const secret of secretsOfOthers()) expect(everything.body).not.toContain(secret);
    const c = await all(w.c, '/bookings?per_page=200');
    expect(ids(c)).toEqual([w.bookingC.id, w.hostBookingShared.id].sort((x, y) => x - y));
    expect(c.body).not.toContain(w.bookingASharedProperty.externalId);
    expect(c.body).not.toContain(w.shared.externalIdA);
  });

  it('GET /events: only the integration’s own log, about its covered properties and visible bookings', async () => {
    const covered = new Set([w.villaA.id, w.archivedA.id, w.shared.id]);
    const visible = new Set([w.bookingA.id, w.bookingASharedProperty.id, w.hostBookingShared.id]);
    let after = 0;
    let seen = 0;
    for (;;) {
      const res = await all(w.a, `/events?after_sequence=${after}&limit=200`);
      for (const secret of secretsOfOthers()) expect(res.body).not.toContain(secret);
      for (const row of res.json().data) {
        seen++;
        expect(row.event.integration.id).toBe(w.a.id);
        if (row.event.property) expect(covered.has(row.event.property.doorloom_id), JSON.stringify(row.event.property)).toBe(true);
        if (row.event.type === 'booking.changed') expect(visible.has(row.event.data.booking.id)).toBe(true);
      }
      if (!res.json().cursor.has_more) break;
      after = res.json().cursor.next_after_sequence;
    }
    expect(seen).toBeGreaterThan(0);
    // C's log: nothing of A's booking on the shared property beyond availability
    const cEvents = await all(w.c, '/events?limit=200');
    expect(cEvents.body).not.toContain(w.bookingASharedProperty.externalId);
    expect(cEvents.body).not.toContain(w.shared.externalIdA);
    for (const row of cEvents.json().data) {
      if (row.event.type === 'booking.changed') expect([w.bookingC.id, w.hostBookingShared.id]).toContain(row.event.data.booking.id);
    }
  });

  it('GET /me counts only the integration’s own coverage', async () => {
    expect((await all(w.a, '/me')).json().data.covered_properties).toBe(3);
    expect((await all(w.c, '/me')).json().data.covered_properties).toBe(1);
  });
});
