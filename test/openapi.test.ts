import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOpenApi } from '../scripts/openapi-document.js';
import { createTestContext, type TestContext, type TestIntegration } from './helpers/context.js';
import { createBody, newKey } from './properties/fixtures.js';
import { bookingBody } from './bookings/fixtures.js';

type Any = any;

const PARTNER = '/api/integrations/v1';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
let document: Any;

beforeAll(async () => {
  document = JSON.parse(await generateOpenApi());
});

function operations(): Array<{ path: string; method: string; op: Any; partner: boolean }> {
  return Object.entries(document.paths as Record<string, Any>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method], partner: path.startsWith(PARTNER + '/') })),
  );
}
const partnerOp = (path: string, method: string) => document.paths[PARTNER + path][method];
const dataOf = (response: Any) => response.content['application/json'].schema.properties.data;

/** Every subschema, with where it is. */
function* walk(node: Any, where: string): Generator<[Any, string]> {
  if (typeof node !== 'object' || node === null) return;
  yield [node, where];
  for (const [key, value] of Object.entries(node)) yield* walk(value, `${where}/${key}`);
}
const strip = ({ description: _d, ...rest }: Any) => rest;

const NAMED = [
  'Integration',
  'PropertyBlock',
  'Unit',
  'PropertyDetail',
  'Booking',
  'AvailabilityPayload',
  'RatesPayload',
  'RestrictionsPayload',
  'AvailabilitySnapshot',
  'RatesSnapshot',
  'RestrictionsSnapshot',
  'EventEnvelope',
  'Event',
  'AvailabilityChangedEvent',
  'RatesChangedEvent',
  'RestrictionsChangedEvent',
  'InventoryChangedEvent',
  'PropertyChangedEvent',
  'BookingChangedEvent',
  'PingEvent',
  'InventoryChangedData',
  'PropertyChangedData',
  'BookingChangedData',
  'ErrorEnvelope',
  'Pagination',
  'Cursor',
  'EventRow',
  'PropertyCreateInput',
  'PropertyUpdateInput',
  'BookingCreateInput',
  'BookingUpdateInput',
  'BookingCancelInput',
  'SyncInput',
];

