import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl, sessionUrl } from '../helpers/context.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { integrationOn, recordEvents, scratchDatabase, startServer, withRuntime, type ScratchDatabase, type ServerProcess } from './process.js';

// A process killed with -9 on PostgreSQL: its delivery claims pass at once, through the session
// lock its LISTEN connection held, not when their leases run out. The lease is left at 30 s and
// every wait for the resumption is bounded well below it, so the takeover cannot have come from
// an expiry: a run that waited out the lease fails.

const LEASE_MS = 30_000;
const LEASE = { WORK_LEASE_MS: String(LEASE_MS), WORK_LEASE_RENEW_MS: '10000' };
/** The bound on the resumption: a third of the lease, so only the session lock can meet it. */
const RESUMED_WITHIN_MS = LEASE_MS / 3;
const N = 400;

let receiver: Receiver;
const servers: ServerProcess[] = [];
const databases: ScratchDatabase[] = [];

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 200, delayMs: 10 }));
});
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await Promise.all(servers.map((s) => s.exited));
  await receiver.close();
  for (const d of databases) await d.drop();
});

async function setUp(name: string) {
  const db = await scratchDatabase(databaseUrl);
  databases.push(db);
  const integration = await integrationOn(db, 'Resume Brand', name, receiver.url);
  return { db, integration };
}

/** The process delivering the stream now: the worker named on its lease row (host:pid:tag). */
async function holderPid(db: ScratchDatabase, integrationId: number): Promise<number | null> {
  const row = await withRuntime(db, (deps) =>
    deps.db.selectFrom('work_leases').select(['holder', 'expires_at']).where('kind', '=', 'delivery').where('id', '=', integrationId).executeTakeFirst(),
  );
  if (!row || row.expires_at.getTime() < Date.now()) return null;
  return Number(row.holder.split('@')[0].split(':')[1]);
}

/**
 * The received stream is 1…m, then k…N with k ≤ m + 1: nothing lost, nothing out of order, and
 * one restart at the takeover (the dead holder's unrecorded tail sent again, as the contract allows).
 */
function oneRestart(seqs: number[]): void {
  const backs = seqs.flatMap((s, i) => (i > 0 && s <= seqs[i - 1] ? [i] : []));
  expect(backs.length, `steps back at ${backs.map((i) => `${seqs[i - 1]}→${seqs[i]}`).join(', ')}`).toBeLessThanOrEqual(1);
  const restart = backs[0] ?? seqs.length;
  const before = seqs.slice(0, restart);
  const after = seqs.slice(restart);
  expect(before).toEqual(Array.from({ length: before.length }, (_, i) => i + 1));
  if (after.length > 0) {
    expect(after[0]).toBeLessThanOrEqual(before.length + 1);
    expect(after).toEqual(Array.from({ length: N - after[0] + 1 }, (_, i) => after[0] + i));
  }
  expect(new Set(seqs).size).toBe(N);
}

const sequences = (slug: string): number[] => receiver.of(slug).map((r) => r.json.sequence);

/** Kills the holder once it is mid-stream, with its session lock on the lease row. */
async function killMidStream(db: ScratchDatabase, integration: { id: number; slug: string }, candidates: ServerProcess[]) {
  await receiver.waitFor(() => receiver.of(integration.slug).length >= 60, 60_000, 'the first 60 deliveries');
  let holder: ServerProcess | undefined;
  for (let i = 0; i < 100 && !holder; i++) {
    const pid = await holderPid(db, integration.id);
    holder = candidates.find((s) => s.child.pid === pid);
    if (!holder) await new Promise((r) => setTimeout(r, 50));
  }
  expect(holder, 'the delivering process').toBeDefined();
  holder!.child.kill('SIGKILL');
  await holder!.exited;
  const atKill = receiver.of(integration.slug).length;
  expect(atKill).toBeLessThan(N); // really mid-stream
  return { killed: holder!, atKill };
}

// The servers hold their session lock on DATABASE_URL, or on DATABASE_DIRECT_URL behind a transaction pooler.
describe.runIf(databaseUrl && sessionUrl)('deliveries resume at once after a kill -9 (session lock, PostgreSQL; lease left at 30 s)', () => {
  it('one node restarted: its new process takes the dead one’s claim at once and delivers everything, in order', async () => {
    const { db, integration } = await setUp('resume-restart');
    const first = await startServer(db, LEASE);
    servers.push(first);
    await first.ready();
    await recordEvents(db, integration.id, N);
    const { atKill } = await killMidStream(db, integration, [first]);

    const second = await startServer(db, LEASE);
    servers.push(second);
    await second.ready();
    // more than the dead process could still have had on the wire
    await receiver.waitFor(
      () => receiver.of(integration.slug).length >= atKill + 5,
      RESUMED_WITHIN_MS,
      'deliveries after the restart, before the dead lease could expire',
    );
    await receiver.waitFor(() => new Set(sequences(integration.slug)).size === N, 120_000, 'every event');
    oneRestart(sequences(integration.slug));
    expect(receiver.maxInFlight.get(integration.slug)).toBe(1);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);

  it('two processes sharing the database: the other one takes the claim at once and delivers the rest, in order', async () => {
    const { db, integration } = await setUp('resume-pair');
    const a = await startServer(db, LEASE);
    const b = await startServer(db, LEASE);
    servers.push(a, b);
    await Promise.all([a.ready(), b.ready()]);
    await recordEvents(db, integration.id, N);
    const { killed, atKill } = await killMidStream(db, integration, [a, b]);
    const successor = killed === a ? b : a;

    await receiver.waitFor(
      () => receiver.of(integration.slug).length >= atKill + 5,
      RESUMED_WITHIN_MS,
      'deliveries by the other process, before the dead lease could expire',
    );
    await receiver.waitFor(() => new Set(sequences(integration.slug)).size === N, 120_000, 'every event');
    oneRestart(sequences(integration.slug));
    expect(receiver.maxInFlight.get(integration.slug)).toBe(1);
    // the successor delivered the rest: the last event's success is its own
    const lastSuccess = async () =>
      withRuntime(db, (deps) =>
        deps.db
          .selectFrom('delivery_attempts')
          .select('worker')
          .where('integration_id', '=', integration.id)
          .where('sequence', '=', N)
          .where('success', '=', true)
          .execute(),
      );
    let last = await lastSuccess();
    for (let i = 0; i < 100 && last.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      last = await lastSuccess();
    }
    expect(last.map((r) => r.worker.split(':')[1])).toEqual([String(successor.child.pid)]);
    successor.child.kill('SIGTERM');
    expect(await successor.exited).toBe(0);
  }, 180_000);
});
