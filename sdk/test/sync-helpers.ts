import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProcess, type ProcessWork } from '../../src/background.js';
import { addDays, horizonEnd, kolkataDate } from '../../src/lib/time.js';
import { createTestContext, type TestContext, type TestIntegration } from '../../test/helpers/context.js';
import { createDoorloomClient } from '../src/client/index.js';
import type { SyncStore } from '../src/store/store.js';
import { WINDOWED_KINDS, type SyncApi } from '../src/sync/api.js';
import { clientSyncApi } from '../src/sync/client-api.js';
import { chunkWindow } from '../src/sync/dates.js';
import { SyncEngine, type SyncEngineOptions } from '../src/sync/engine.js';
import { webhookHandler } from '../src/sync/receiver.js';
import { createWebhookVerifier } from '../src/webhooks.js';

/** The service on a real port with its background work (delivery, sync jobs, daily jobs, clock refresh). */
export interface Service {
  baseUrl: string;
  background: ProcessWork;
  stop(): Promise<void>;
}

export async function startService(ctx: TestContext): Promise<Service> {
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const background = await startProcess(ctx.deps, { background: true });
  return {
    baseUrl: address,
    background,
    async stop() {
      await background.stop();
    },
  };
}

/** A test context (with `env`) and the service started on it, for a file's beforeAll; on failure nothing is left open. */
export async function openService(env: Record<string, string> = {}): Promise<{ ctx: TestContext; service: Service }> {
  const ctx = await createTestContext(env);
  try {
    return { ctx, service: await startService(ctx) };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

/** Stops the service, then closes its context, for a file's afterAll (neither is there when the beforeAll failed). */
export async function closeService({ ctx, service }: { ctx?: TestContext; service?: Service }): Promise<void> {
  await service?.stop();
  await ctx?.close();
}

/** The engine's calls over the SDK client against the service, with short client backoffs. */
export function serviceApi(service: Service, integration: TestIntegration): SyncApi {
  return clientSyncApi(createDoorloomClient({ baseUrl: service.baseUrl, apiKey: integration.apiKey, retry: { baseDelayMs: 20, maxDelayMs: 200 } }));
}

export function newEngine(api: SyncApi, store: SyncStore, options: Partial<SyncEngineOptions> = {}): SyncEngine {
  return new SyncEngine({ api, store, pollIntervalMs: 0, ...options });
}

/**
 * A webhook receiver in front of whichever engine `current()` returns; `before` may fail or delay
 * a delivery (chaos) before the engine sees it. Signatures are checked against the service's
 * clock, which is the partner's clock in a test whose clock moves.
 */
export async function startReceiver(
  ctx: TestContext,
  integration: TestIntegration,
  current: () => SyncEngine | null,
  before: () => Promise<'fail' | 'fail-after' | 'pass'> = async () => 'pass',
): Promise<{ url: string; received: () => number; answers: Map<number, number>; close(): Promise<void> }> {
  let count = 0;
  const verifier = createWebhookVerifier({ secrets: [integration.webhookSecret], now: () => ctx.deps.clock.nowMs() });
  const answers = new Map<number, number>();
  const server = http.createServer(async (req, res) => {
    count++;
    res.on('finish', () => answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1));
    const engine = current();
    const verdict = engine ? await before() : 'fail';
    if (!engine || verdict === 'fail') {
      req.resume();
      res.writeHead(500).end();
      return;
    }
    if (verdict === 'fail-after') {
      // stored, but the answer is lost: the service will deliver it again
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      if (verifier.accepts(raw, req.headers)) await engine.receive(JSON.parse(raw.toString('utf8'))).catch(() => {});
      res.writeHead(500).end();
      return;
    }
    await webhookHandler(engine, verifier.accepts)(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received: () => count,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function ok(ctx: TestContext, key: string, path: string) {
  const res = await ctx.api(key, 'GET', path);
  if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Every page of a listing. */
async function all(ctx: TestContext, key: string, path: string, pick: (body: { data: unknown }) => unknown[]) {
  const out: unknown[] = [];
  for (let page = 1; ; page++) {
    const body = await ok(ctx, key, `${path}${path.includes('?') ? '&' : '?'}page=${page}&per_page=200`);
    out.push(...pick(body));
    if (page >= body.pagination.last_page) return out;
  }
}

/**
 * Differences between the engine's mirror and the service now: GET /properties, GET /bookings and
 * the snapshots of every property and kind from today to the horizon's end. Empty when converged.
 */
/** The mirror's reads: the engine's own methods, or the CLI's /mirror endpoints. */
export interface MirrorReader {
  properties(): unknown[] | Promise<unknown[]>;
  bookings(): unknown[] | Promise<unknown[]>;
  window(kind: 'availability' | 'rates' | 'restrictions', propertyId: number, from: string, to: string): unknown;
}

/** The CLI's /mirror endpoints as a MirrorReader (with the mirror's read token when it has one). */
export function httpMirror(url: string, readToken?: string): MirrorReader {
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: readToken ? { authorization: `Bearer ${readToken}` } : {} });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  return {
    properties: () => get('/mirror/properties'),
    bookings: () => get('/mirror/bookings'),
    window: (kind, id, from, to) => get(`/mirror/properties/${id}/${kind}?from=${from}&to=${to}`),
  };
}

export async function differences(ctx: TestContext, integration: TestIntegration, engine: MirrorReader, horizonDays: number): Promise<string[]> {
  const out: string[] = [];
  const properties = (await all(ctx, integration.apiKey, '/properties', (b) => (b.data as { properties: unknown[] }).properties)) as Array<{
    doorloom_id: number;
  }>;
  const mirrorProperties = (await engine.properties()) as Array<{ doorloom_id: number }>;
  if (JSON.stringify(sortById(mirrorProperties, 'doorloom_id')) !== JSON.stringify(sortById(properties, 'doorloom_id'))) {
    out.push(`properties differ:\n  mirror  ${JSON.stringify(mirrorProperties)}\n  service ${JSON.stringify(properties)}`);
  }
  const bookings = (await all(ctx, integration.apiKey, '/bookings', (b) => b.data as unknown[])) as Array<{ id: number }>;
  const mirrorBookings = (await engine.bookings()) as Array<{ id: number }>;
  if (JSON.stringify(sortById(mirrorBookings, 'id')) !== JSON.stringify(sortById(bookings, 'id'))) {
    out.push(`bookings differ:\n  mirror  ${JSON.stringify(mirrorBookings)}\n  service ${JSON.stringify(bookings)}`);
  }
  const today = kolkataDate(ctx.deps.clock.now());
  for (const property of properties) {
    for (const kind of WINDOWED_KINDS) {
      for (const w of chunkWindow(today, horizonEnd(today, horizonDays), 92)) {
        const snapshot = (await ok(ctx, integration.apiKey, `/properties/${property.doorloom_id}/${kind}?from=${w.from}&to=${w.to}`)).data.data;
        const mirror = await engine.window(kind, property.doorloom_id, w.from, w.to);
        if (JSON.stringify(mirror) !== JSON.stringify(snapshot))
          out.push(`${kind} of ${property.doorloom_id} ${w.from}..${w.to} differs:\n  ${firstDifference(mirror, snapshot)}`);
      }
    }
  }
  return out;
}

function sortById<T>(list: T[], key: string): T[] {
  return [...list].sort((a, b) => Number((a as Record<string, unknown>)[key]) - Number((b as Record<string, unknown>)[key]));
}

/** A short description of where two JSON values first differ. */
function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (JSON.stringify(a) === JSON.stringify(b)) return '';
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path || '(root)'}: mirror ${JSON.stringify(a)?.slice(0, 300)} vs service ${JSON.stringify(b)?.slice(0, 300)}`;
}

/** Waits until `check` holds (polling); throws with `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export { addDays, kolkataDate };

const ROOT_DIR = path.resolve(import.meta.dirname, '../..');

export interface Cli {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** stdout alone. */
  stdout(): string;
  /** stderr alone. */
  stderr(): string;
  /** stdout and stderr as they arrived. */
  output(): string;
}

/**
 * `doorloom-partner …` run from source through tsx's loader, with only PATH, HOME and `env`
 * (`umask`: set by a shell that then execs the CLI, so signals still reach it).
 */
export function startCli(args: string[], env: Record<string, string> = {}, options: { umask?: string } = {}): Cli {
  const command = [process.execPath, '--import', 'tsx', 'sdk/src/cli/main.ts', ...args];
  const [file, argv] = options.umask ? ['sh', ['-c', `umask ${options.umask}; exec "$0" "$@"`, ...command]] : [command[0], command.slice(1)];
  const child = spawn(file, argv, { cwd: ROOT_DIR, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout.on('data', (c) => ((stdout += c), (output += c)));
  child.stderr.on('data', (c) => ((stderr += c), (output += c)));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
    child.on('error', reject);
  });
  return { child, exited, stdout: () => stdout, stderr: () => stderr, output: () => output };
}

/** `doorloom-partner …` run to its end (see startCli): its exit code, stdout and stderr. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = startCli(args, env);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
