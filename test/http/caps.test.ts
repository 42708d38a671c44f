import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../src/app.js';
import { checkJsonShape, MAX_ARRAY_ENTRIES, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/http/caps.js';
import { createTestContext, failure, type TestContext, type TestIntegration } from '../helpers/context.js';
import { call, freshAddress, rateHeaders } from './rate-limit.helpers.js';

let ctx: TestContext;
let integration: TestIntegration;
let port: number;

beforeAll(async () => {
  ctx = await createTestContext();
  integration = await ctx.createIntegration();
  port = Number(new URL(await ctx.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => ctx.close());

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** Body bytes the client managed to write before the answer came. */
  written: number;
}

/**
 * Raw HTTP over a socket, for what app.inject cannot send: a chunked body without Content-Length,
 * oversized headers, malformed HTTP. Stops writing once an answer arrives.
 */
function raw(head: string, chunked?: { chunks: number; size: number }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let written = 0;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      socket.destroy();
      const [headers, ...body] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]);
      resolve({ status, headers, body: body.join('\r\n\r\n'), written });
    };
    socket.on('data', (data) => {
      text += data.toString();
      const [headers, ...rest] = text.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? NaN);
      if (rest.length > 0 && Buffer.byteLength(rest.join('\r\n\r\n')) >= length) finish();
    });
    socket.on('close', finish);
    socket.on('error', (error) => (text ? finish() : reject(error)));
    socket.write(head);
    if (!chunked) return;
    const chunk = `${chunked.size.toString(16)}\r\n${'7'.repeat(chunked.size)}\r\n`;
    let sent = 0;
    const pump = () => {
      while (!finished && !text && sent < chunked.chunks) {
        sent++;
        written += chunked.size;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (sent === chunked.chunks && !finished) socket.write('0\r\n\r\n');
    };
    pump();
  });
}

const API = '/api/integrations/v1';

describe('bodies over 1 MiB: 413 PAYLOAD_TOO_LARGE', () => {
  it('with Content-Length', async () => {
    const res = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', { ip: freshAddress(), body: { description: 'x'.repeat(BODY_LIMIT) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual(failure('PAYLOAD_TOO_LARGE'));
    rateHeaders(res);
  });

  it('chunked, without Content-Length: refused once 1 MiB has arrived, the rest is not read', async () => {
    const answer = await raw(
      `PUT ${API}/properties/999999 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${integration.apiKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      { chunks: 1024, size: 64 * 1024 }, // 64 MiB offered
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(failure('PAYLOAD_TOO_LARGE'));
    expect(answer.headers).toMatch(/\r\nx-ratelimit-limit: \d+/i);
    // socket buffers absorb a few MiB; the server did not swallow the 64 offered
    expect(answer.written).toBeLessThan(32 * 1024 * 1024);
  });

  it('chunked and within the limit: accepted like any body', async () => {
    const answer = await raw(
      `PUT ${API}/properties/999999 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${integration.apiKey}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        '2\r\n{}\r\n0\r\n\r\n',
    );
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual(failure('NOT_FOUND'));
  });
});

