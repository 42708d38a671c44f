import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, STAFF_TOKEN } from '../helpers/context.js';
import { scratchDatabase, type ScratchDatabase } from '../webhooks/process.js';
import { openRaw, sleep, spawnService } from './service.js';

/**
 * SIGTERM on the real process with keep-alive clients connected: for SHUTDOWN_DRAIN_MS health
 * checks answer 503 while everything else is still served (idle keep-alive connections stay open,
 * each answer closes its connection), then stop accepting, answer what is in flight, exit 0.
 */

const DRAIN_MS = 1_500;

let scratch: ScratchDatabase;
beforeAll(async () => {
  scratch = await scratchDatabase(databaseUrl);
});
afterAll(() => scratch?.drop());

async function drainScenario(env: Record<string, string>) {
  const service = await spawnService({ ...scratch.env, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: String(DRAIN_MS), ...env });
  try {
    await service.ready();
    // a keep-alive client holding an idle connection (as a proxy's pool does)
    const idle = await openRaw(service.port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    for (let waited = 0; !idle.received().includes('"ok"') && waited < 10_000; waited += 20) await sleep(20);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(idle.received().toLowerCase()).toContain('connection: keep-alive');

    // a request in flight: headers sent and half of the body, the rest after SIGTERM
    const body = JSON.stringify({ name: 'Created during shutdown' });
    const raw = await openRaw(service.port);
    raw.socket.write(
      `POST /api/staff/v1/brands HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${STAFF_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(200);

    const sent = performance.now();
    service.child.kill('SIGTERM');
    const single = !env.WORKERS;
    const waitForLog = async (text: string) => {
      for (let waited = 0; !service.stdout().includes(text) && waited < 20_000; waited += 20) await sleep(20);
      expect(service.stdout()).toContain(text);
    };
    await waitForLog('draining: health checks answer 503');
    if (!single) await sleep(300); // the primary has forwarded the signal; the other worker too

    // the drain: health checks 503, the idle connection still served (then closed), new requests served
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await idle.closed;
    const second = idle.received().slice(idle.received().indexOf('HTTP/1.1', 10));
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second.toLowerCase()).toContain('connection: close');
    expect(second).toContain('"SHUTTING_DOWN"');
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { code: string }).code).toBe('SHUTTING_DOWN');
    const served = await fetch(`${service.url}/api/staff/v1/brands`, { headers: { authorization: `Bearer ${STAFF_TOKEN}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get('connection')).toBe('close');
    await served.arrayBuffer();
    expect(performance.now() - sent).toBeLessThan(DRAIN_MS); // all of it within the drain

    // the rest of the body once the process has stopped accepting
    await waitForLog('finishing requests in flight');
    raw.socket.write(body.slice(10));
    await raw.closed; // the server closes it after the answer
    const { code, signal } = await service.exited;
    const took = performance.now() - sent;

    const answer = raw.received();
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"Created during shutdown"');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(took).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(took).toBeLessThan(DRAIN_MS + 5_000);
    // nothing listens any more
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    console.log(`shutdown took ${Math.round(took)} ms`);
    return took;
  } finally {
    await service.stop();
  }
}

describe('graceful shutdown (real process)', { timeout: 240_000 }, () => {
  it('SIGTERM: health 503 for the drain while requests are served, then the request in flight answered, exit 0', async () => {
    await drainScenario({});
  });

  // A drain this long would outlast the test's timeout: an exit at all shows the drain was skipped or ended.
  const LONG_DRAIN = { SHUTDOWN_DRAIN_MS: '120000' };

  async function interrupted(env: Record<string, string>) {
    const service = await spawnService({ ...scratch.env, LOG_LEVEL: 'info', ...LONG_DRAIN, ...env });
    try {
      await service.ready();
      service.child.kill('SIGINT');
      expect(await service.exited).toEqual({ code: 0, signal: null });
      expect(service.stdout()).toContain('shutting down: finishing requests in flight');
      expect(service.stdout()).not.toContain('draining:');
      expect(service.stdout()).toContain('"msg":"stopped"');
    } finally {
      await service.stop();
    }
  }

  it('SIGINT (Ctrl-C at a terminal) stops at once: no drain, whatever SHUTDOWN_DRAIN_MS says, exit 0', { timeout: 60_000 }, async () => {
    await interrupted({});
  });

  it.runIf(databaseUrl)('WORKERS=2: the primary passes SIGINT on, and its workers stop without a drain (PostgreSQL)', { timeout: 90_000 }, async () => {
    await interrupted({ WORKERS: '2' });
  });

  it('SIGINT during a SIGTERM drain ends the drain and stops, exit 0', { timeout: 60_000 }, async () => {
    const service = await spawnService({ ...scratch.env, LOG_LEVEL: 'info', ...LONG_DRAIN });
    try {
      await service.ready();
      service.child.kill('SIGTERM');
      for (let waited = 0; !service.stdout().includes('draining: health checks answer 503') && waited < 20_000; waited += 20) await sleep(20);
      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(503);
      await health.arrayBuffer();
      service.child.kill('SIGINT');
      expect(await service.exited).toEqual({ code: 0, signal: null });
      expect(service.stdout()).toContain('drain ended early');
      expect(service.stdout()).toContain('"msg":"stopped"');
    } finally {
      await service.stop();
    }
  });

  it.runIf(databaseUrl)('WORKERS=2: the primary forwards SIGTERM and waits for its workers to drain (PostgreSQL)', async () => {
    await drainScenario({ WORKERS: '2' });
  });
});
