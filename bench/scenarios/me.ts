/** Item 5: GET /me against a bare Fastify JSON route. */
import { setupIntegration } from '../lib/api.js';
import { load, type LoadResult } from '../lib/load.js';
import type { Service } from '../lib/processes.js';
import { measureHooks, SECONDS, WARMUP_SECONDS, type ProfileSession } from './common.js';

const CONNECTIONS = 20;

/** The baseline: the bare route of bench/lib/baseline-server.mjs, same client, same connections. */
export function baselineMe(baselineBase: string): Promise<LoadResult> {
  return load({ url: `${baselineBase}/me`, connections: CONNECTIONS, durationSeconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
}

/** GET /me with one integration's key, 20 connections (RATE_LIMITS=off: its tier is 60 a minute). */
export async function meLoad(service: Service, session: ProfileSession | null, windowName: string, pgUrl?: string) {
  const integration = await setupIntegration(service.base, { name: `Bench me ${Math.random().toString(36).slice(2, 8)}` });
  const hooks = measureHooks(service.pid, session, windowName, pgUrl);
  const result = await load({
    url: `${service.base}/api/integrations/v1/me`,
    connections: CONNECTIONS,
    durationSeconds: SECONDS,
    warmupSeconds: WARMUP_SECONDS,
    headers: { authorization: `Bearer ${integration.apiKey}`, accept: 'application/json' },
    ...hooks,
  });
  return { result, cores: hooks.cores() };
}