describe('JSON shape caps, checked before parsing', () => {
  const nested = (levels: number, inner = '0') => '['.repeat(levels) + inner + ']'.repeat(levels);

  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels with 400 INVALID_JSON, however deep`, async () => {
    for (const levels of [MAX_JSON_DEPTH + 1, 100_000, 500_000]) {
      const res = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', { ip: freshAddress(), body: `{"units":${nested(levels - 1)}}` });
      expect(res.statusCode, `${levels} levels`).toBe(400);
      expect(res.json()).toEqual(failure('INVALID_JSON'));
      expect(res.json().message).toContain(String(MAX_JSON_DEPTH));
    }
  });

  it(`accepts ${MAX_JSON_DEPTH} levels, and brackets inside strings do not count`, async () => {
    const atLimit = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', {
      ip: freshAddress(),
      body: `{"units":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    // parsed, then refused by the route's validation (units must be objects)
    expect(atLimit.statusCode).toBe(422);
    expect(atLimit.json()).toMatchObject(failure('VALIDATION_FAILED'));
    const inString = JSON.stringify({ name: '[{'.repeat(5000), description: 'a\\"[[[[\\' + '['.repeat(100) });
    expect(checkJsonShape(inString)).toBeNull();
    const res = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', { ip: freshAddress(), body: inString });
    expect(res.statusCode).toBe(422);
    expect(Object.keys(res.json().errors)).toEqual(['name']);
  });

  it(`refuses an array of more than ${MAX_ARRAY_ENTRIES} entries with 413, and leaves shorter ones to validation`, async () => {
    const over = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', {
      ip: freshAddress(),
      body: { units: Array(MAX_ARRAY_ENTRIES + 1).fill({}) },
    });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual(failure('PAYLOAD_TOO_LARGE'));
    expect(over.json().message).toContain(String(MAX_ARRAY_ENTRIES));

    // a long array of wrong items on a validated field: a 422 on the field, not one error per item
    const staff = await ctx.staff('POST', '/integrations', { brand_id: 1, name: 'x', webhook: { event_types: Array(MAX_ARRAY_ENTRIES).fill(1) } });
    expect(staff.statusCode).toBe(422);
    expect(staff.json()).toMatchObject(failure('VALIDATION_FAILED'));
    const tooMany = await ctx.staff('POST', '/integrations', { brand_id: 1, name: 'x', webhook: { event_types: Array(MAX_ARRAY_ENTRIES + 1).fill(1) } });
    expect(tooMany.statusCode).toBe(413);
  });

  it(`refuses a body of more than ${MAX_JSON_VALUES} values with 413`, async () => {
    const rows = Math.ceil(MAX_JSON_VALUES / 500) + 1;
    const body = JSON.stringify({ units: Array.from({ length: rows }, () => Array(500).fill(0)) });
    expect(body.length).toBeLessThan(BODY_LIMIT);
    const res = await call(ctx.app, integration.apiKey, 'PUT', '/properties/999999', { ip: freshAddress(), body });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toContain(String(MAX_JSON_VALUES));
  });

  it('lets the largest legitimate body through: a bulk update of 25 properties with 50 units, every field set', async () => {
    const property = (i: number) => ({
      doorloom_id: 900_000 + i,
      external_id: `prop-${i}`,
      name: 'N'.repeat(255),
      property_type: 'villa',
      property_category: 'vacation_rental',
      description: 'D'.repeat(2000),
      address: {
        address_line_1: 'a',
        address_line_2: 'b',
        landmark: 'c',
        city: 'd',
        state: 'e',
        country: 'India',
        pin_code: '400001',
        latitude: 19.07,
        longitude: 72.87,
        formatted_address: 'f',
      },
      space: { bedrooms: 3, washrooms: 2 },
      occupancy: { min_guests: 1, max_guests: 6 },
      pricing: {
        weekday: { base_price: 1000, per_night_occupancy: 2, extra_adult_price: 100, extra_child_price: 50 },
        weekend: { base_price: 1200, per_night_occupancy: 2, extra_adult_price: 100, extra_child_price: 50 },
      },
      units: Array.from({ length: 50 }, (_, u) => ({
        inventory_id: u + 1,
        external_id: `u-${i}-${u}`,
        name: `Unit ${u}`,
        code: 'C',
        max_occupancy: 2,
        is_active: true,
      })),
      features: { is_private: true, is_pet_friendly: true, max_pets: 2, pet_charges: 100, is_veg: false, is_smoking_in_rooms: false },
    });
    const body = JSON.stringify({ properties: Array.from({ length: 25 }, (_, i) => property(i)) });
    expect(checkJsonShape(body)).toBeNull();
    const res = await call(ctx.app, integration.apiKey, 'PUT', '/properties/bulk', { ip: freshAddress(), body });
    expect([200, 422]).toContain(res.statusCode);
  });

  /** `{"0":0,"1":0,…}` with distinct keys, as close to 1 MiB as it gets. */
  const manyKeys = () => {
    const members: string[] = [];
    let size = 2;
    for (let i = 0; size + 12 < BODY_LIMIT; i++) {
      const member = `"${i.toString(36)}":0`;
      members.push(member);
      size += member.length + 1;
    }
    return `{${members.join(',')}}`;
  };

  it('answers worst-case 1 MiB shapes with a small envelope', async () => {
    const fresh = await ctx.createIntegration();
    const fill = (unit: string) => unit.repeat(Math.floor((BODY_LIMIT - 16) / unit.length));
    const shapes = {
      deep: '['.repeat(BODY_LIMIT / 2 - 1) + ']'.repeat(BODY_LIMIT / 2 - 1),
      wide: `[${fill('0,')}0]`,
      objects: `[${fill('{},')}{}]`,
      keys: manyKeys(),
      string: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT - 32) }),
    };
    for (const [name, body] of Object.entries(shapes)) {
      expect(Buffer.byteLength(body), name).toBeLessThanOrEqual(BODY_LIMIT);
      for (const [method, path] of [
        ['PUT', '/properties/bulk'],
        ['POST', '/bookings'],
      ] as const) {
        const res = await call(ctx.app, fresh.apiKey, method, path, { ip: freshAddress(), body, headers: { 'idempotency-key': `caps-${name}-0001` } });
        expect([400, 413, 422], `${name} → ${method} ${path}: ${res.statusCode}`).toContain(res.statusCode);
        expect(res.json()).toMatchObject({ success: false, code: expect.any(String), message: expect.any(String) });
        expect(res.body.length, `${name} → ${method} ${path}`).toBeLessThan(64 * 1024);
      }
    }
  });
});