describe('OpenAPI document', () => {
  it('docs/openapi.json matches the code (run `npm run openapi` after changing a route)', async () => {
    const committed = await readFile(new URL('../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(await generateOpenApi());
  });

  it('is OpenAPI 3.1 with a server, and documents the partner and staff routes', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers.length).toBeGreaterThan(0);
    expect(document.paths).toHaveProperty([`${PARTNER}/me`]);
    expect(document.paths).toHaveProperty(['/api/staff/v1/integrations']);
  });

  it('gives every operation and webhook a unique operationId', () => {
    const ids = operations().map((o) => o.op.operationId);
    for (const item of Object.values(document.webhooks as Record<string, Any>)) ids.push(item.post.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(partnerOp('/bookings/{id}/cancel', 'post').operationId).toBe('cancelBooking');
  });

  it('names the component schemas and keeps no inlined copy of them', () => {
    const schemas = document.components.schemas;
    for (const name of NAMED) expect(schemas, name).toHaveProperty([name]);
    for (const name of NAMED) {
      const named = JSON.stringify(strip(schemas[name]));
      for (const [node, where] of walk(document.paths, '#/paths')) {
        expect(JSON.stringify(strip(node)) === named, `${where} is a copy of ${name}`).toBe(false);
      }
      for (const [other, schema] of Object.entries(schemas as Record<string, Any>)) {
        if (other === name) continue;
        for (const [node, where] of walk(schema, `#/components/schemas/${other}`)) {
          expect(JSON.stringify(strip(node)) === named, `${where} is a copy of ${name}`).toBe(false);
        }
      }
    }
    // and the operations refer to them
    const booking = { $ref: '#/components/schemas/Booking' };
    expect(dataOf(partnerOp('/bookings/{id}', 'get').responses['200'])).toEqual(booking);
    expect(dataOf(partnerOp('/bookings', 'get').responses['200']).items).toEqual(booking);
    expect(dataOf(partnerOp('/bookings', 'post').responses['201']).allOf[0]).toEqual(booking);
    expect(dataOf(partnerOp('/me', 'get').responses['200'])).toEqual({ $ref: '#/components/schemas/Integration' });
    expect(dataOf(partnerOp('/properties', 'post').responses['201'])).toEqual({ $ref: '#/components/schemas/PropertyBlock' });
    expect(dataOf(partnerOp('/properties/{property}/rates', 'get').responses['200'])).toEqual({ $ref: '#/components/schemas/RatesSnapshot' });
    expect(partnerOp('/events', 'get').responses['200'].content['application/json'].schema.properties.cursor).toEqual({ $ref: '#/components/schemas/Cursor' });
    expect(partnerOp('/bookings', 'get').responses['200'].content['application/json'].schema.properties.pagination).toEqual({
      $ref: '#/components/schemas/Pagination',
    });
    expect(schemas.PropertyBlock.properties.units.items).toEqual({ $ref: '#/components/schemas/Unit' });
    expect(schemas.EventRow.properties.event).toEqual({ $ref: '#/components/schemas/Event' });
  });

  it('lists every failure status the service can answer, in the envelope', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      const expected = ['400', '401', '403', '408', '414', '429', '431', '503'];
      if (op.requestBody) expected.push('413', '415', '422');
      if ((op.parameters ?? []).some((p: Any) => p.in === 'path')) expected.push('404');
      for (const status of expected) expect(statuses, `${method} ${path} lists ${status}`).toContain(status);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        const response = op.responses[status].$ref ? document.components.responses[op.responses[status].$ref.split('/').pop()] : op.responses[status];
        expect(response.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
      }
    }
    expect(partnerOp('/events', 'get').responses['410'].description).toMatch(/CURSOR_EXPIRED/);
  });

  it('documents the response headers', () => {
    const headersOf = (response: Any) => Object.keys((response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response).headers ?? {});
    for (const { path, method, op, partner } of operations()) {
      if (!partner) continue;
      for (const [status, response] of Object.entries(op.responses as Record<string, Any>)) {
        const headers = headersOf(response);
        for (const name of ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']) {
          expect(headers, `${method} ${path} ${status} ${name}`).toContain(name);
        }
        if (status === '429' || status === '503') expect(headers).toContain('Retry-After');
      }
    }
    for (const path of ['/properties', '/properties/bulk', '/bookings'])
      expect(headersOf(partnerOp(path, 'post').responses['201'])).toContain('Idempotent-Replayed');
    for (const [path, method] of [
      ['/bookings/{id}', 'get'],
      ['/bookings/{id}', 'patch'],
      ['/bookings/{id}/cancel', 'post'],
      ['/bookings/external/{external_booking_id}', 'get'],
    ]) {
      expect(headersOf(partnerOp(path, method).responses['200'])).toContain('ETag');
    }
    expect(Object.keys(document.components.headers)).toEqual(
      expect.arrayContaining([
        'ETag',
        'RateLimit',
        'RateLimit-Policy',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'Retry-After',
        'Idempotent-Replayed',
        'X-Request-Id',
      ]),
    );
  });

  it('makes the cancel and sync bodies optional and numeric path ids integers', () => {
    expect(partnerOp('/sync', 'post').requestBody.required).toBe(false);
    expect(partnerOp('/bookings/{id}/cancel', 'post').requestBody.required).toBe(false);
    expect(partnerOp('/bookings/external/{external_booking_id}/cancel', 'post').requestBody.required).toBe(false);
    expect(partnerOp('/bookings', 'post').requestBody.required).toBe(true);
    for (const { op } of operations()) {
      for (const parameter of (op.parameters ?? []).filter((p: Any) => p.in === 'path' && (p.name === 'id' || p.name === 'property_id'))) {
        expect(parameter.schema.type).toBe('integer');
      }
    }
  });

  it('describes the webhooks under OpenAPI 3.1 `webhooks`, one per kind, with the signature headers', () => {
    const kinds = ['availability.changed', 'rates.changed', 'restrictions.changed', 'inventory.changed', 'property.changed', 'booking.changed', 'ping'];
    expect(Object.keys(document.webhooks).sort()).toEqual([...kinds].sort());
    for (const kind of kinds) {
      const post = document.webhooks[kind].post;
      expect(post.requestBody.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\/\w+Event$/);
      expect(post.parameters.map((p: Any) => p.name)).toEqual(
        expect.arrayContaining(['X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']),
      );
    }
  });

  it('passes `redocly lint` (recommended rules) with no errors', async () => {
    const bin = new URL('../node_modules/.bin/redocly', import.meta.url).pathname;
    const result = await promisify(execFile)(bin, ['lint', 'docs/openapi.json', '--format=stylish'], {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: Any) => error);
    expect(result.stdout + result.stderr).not.toMatch(/\berror\b/);
    expect(result.code ?? 0).toBe(0);
  }, 60_000);
});

