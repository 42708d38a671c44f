/**
 * Measures a 25-item POST /properties/bulk through the HTTP stack (app.inject): time until the
 * response, by which point all ~1,000 initial-state events are committed (they are written in the
 * same transactions). Not a test and not a benchmark gate: it prints figures.
 *
 *   npx tsx test/properties/measure-bulk.ts                                   # embedded PGlite
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npx tsx test/properties/measure-bulk.ts
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { API_PREFIX, STAFF_PREFIX, buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { ensureStaffToken } from '../../src/modules/integrations/integrations.service.js';
import { createRuntime } from '../../src/runtime.js';

const STAFF = 'dls_MeasureStaffToken00000000000000000000000';
const url = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : null;
const rounds = Number(process.env.ROUNDS ?? 5);

const schema = `measure_${randomBytes(4).toString('hex')}`;
const config = loadConfig({ DATABASE_URL: url ?? 'memory:', STAFF_TOKEN: STAFF, LOG_LEVEL: 'silent', SECRETS_KEY: randomBytes(32).toString('hex') });
const { deps, database } = await createRuntime(config, pino({ level: 'silent' }), { schema });
await ensureStaffToken(deps);
const app = await buildApp(deps);
await app.ready();

const inject = (prefix: string, token: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method,
    url: prefix + path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', ...headers },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });

const brand = (await inject(STAFF_PREFIX, STAFF, 'POST', '/brands', { name: 'Measure' })).json().data.id;
const item = (i: number) => ({
  external_id: `M-${i}`,
  name: `Measure ${i}`,
  description: 'Measured property.',
  address: { address_line_1: '1 Road', city: 'Goa', state: 'Goa', pin_code: '403001' },
  space: { bedrooms: 2, washrooms: 2 },
  occupancy: { max_guests: 4 },
  pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
  units: [
    { name: 'A', external_id: `M-${i}-A` },
    { name: 'B', external_id: `M-${i}-B` },
  ],
});

const figures: number[] = [];
let events = 0;
for (let round = 0; round < rounds + 1; round++) {
  const created = await inject(STAFF_PREFIX, STAFF, 'POST', '/integrations', { brand_id: brand, name: `Measure ${round}` });
  const { integration, api_key: apiKey } = created.json().data;
  const started = process.hrtime.bigint();
  const res = await inject(
    API_PREFIX,
    apiKey,
    'POST',
    '/properties/bulk',
    { properties: Array.from({ length: 25 }, (_, i) => item(i)) },
    {
      'idempotency-key': `measure-${round}-${randomBytes(4).toString('hex')}`,
    },
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (res.statusCode !== 201) throw new Error(`bulk failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  const row = await deps.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('integration_id', '=', integration.id)
    .executeTakeFirstOrThrow();
  events = Number(row.n);
  if (round > 0) figures.push(ms); // round 0 warms up (JIT, plan caches)
}
figures.sort((a, b) => a - b);
const median = figures[Math.floor(figures.length / 2)];
process.stdout.write(
  `${database.engine}: 25-item bulk create, ${events} events recorded; median ${median.toFixed(0)} ms ` +
    `(min ${figures[0].toFixed(0)}, max ${figures[figures.length - 1].toFixed(0)}, ${rounds} rounds after a warm-up)\n`,
);
await app.close();
await database.db.schema
  .dropSchema(schema)
  .ifExists()
  .cascade()
  .execute()
  .catch(() => {});
await database.close();
