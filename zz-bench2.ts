import http from 'node:http';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import pg from 'pg';
import { loadConfig } from '/work/main/src/config.js';
import { createRuntime } from '/work/main/src/runtime.js';
import { appendEvents } from '/work/main/src/modules/events/events.log.js';
import { createBrand, createIntegration } from '/work/main/src/modules/integrations/integrations.service.js';
import { startDeliveryWorker } from '/work/main/src/modules/webhooks/webhooks.worker.js';

const engine = process.argv[2] ?? 'pglite';
const rounds = Number(process.argv[3] ?? 3);
const payload = { total_units: 3, units: [], dates: Array.from({ length: 30 }, (_, i) => ({ date: `2026-12-${String(i + 1).padStart(2, '0')}`, available_units: 3, total_units: 3, is_blocked: false, block_scope: null, units_cap: null })) };
let count = 0; let waiters: Array<() => void> = [];
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => { count++; res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); if (waiters.length) for (const w of waiters.splice(0)) w(); }); });
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as any).port}`;
const until = (n: number) => new Promise<void>((resolve) => { const check = () => (count >= n ? resolve() : waiters.push(check)); check(); });
const body = JSON.stringify({ id: 'x'.repeat(26), type: 'availability.changed', sequence: 1, data: payload });
const agent = new http.Agent({ keepAlive: true });
const post = () => new Promise<void>((resolve, reject) => { const req = http.request(url + '/bare', { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => { res.resume(); res.on('end', resolve); }); req.on('error', reject); req.end(body); });

let dbUrl = 'memory:'; let dropDb: (() => Promise<void>) | null = null;
if (engine === 'pg') {
  const name = `dl_bench_${randomBytes(3).toString('hex')}`;
  const c = new pg.Client('postgres://root@127.0.0.1:5432/test'); await c.connect(); await c.query(`create database ${name}`); await c.end();
  dbUrl = `postgres://root@127.0.0.1:5432/${name}`;
  dropDb = async () => { const c = new pg.Client('postgres://root@127.0.0.1:5432/test'); await c.connect(); await c.query(`drop database ${name} with (force)`); await c.end(); };
}
const config = loadConfig({ DATABASE_URL: dbUrl, SECRETS_KEY: randomBytes(32).toString('hex'), WEBHOOK_ALLOW_INSECURE: '1', LOG_LEVEL: 'silent', STAFF_TOKEN: 'dls_x' });
const { deps, database } = await createRuntime(config, pino({ level: 'silent' }));
const brand = await createBrand(deps, 'Bench');
async function seed(n: number, eventsEach: number) {
  const ids: number[] = [];
  for (let k = 0; k < n; k++) {
    const { integration } = await createIntegration(deps, { brand_id: brand.id, name: `bench ${k} ${randomBytes(3).toString('hex')}`, webhook: { url: `${url}/hook${k}` } });
    ids.push(integration.id);
    for (let done = 0; done < eventsEach; done += 1000) { const m = Math.min(1000, eventsEach - done); await deps.db.transaction().execute((trx) => appendEvents(trx, { clock: deps.clock, propertyId: null, actorIntegrationId: null, onlyIntegrationId: integration.id, build: () => Array.from({ length: m }, () => ({ type: 'availability.changed' as const, data: payload })) })); }
  }
  return ids;
}
for (let i = 0; i < 300; i++) await post();
const N = 3000; const ratios: number[] = [];
const mode = process.argv[4] ?? 'single';
for (let r = 0; r < rounds; r++) {
  const ids = mode === 'single' ? await seed(1, N) : await seed(50, 200);
  const total = mode === 'single' ? N : 10000;
  let t = performance.now();
  for (let i = 0; i < 2000; i++) await post();
  const bare = 2000 / ((performance.now() - t) / 1000);
  count = 0; t = performance.now();
  const worker = startDeliveryWorker(deps, { pollMs: 60_000 });
  const inspector = await import('node:inspector/promises'); const session = new inspector.Session();
  const prof = process.env.PROFILE && r === rounds - 1;
  if (prof) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start'); }
  worker.kick(ids); await until(total);
  if (prof) { const { profile } = await session.post('Profiler.stop') as any; (await import('node:fs')).writeFileSync('/tmp/prof/delivery.cpuprofile', JSON.stringify(profile)); }
  await worker.stop();
  const ours = total / ((performance.now() - t) / 1000);
  ratios.push(ours / bare);
  console.log(`${engine} ${mode} round ${r}: bare ${bare.toFixed(0)}/s, worker ${ours.toFixed(0)}/s, ratio ${(100 * ours / bare).toFixed(0)}%`);
  await new Promise((r) => setTimeout(r, 300));
}
ratios.sort(); console.log(`median ratio ${(100 * ratios[Math.floor(ratios.length / 2)]).toFixed(0)}%`);
await database.close(); if (dropDb) await dropDb(); server.close(); agent.destroy();
