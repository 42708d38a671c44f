import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_TOKEN } from '../helpers/context.js';
import { openRaw, spawnService, type Service } from './service.js';

/** Slow clients (slowloris) on raw sockets against the real process, REQUEST_TIMEOUT_SECONDS=2. */

let service: Service;
beforeAll(async () => {
  service = await spawnService({ DATABASE_URL: 'memory:', REQUEST_TIMEOUT_SECONDS: '2' });
  await service.ready();
}, 240_000);
afterAll(() => service?.stop());

function envelopeOf(answer: string) {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
}

describe('HTTP timeouts (real process)', { timeout: 240_000 }, () => {
  it('a client that sends its headers and stalls mid-body is answered 408 in the envelope and disconnected within the bound', async () => {
    const raw = await openRaw(service.port);
    raw.socket.write(
      `POST /api/staff/v1/brands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${STAFF_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": "sl`,
    );
    const took = await raw.closed;
    expect(took).toBeGreaterThan(1_500);
    expect(took).toBeLessThan(6_000); // the 2 s bound, Node's check every 0.5 s, a busy machine
    const answer = raw.received();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(envelopeOf(answer)).toMatchObject({ success: false, code: 'REQUEST_TIMEOUT' });
  });

  it('a client that never finishes its headers is answered 408 and disconnected within the bound', async () => {
    const raw = await openRaw(service.port);
    raw.socket.write('GET /api/integrations/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const took = await raw.closed;
    expect(took).toBeLessThan(6_000); // the 2 s bound, Node's check every 0.5 s, a busy machine
    const answer = raw.received();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(envelopeOf(answer)).toMatchObject({ success: false, code: 'REQUEST_TIMEOUT' });
  });

  it('a client sending slowly but finishing within the bound is served', async () => {
    const raw = await openRaw(service.port);
    const body = JSON.stringify({ name: 'Slow but in time' });
    raw.socket.write(
      `POST /api/staff/v1/brands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${STAFF_TOKEN}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    for (const ch of body.match(/.{1,8}/g)!) {
      await new Promise((r) => setTimeout(r, 100));
      raw.socket.write(ch);
    }
    await raw.closed;
    expect(raw.received()).toMatch(/^HTTP\/1\.1 201 /);
  });
});
