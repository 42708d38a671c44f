import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { book, bookingBody, createVilla, day, integrationWithVilla, newKey } from './bookings/fixtures.js';
import { createTestContext, failure, type TestContext } from './helpers/context.js';
import { acceptedRequestFindings, responseFindings } from './helpers/openapi-check.js';

type Any = any;
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** The parts of a request and its answer that the check reads. */
function exchange(method: string, url: string, route: string, status: number, headers: Record<string, string>, extra: Any = {}) {
  const request = { method, url, routeOptions: { url: route, schema: {} }, headers: {}, params: {}, body: undefined, ...extra } as unknown as FastifyRequest;
  const reply = {
    statusCode: status,
    getHeaders: () => ({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1', ...headers }),
  } as unknown as FastifyReply;
  return { request, reply };
}

describe('the check of every answer against the document', () => {
  const me = { success: true, message: 'x', data: {} };
  it('flags an undocumented status, an undeclared header, a body off its schema and an undocumented route', () => {
    let { request, reply } = exchange('GET', '/api/integrations/v1/me', '/api/integrations/v1/me', 418, {});
    expect(responseFindings(request, reply, JSON.stringify(me))).toEqual([expect.stringMatching(/status 418 is not listed/)]);
    ({ request, reply } = exchange('GET', '/api/integrations/v1/me', '/api/integrations/v1/me', 200, { 'x-secret': 'y' }));
    const findings = responseFindings(request, reply, JSON.stringify(me));
    expect(findings).toEqual(
      expect.arrayContaining([expect.stringMatching(/header x-secret is sent but not declared/), expect.stringMatching(/body does not match its schema/)]),
    );
    ({ request, reply } = exchange('GET', '/api/integrations/v1/nowhere', '/api/integrations/v1/nowhere', 200, {}));
    expect(responseFindings(request, reply, '{}')).toEqual([expect.stringMatching(/not in the document/)]);
    // a failure in the envelope, with its declared headers, passes
    ({ request, reply } = exchange('GET', '/api/integrations/v1/me', '/api/integrations/v1/me', 401, {}));
    expect(responseFindings(request, reply, JSON.stringify({ success: false, message: 'no', code: 'UNAUTHENTICATED' }))).toEqual([]);
  });

  it('flags an accepted request that breaks the document: a non-integer page, a missing required parameter or body', () => {
    let { request, reply } = exchange('GET', '/api/integrations/v1/bookings?page=1e2', '/api/integrations/v1/bookings', 200, {});
    expect(acceptedRequestFindings(request, reply)).toEqual([expect.stringMatching(/query parameter page="1e2" breaks its schema/)]);
    ({ request, reply } = exchange(
      'GET',
      '/api/integrations/v1/properties/7/rates?from=2027-01-01',
      '/api/integrations/v1/properties/:property/rates',
      200,
      {},
      { params: { property: '7' } },
    ));
    expect(acceptedRequestFindings(request, reply)).toEqual([expect.stringMatching(/query parameter to is required/)]);
    ({ request, reply } = exchange('PATCH', '/api/integrations/v1/bookings/5', '/api/integrations/v1/bookings/:id', 200, {}, { params: { id: '5' } }));
    expect(acceptedRequestFindings(request, reply)).toEqual([expect.stringMatching(/request body is required/)]);
    // refused, it is the service doing its job
    ({ request, reply } = exchange('GET', '/api/integrations/v1/bookings?page=1e2', '/api/integrations/v1/bookings', 422, {}));
    expect(acceptedRequestFindings(request, reply)).toEqual([]);
  });
});

describe('the service enforces what the document states', () => {
  it('integer query parameters must be written as integers', async () => {
    const integ = await ctx.createIntegration();
    for (const page of ['1e2', '0x10', '2.0', ' 3', '+4']) {
      const res = await ctx.api(integ.apiKey, 'GET', `/bookings?page=${encodeURIComponent(page)}`);
      expect(res.statusCode, page).toBe(422);
      expect(res.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { page: ['must be an integer'] } });
    }
    expect((await ctx.api(integ.apiKey, 'GET', '/bookings?page=100')).statusCode).toBe(200);
    expect((await ctx.api(integ.apiKey, 'GET', '/events?limit=1e1')).json()).toMatchObject({ errors: { limit: ['must be an integer'] } });
  });

  it('a PATCH without a body is refused; an empty object still changes nothing', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const booking = await book(ctx, integ, villa);
    const none = await ctx.api(integ.apiKey, 'PATCH', `/bookings/${booking.id}`);
    expect(none.statusCode).toBe(422);
    expect(none.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { body: [expect.stringMatching(/^is required/)] } });
    const external = await ctx.api(integ.apiKey, 'PATCH', `/bookings/external/${encodeURIComponent(booking.external_booking_id)}`);
    expect(external.statusCode).toBe(422);
    const empty = await ctx.api(integ.apiKey, 'PATCH', `/bookings/${booking.id}`, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json().message).toBe('Nothing to change.');
  });

  it('the partner create answers the booking’s ETag, as its reads do', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const res = await ctx.api(integ.apiKey, 'POST', '/bookings', bookingBody(ctx, villa), { 'idempotency-key': newKey() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers.etag).toBe(`"${res.json().data.revision}"`);
    const read = await ctx.api(integ.apiKey, 'GET', `/bookings/${res.json().data.id}`);
    expect(read.headers.etag).toBe(res.headers.etag);
  });

  it('snapshot windows are required, and dates must exist', async () => {
    const { integ, villa } = await integrationWithVilla(ctx, 1);
    const none = await ctx.api(integ.apiKey, 'GET', `/properties/${villa.id}/rates`);
    expect(none.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { from: ['is required'], to: ['is required'] } });
    const body = bookingBody(ctx, villa, { check_in: '2027-02-30' });
    const bad = await ctx.api(integ.apiKey, 'POST', '/bookings', body, { 'idempotency-key': newKey() });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.check_in).toEqual(['must be a date written YYYY-MM-DD']);
  });

  it('the sandbox host booking takes the integration’s unit aliases and needs an Idempotency-Key', async () => {
    const brand = await ctx.staff('POST', '/brands', { name: 'Alias Sandbox', sandbox: true });
    const integ = await ctx.createIntegration({ brandId: brand.json().data.id });
    const villa = await createVilla(ctx, integ, 2);
    const stay = { units: [{ external_unit_id: villa.aliases[1], adults: 2 }], check_in: day(ctx, 5), check_out: day(ctx, 6) };
    const path = `/sandbox/properties/${encodeURIComponent(villa.externalId)}/bookings`;
    const keyless = await ctx.api(integ.apiKey, 'POST', path, stay);
    expect(keyless.json()).toMatchObject(failure('IDEMPOTENCY_KEY_REQUIRED'));
    const res = await ctx.api(integ.apiKey, 'POST', path, stay, { 'idempotency-key': newKey() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.units).toEqual([expect.objectContaining({ inventory_id: villa.unitIds[1], external_unit_id: villa.aliases[1] })]);
    expect(res.headers.etag).toBe(`"${res.json().data.revision}"`);
    const unknown = await ctx.api(integ.apiKey, 'POST', path, { ...stay, units: [{ external_unit_id: 'NOT-MINE' }] }, { 'idempotency-key': newKey() });
    expect(unknown.json()).toMatchObject({ ...failure('VALIDATION_FAILED'), errors: { 'units.0.external_unit_id': ['is not a unit of this property'] } });
  });
});
