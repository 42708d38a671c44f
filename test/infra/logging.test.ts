import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { spawnService } from './service.js';

/** What operators see: the start-up lines, and request logs naming the integration. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('logs', { timeout: 240_000 }, () => {
  it('every log line of an authenticated request, its completion included, carries integration_id', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = await buildApp(ctx.deps, { logger: pino({ level: 'info' }, sink) });
    try {
      const integration = await ctx.createIntegration();
      const res = await app.inject({
        method: 'GET',
        url: '/api/integrations/v1/me',
        headers: { authorization: `Bearer ${integration.apiKey}`, 'x-request-id': 'log-test-1' },
      });
      expect(res.statusCode).toBe(200);
      const completed = lines.find((l) => l.reqId === 'log-test-1' && l.msg === 'request completed');
      expect(completed).toMatchObject({ integration_id: integration.id, res: { statusCode: 200 } });
      // an unauthenticated request has no integration to name
      await app.inject({ method: 'GET', url: '/api/integrations/v1/me', headers: { 'x-request-id': 'log-test-2' } });
      const refused = lines.find((l) => l.reqId === 'log-test-2' && l.msg === 'request completed');
      expect(refused).toBeDefined();
      expect(refused).not.toHaveProperty('integration_id');
    } finally {
      await app.close();
    }
  });

  it('the start-up log names the engine, the migrations applied, the listen address and the background work', async () => {
    const service = await spawnService({ DATABASE_URL: 'memory:', LOG_LEVEL: 'info' });
    try {
      await service.ready();
      // the service can answer before its own stdout has reached this process: wait for the line
      const lines = await vi.waitFor(
        () => {
          const parsed = service
            .stdout()
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l));
          if (!parsed.some((l) => String(l.msg).startsWith('listening on'))) throw new Error('no "listening on" line yet');
          return parsed;
        },
        { timeout: 10_000, interval: 50 },
      );
      const database = lines.find((l) => String(l.msg).startsWith('database ready'));
      expect(database).toMatchObject({ engine: 'pglite', database: 'memory' });
      expect(database.migrationsApplied).toContain('2026_11_22_0001_foundation');
      const listening = lines.find((l) => String(l.msg).startsWith('listening on'));
      expect(listening).toMatchObject({ address: service.url, engine: 'pglite', background: true });
    } finally {
      await service.stop();
    }
  });
});