describe('absurd requests answer in the envelope', () => {
  it('431 HEADERS_TOO_LARGE for headers or a request line over 16 KiB', async () => {
    const big = 'x'.repeat(20_000);
    for (const head of [
      `GET ${API}/me HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${big}\r\n\r\n`,
      `GET ${API}/me?q=${big} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    ]) {
      const answer = await raw(head);
      expect(answer.status).toBe(431);
      expect(JSON.parse(answer.body)).toEqual(failure('HEADERS_TOO_LARGE'));
    }
  });

  it('400 BAD_REQUEST for malformed HTTP and malformed percent-encoding in the path', async () => {
    const answer = await raw('NONSENSE\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual(failure('BAD_REQUEST'));
    const res = await call(ctx.app, integration.apiKey, 'GET', '/properties/%E0%A4%A', { ip: freshAddress() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(failure('BAD_REQUEST'));
  });

  it("a refusal of the docs' static files keeps its status, with the table's code for it", async () => {
    const file = '/docs/static/swagger-ui.css';
    expect((await ctx.app.inject({ method: 'GET', url: file })).statusCode).toBe(200);
    const range = await ctx.app.inject({ method: 'GET', url: file, headers: { range: 'bytes=999999999-' } });
    expect([range.statusCode, range.json()]).toEqual([416, failure('RANGE_NOT_SATISFIABLE')]);
    const precondition = await ctx.app.inject({ method: 'GET', url: file, headers: { 'if-match': '"another"' } });
    expect([precondition.statusCode, precondition.json()]).toEqual([412, failure('PRECONDITION_FAILED')]);
  });

  it('414 URI_TOO_LONG for a path segment over 500 characters', async () => {
    const res = await call(ctx.app, integration.apiKey, 'GET', `/bookings/external/${'x'.repeat(501)}`, { ip: freshAddress() });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual(failure('URI_TOO_LONG'));
  });

  it('repeated or huge query parameters are a 422 on the parameter or ignored, never a 5xx', async () => {
    const repeated = await call(ctx.app, integration.apiKey, 'GET', '/events?limit=1&limit=2', { ip: freshAddress() });
    expect(repeated.statusCode).toBe(422);
    expect(Object.keys(repeated.json().errors)).toEqual(['limit']);
    const huge = await call(ctx.app, integration.apiKey, 'GET', `/events?limit=${'9'.repeat(400)}`, { ip: freshAddress() });
    expect(huge.statusCode).toBe(422);
    expect(Object.keys(huge.json().errors)).toEqual(['limit']);
    const junk = await call(ctx.app, integration.apiKey, 'GET', `/events?${'a=1&'.repeat(3000)}`, { ip: freshAddress() });
    expect(junk.statusCode).toBe(200);
  });
});
