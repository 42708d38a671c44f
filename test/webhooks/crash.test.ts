import { selectAppendTargets } from '../../src/modules/properties/properties.sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, unitOfWork } from '../../src/modules/events/events.log.js';
import { createBrand } from '../../src/modules/integrations/integrations.service.js';
import { createIntegration } from '../../src/modules/accounts/accounts.service.js';
import { databaseUrl } from '../helpers/context.js';
import { createBody } from '../properties/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { scratchDatabase, startServer, withRuntime, type ScratchDatabase, type ServerProcess } from './process.js';

// Real server processes (node + tsx running src/main.ts) on a database of their own: PGlite on
// disk when the suite runs embedded, PostgreSQL when DATABASE_URL is set.

// A killed holder's delivery claim passes to the next process once its lease expires: short here.
const LEASE = { WORK_LEASE_MS: '2000', WORK_LEASE_RENEW_MS: '400' };

let receiver: Receiver;
const servers: ServerProcess[] = [];
const databases: ScratchDatabase[] = [];

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 200, delayMs: 3 }));
});
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
  await receiver.close();
  for (const d of databases) await d.drop();
});

async function seedIntegrations(db: ScratchDatabase, names: string[], eventsEach: number) {
  return withRuntime(db, async (deps) => {
    const brand = await createBrand(deps, 'Crash Brand');
    const created = [];
    for (const name of names) {
      const { integration, api_key } = await createIntegration(deps, { brand_id: brand.id, name, webhook: { url: `${receiver.url}/${name}` } });
      created.push({ id: integration.id, slug: integration.slug, apiKey: api_key });
      if (eventsEach > 0) await appendMany(deps, integration.id, eventsEach);
    }
    return created;
  });
}

async function appendMany(deps: Parameters<Parameters<typeof withRuntime>[1]>[0], integrationId: number, count: number) {
  await unitOfWork(deps, async (trx) =>
    appendEvents(trx, {
      clock: deps.clock,
      propertyId: null,
      actorIntegrationId: null,
      targets: await selectAppendTargets(trx, null, integrationId),
      build: () => Array.from({ length: count }, (_, i) => ({ type: 'availability.changed' as const, data: { i } })),
    }),
  );
}

/** First-seen order of event ids, as sequences. */
function deduplicated(slug: string): number[] {
  const seen = new Set<string>();
  const out: number[] = [];
  for (const r of receiver.of(slug)) {
    if (seen.has(r.json.id)) continue;
    seen.add(r.json.id);
    out.push(r.json.sequence);
  }
  return out;
}

/** Never a jump forward: each request is at most one past the highest seen before it. */
function noGaps(slug: string): boolean {
  let high = 0;
  for (const r of receiver.of(slug)) {
    if (r.json.sequence > high + 1) return false;
    high = Math.max(high, r.json.sequence);
  }
  return true;
}

