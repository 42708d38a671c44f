import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrand } from '../../src/modules/integrations/integrations.service.js';
import { createIntegration } from '../../src/modules/accounts/accounts.service.js';
import { databaseUrl } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createBody } from '../properties/fixtures.js';
import { scratchDatabase, startServer, withRuntime, type ScratchDatabase, type ServerProcess } from './process.js';

// Cross-process wake-up (PostgreSQL only: PGlite lives inside one process). Process A serves the
// API without background work (NO_BACKGROUND=1); process B delivers. A's commit notifies (pg_notify
// inside the transaction) and B's listener wakes its worker at once, instead of on its scan
// (5 s while the listener is up).

let receiver: Receiver;
const servers: ServerProcess[] = [];
let database: ScratchDatabase | null = null;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
  await receiver.close();
  await database?.drop();
});

describe.runIf(databaseUrl)('cross-process wake-up', () => {
  it('a write taken by a process without background work is delivered by another at once', async () => {
    database = await scratchDatabase(databaseUrl);
    const integration = await withRuntime(database, async (deps) => {
      const brand = await createBrand(deps, 'Wake Brand');
      const { integration, api_key } = await createIntegration(deps, { brand_id: brand.id, name: 'Wake', webhook: { url: `${receiver.url}/wake` } });
      return { slug: integration.slug, apiKey: api_key };
    });
    const a = await startServer(database, { NO_BACKGROUND: '1' });
    const b = await startServer(database);
    servers.push(a, b);
    await Promise.all([a.ready(), b.ready()]);

    let created = 0;
    /** A property create through A; resolves with the time its 201 arrived and the events it recorded. */
    const createThroughA = async () => {
      const res = await fetch(`${a.url}/api/integrations/v1/properties`, {
        method: 'POST',
        headers: { authorization: `Bearer ${integration.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `wake-${++created}-${Math.random()}` },
        body: JSON.stringify(createBody({ name: `Villa ${created}` })),
      });
      const answeredAt = performance.now();
      expect(res.status).toBe(201);
      return answeredAt;
    };
    const lastSequence = async () =>
      (await (await fetch(`${a.url}/api/integrations/v1/me`, { headers: { authorization: `Bearer ${integration.apiKey}` } })).json()).data.webhook
        .last_sequence as number;
    const received = (sequence: number) => receiver.of(integration.slug).some((r) => r.json.sequence === sequence);

    // Warm-up: B's listener is up once a write of A reaches the receiver without the scan's help
    // (it may take one scan while the LISTEN connection starts).
    await createThroughA();
    const warm = await lastSequence();
    await receiver.waitFor(() => received(warm), 30_000, 'the warm-up events');

    const delays: number[] = [];
    for (let k = 0; k < 5; k++) {
      const before = await lastSequence();
      const answeredAt = await createThroughA();
      await receiver.waitFor(() => received(before + 1), 15_000, `the first event after sequence ${before}`);
      delays.push(performance.now() - answeredAt);
      const after = await lastSequence();
      await receiver.waitFor(() => received(after), 15_000, 'the rest of the events');
    }
    delays.sort((x, y) => x - y);
    // Without the notification B would find the write on its next scan, 5 s apart.
    expect(delays[2], `delays from A's 201 to the first event at the receiver: ${delays.map((d) => d.toFixed(1)).join(', ')} ms`).toBeLessThan(500);
    expect(delays[4]).toBeLessThan(2_500);

    // Every event went out from B, in order.
    const workers = await withRuntime(database, (deps) => deps.db.selectFrom('delivery_attempts').select('worker').distinct().execute());
    expect(workers).toHaveLength(1);
    const last = await lastSequence();
    expect(receiver.of(integration.slug).map((r) => r.json.sequence)).toEqual(Array.from({ length: last }, (_, i) => i + 1));

    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 120_000);
});
