import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { startProcess } from '../../src/background.js';
import { createRuntime } from '../../src/runtime.js';
import { createTestContext, databaseUrl, type TestContext } from '../helpers/context.js';

/**
 * Verified API keys are cached briefly; a rotation or a disable must still take effect at once, in
 * this process and (PostgreSQL) in another process sharing the database.
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const me = (app: TestContext['app'], key: string) => app.inject({ method: 'GET', url: '/api/integrations/v1/me', headers: { authorization: `Bearer ${key}` } });

describe('API key cache', () => {
  it('a rotated key stops at once even though it was just used', async () => {
    const integration = await ctx.createIntegration();
    expect((await me(ctx.app, integration.apiKey)).statusCode).toBe(200);
    const rotated = (await ctx.staff('POST', `/integrations/${integration.id}/api-key/rotate`)).json().data.api_key;
    expect((await me(ctx.app, integration.apiKey)).statusCode).toBe(401);
    expect((await me(ctx.app, rotated)).statusCode).toBe(200);
  });

  it('a disable applies at once even though the key was just used', async () => {
    const integration = await ctx.createIntegration();
    expect((await me(ctx.app, integration.apiKey)).statusCode).toBe(200);
    await ctx.staff('PATCH', `/integrations/${integration.id}`, { status: 'disabled' });
    expect((await me(ctx.app, integration.apiKey)).json().code).toBe('INTEGRATION_DISABLED');
  });

  // Embedded, one process owns the database: there is no other process to tell.
  it.runIf(databaseUrl)('another process forgets a rotated key as soon as it is told (PostgreSQL)', async () => {
    // Another process: a runtime of its own (its own key cache) on the same database.
    const { deps, database } = await createRuntime(ctx.deps.config, pino({ level: 'silent' }), { schema: ctx.schema, poolSize: 2 });
    const other = await buildApp(deps);
    const listener = await startProcess(deps, { background: false });
    try {
      const integration = await ctx.createIntegration();
      // the listener connects in the background: wait until the other process answers, cached
      expect((await me(other, integration.apiKey)).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await me(other, integration.apiKey)).statusCode).toBe(200);
      await ctx.staff('POST', `/integrations/${integration.id}/api-key/rotate`);
      let status = 200;
      for (let i = 0; i < 40 && status === 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        status = (await me(other, integration.apiKey)).statusCode;
      }
      expect(status).toBe(401);
    } finally {
      await listener.stop();
      await other.close();
      await database.close();
    }
  });
});