describe(`delivery survives processes (${databaseUrl ? 'PostgreSQL' : 'PGlite on disk'})`, () => {
  it('a server killed with SIGKILL mid-stream loses nothing: after a restart the receiver has 1…N in order (duplicates allowed)', async () => {
    const N = 400;
    const db = await scratchDatabase(databaseUrl);
    databases.push(db);
    const [integration] = await seedIntegrations(db, ['crash'], N);

    const first = await startServer(db, LEASE);
    servers.push(first);
    await receiver.waitFor(() => receiver.of(integration.slug).length >= 120, 120_000, 'the first 120 deliveries');
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = receiver.of(integration.slug).length;
    expect(atKill).toBeLessThan(N); // really mid-stream

    const second = await startServer(db, LEASE);
    servers.push(second);
    await receiver.waitFor(() => deduplicated(integration.slug).length === N, 120_000, 'every event after the restart');
    expect(deduplicated(integration.slug)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(noGaps(integration.slug)).toBe(true);
    expect(receiver.maxInFlight.get(integration.slug)).toBe(1);

    // the restarted server knows it is caught up
    await second.ready();
    const deadline = performance.now() + 10_000;
    let me;
    do {
      me = (await (await fetch(`${second.url}/api/integrations/v1/me`, { headers: { authorization: `Bearer ${integration.apiKey}` } })).json()).data;
      if (me.webhook.undelivered_events === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (performance.now() < deadline);
    expect(me.webhook).toMatchObject({ last_sequence: N, undelivered_events: 0 });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 240_000); // two embedded-database starts and 400 deliveries: minutes on a loaded machine

  // Several processes can share PostgreSQL only; PGlite lives inside a single process, so there is
  // nothing to share there (WORKERS above 1 is refused for it at start).
  it.runIf(databaseUrl)('two server processes on one PostgreSQL never have two deliveries of one integration in flight', async () => {
    const db = await scratchDatabase(databaseUrl);
    databases.push(db);
    const integrations = await seedIntegrations(db, ['pair-a', 'pair-b'], 0);
    const a = await startServer(db, LEASE);
    const b = await startServer(db, LEASE);
    servers.push(a, b);
    await Promise.all([a.ready(), b.ready()]);

    // Property creates record ~40 events each and wake delivery in the process that served them,
    // so the two processes compete for the same integrations' streams.
    let created = 0;
    const createThrough = async (server: ServerProcess, integration: (typeof integrations)[number]) => {
      const res = await fetch(`${server.url}/api/integrations/v1/properties`, {
        method: 'POST',
        headers: { authorization: `Bearer ${integration.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `pair-${++created}-${Math.random()}` },
        body: JSON.stringify(createBody({ name: `Villa ${created}` })),
      });
      expect(res.status).toBe(201);
    };
    // Each process's GET /me is current for the writes it took itself and may be up to 1 s behind
    // another's (docs/decisions.md), so the highest of the two is the integration's sequence.
    const lastSequence = async (integration: (typeof integrations)[number]) => {
      const read = async (server: ServerProcess) =>
        (await (await fetch(`${server.url}/api/integrations/v1/me`, { headers: { authorization: `Bearer ${integration.apiKey}` } })).json()).data.webhook
          .last_sequence as number;
      return Math.max(await read(a), await read(b));
    };
    const delivered = async (integration: (typeof integrations)[number]) => {
      const last = await lastSequence(integration);
      await receiver.waitFor(() => deduplicated(integration.slug).length === last, 30_000, `${integration.slug} up to ${last}`);
    };

    // taking turns: each process delivers what it was woken for
    for (let round = 0; round < 4; round++) {
      for (const integration of integrations) {
        await createThrough(round % 2 === 0 ? a : b, integration);
        await delivered(integration);
      }
    }
    // at the same time: both processes are woken for the same integrations at once
    await Promise.all(integrations.flatMap((integration) => [a, b, a, b].map((server) => createThrough(server, integration))));
    for (const integration of integrations) await delivered(integration);

    for (const integration of integrations) {
      const last = await lastSequence(integration);
      expect(last).toBeGreaterThan(300);
      expect(receiver.maxInFlight.get(integration.slug), integration.slug).toBe(1);
      expect(
        receiver.of(integration.slug).map((r) => r.json.sequence),
        integration.slug,
      ).toEqual(Array.from({ length: last }, (_, k) => k + 1));
    }
    // Every write wakes both processes (the writer's own worker directly, the other through its
    // LISTEN), so they compete for every stream; which one wins each claim is up to timing, and a
    // worker that holds a stream keeps it while events keep coming. The attempts all came from
    // these two processes.
    const workers = await withRuntime(db, (deps) => deps.db.selectFrom('delivery_attempts').select('worker').distinct().execute());
    expect(workers.length).toBeGreaterThanOrEqual(1);
    expect(workers.length).toBeLessThanOrEqual(2);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });
});