describe('the document describes what the service sends', () => {
  let ctx: TestContext;
  let integration: TestIntegration;
  let ajv: Ajv2020;
  beforeAll(async () => {
    ctx = await createTestContext();
    integration = await ctx.createIntegration();
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(document, 'openapi');
  });
  afterAll(() => ctx?.close());

  const check = (name: string, value: unknown) => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
    expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  };

  it('answers match the named schemas and carry the documented headers', async () => {
    const me = await ctx.api(integration.apiKey, 'GET', '/me');
    check('Integration', me.json().data);
    for (const name of ['x-request-id', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'x-ratelimit-remaining'])
      expect(me.headers).toHaveProperty([name]);

    const created = await ctx.api(
      integration.apiKey,
      'POST',
      '/properties',
      createBody({ external_id: 'OA-1', units: [{ name: 'Room', external_id: 'OA-1-U1' }] }),
      { 'idempotency-key': newKey() },
    );
    expect(created.statusCode).toBe(201);
    check('PropertyBlock', created.json().data);
    const booking = await ctx.api(integration.apiKey, 'POST', '/bookings', bookingBody(ctx, { externalId: 'OA-1', aliases: ['OA-1-U1'] }), {
      'idempotency-key': newKey(),
    });
    expect(booking.statusCode).toBe(201);
    check('Booking', booking.json().data);
    const read = await ctx.api(integration.apiKey, 'GET', `/bookings/${booking.json().data.id}`);
    check('Booking', read.json().data);
    expect(read.headers.etag).toBe('"1"');
    const detail = await ctx.api(integration.apiKey, 'GET', '/properties/OA-1');
    check('PropertyDetail', detail.json().data);
    const today = new Date(ctx.deps.clock.nowMs() + 5.5 * 3600_000).toISOString().slice(0, 10);
    for (const [kind, name] of [
      ['availability', 'AvailabilitySnapshot'],
      ['rates', 'RatesSnapshot'],
      ['restrictions', 'RestrictionsSnapshot'],
    ] as const) {
      const res = await ctx.api(integration.apiKey, 'GET', `/properties/OA-1/${kind}?from=${today}&to=${today}`);
      expect(res.statusCode).toBe(200);
      check(name, res.json().data);
    }

    const events = await ctx.api(integration.apiKey, 'GET', '/events?after_sequence=0&limit=200');
    const rows = events.json().data;
    expect(rows.length).toBeGreaterThan(5);
    check('Cursor', events.json().cursor);
    for (const row of rows) check('EventRow', row);
    expect(new Set(rows.map((r: Any) => r.event.type))).toEqual(
      new Set(['property.changed', 'inventory.changed', 'availability.changed', 'rates.changed', 'restrictions.changed', 'booking.changed']),
    );

    const refused = await ctx.api(integration.apiKey, 'POST', '/properties', { name: '' }, { 'idempotency-key': newKey() });
    expect(refused.statusCode).toBe(422);
    check('ErrorEnvelope', refused.json());
    // the human-readable reference, from the same document
    const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const served = await ctx.app.inject({ method: 'GET', url: '/docs/json' });
    expect(served.json().components.schemas).toHaveProperty(['Booking']);

    // a wrong Event kind does not pass: the schema is not a blank cheque
    const validate = ajv.getSchema('openapi#/components/schemas/Event')!;
    expect(validate({ ...rows[0].event, type: 'rates.changed', data: 'nope' })).toBe(false);
  });
});
