import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaims, holdLease, LeaseLostError, type Lease } from '../../src/modules/leases/leases.claims.js';
import pg from 'pg';
import { holderName, takeLease } from '../../src/modules/leases/leases.sql.js';
import { writeOutcomes } from '../../src/modules/webhooks/webhooks.sql.js';
import type { Deps } from '../../src/deps.js';
import { createTestContext, databaseUrl, sessionUrl, type TestContext } from '../helpers/context.js';
import { eventually, recordEvents } from '../webhooks/helpers.js';

// Claims as lease rows, on the engine under test: exclusive, renewed while held, taken over once a
// holder stops renewing, and fenced: a holder whose lease passed on writes nothing.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** Claims of another "process" on the same database, with lease times of its own. */
function claimsWith(leaseMs: number, renewMs: number) {
  const deps: Pick<Deps, 'db' | 'log' | 'config'> = {
    db: ctx.deps.db,
    log: ctx.deps.log,
    config: { ...ctx.deps.config, workLeaseMs: leaseMs, workLeaseRenewMs: renewMs },
  };
  return createClaims(deps);
}

const cursorOf = async (integrationId: number) =>
  Number(
    (await ctx.deps.db.selectFrom('webhook_delivery_state').select('cursor').where('integration_id', '=', integrationId).executeTakeFirstOrThrow()).cursor,
  );

describe(`claims as leases (${databaseUrl ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('one holder at a time; a release frees the claim at once', async () => {
    const a = claimsWith(30_000, 10_000);
    const b = claimsWith(30_000, 10_000);
    try {
      const lease = await a.tryClaim('delivery', 9001);
      expect(lease).not.toBeNull();
      expect(a.holds(lease!)).toBe(true);
      expect(await a.tryClaim('delivery', 9001)).toBeNull(); // not twice in one process either
      expect(await b.tryClaim('delivery', 9001)).toBeNull();
      expect(await b.tryClaim('sync', 9001)).not.toBeNull(); // another kind is another claim
      await a.release(lease!);
      expect(a.holds(lease!)).toBe(false);
      expect(await b.tryClaim('delivery', 9001)).not.toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a holder that stops renewing loses the claim once its lease expires on the database clock, not before', async () => {
    const dead: Lease = { kind: 'delivery', id: 9002, token: 'dead-holder' };
    expect(await takeLease(ctx.deps.db, dead, 'killed-process', 1_500)).toBe(true);
    const b = claimsWith(30_000, 10_000);
    try {
      expect(await b.tryClaim('delivery', 9002)).toBeNull();
      // the test clock is not the lease's clock: moving it a day does not free the claim
      await ctx.advanceClock(86_400);
      expect(await b.tryClaim('delivery', 9002)).toBeNull();
      let taken: Lease | null = null;
      await eventually(async () => (taken = await b.tryClaim('delivery', 9002)) !== null, 20_000, 'the takeover');
      expect(b.holds(taken!)).toBe(true);
    } finally {
      await b.close();
    }
  });

  it('the sole process of a database (the embedded engine) frees the claims a previous run left at its start', async () => {
    const dead: Lease = { kind: 'delivery', id: 9004, token: 'previous-run' };
    expect(await takeLease(ctx.deps.db, dead, 'previous-run', 60_000)).toBe(true);
    const other = claimsWith(30_000, 10_000);
    expect(await other.tryClaim('delivery', 9004)).toBeNull();
    await other.close();
    const sole = createClaims({ db: ctx.deps.db, log: ctx.deps.log, config: ctx.deps.config }, { soleProcess: true });
    try {
      expect(await sole.tryClaim('delivery', 9004)).not.toBeNull();
    } finally {
      await sole.close();
    }
  });

  it('a lease its holder could not release (the database was away) can be taken again by that holder, and by no other', async () => {
    const first: Lease = { kind: 'sync', id: 9005, token: 'first' };
    const again: Lease = { kind: 'sync', id: 9005, token: 'again' };
    expect(await takeLease(ctx.deps.db, first, 'holder-a', 30_000)).toBe(true);
    expect(await takeLease(ctx.deps.db, { ...first, token: 'stranger' }, 'holder-b', 30_000)).toBe(false);
    expect(await takeLease(ctx.deps.db, again, 'holder-a', 30_000)).toBe(true);
    const row = await ctx.deps.db
      .selectFrom('work_leases')
      .select(['holder', 'token'])
      .where('kind', '=', 'sync')
      .where('id', '=', 9005)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ holder: 'holder-a', token: 'again' });
  });

  it('a held claim is renewed past its lease length, so nobody else can take it', async () => {
    const a = claimsWith(1_000, 150);
    const b = claimsWith(1_000, 150);
    try {
      const lease = await a.tryClaim('sync', 9003);
      expect(lease).not.toBeNull();
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await b.tryClaim('sync', 9003)).toBeNull();
      expect(a.holds(lease!)).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('fences delivery: outcomes written under a lease that passed to another holder are refused whole', async () => {
    const integration = await ctx.createIntegration();
    await recordEvents(ctx, integration.id, 3);
    const dead: Lease = { kind: 'delivery', id: integration.id, token: 'paused-holder' };
    expect(await takeLease(ctx.deps.db, dead, 'paused-process', 200)).toBe(true);
    const b = claimsWith(30_000, 10_000);
    try {
      let lease: Lease | null = null;
      await eventually(async () => (lease = await b.tryClaim('delivery', integration.id)) !== null, 20_000, 'the takeover');
      const attempt = (sequence: number) => ({
        integration_id: integration.id,
        event_id: `e${sequence}`,
        event_type: 'availability.changed',
        sequence,
        attempt: 1,
        attempted_at: new Date(),
        duration_ms: 1,
        status_code: 200,
        error: null,
        success: true,
        response_body: null,
        worker: 'test',
      });
      const attemptsBefore = await ctx.deps.db.selectFrom('delivery_attempts').select('id').where('integration_id', '=', integration.id).execute();
      await expect(
        writeOutcomes(ctx.deps.db, {
          integrationId: integration.id,
          delivered: [1, 2],
          skipped: [],
          attempts: [attempt(1), attempt(2)],
          touchSuccessAt: new Date(),
          lease: dead,
        }),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect(await cursorOf(integration.id)).toBe(0);
      expect(await ctx.deps.db.selectFrom('delivery_attempts').select('id').where('integration_id', '=', integration.id).execute()).toHaveLength(
        attemptsBefore.length,
      );
      // the holder of the lease writes
      await writeOutcomes(ctx.deps.db, {
        integrationId: integration.id,
        delivered: [1, 2],
        skipped: [],
        attempts: [attempt(1), attempt(2)],
        touchSuccessAt: new Date(),
        lease: lease!,
      });
      expect(await cursorOf(integration.id)).toBe(2);
    } finally {
      await b.close();
    }
  });

  it('fences a transaction: holdLease throws for a lease that passed on, and the transaction writes nothing', async () => {
    const integration = await ctx.createIntegration();
    const old: Lease = { kind: 'sync', id: integration.id, token: 'old-runner' };
    expect(await takeLease(ctx.deps.db, old, 'old-process', 200)).toBe(true);
    const b = claimsWith(30_000, 10_000);
    try {
      let lease: Lease | null = null;
      await eventually(async () => (lease = await b.tryClaim('sync', integration.id)) !== null, 20_000, 'the takeover');
      const rename = (lease: Lease, name: string) =>
        ctx.deps.db.transaction().execute(async (trx) => {
          await holdLease(trx, lease);
          await trx.updateTable('integrations').set({ name }).where('id', '=', integration.id).execute();
        });
      await expect(rename(old, 'written by the old runner')).rejects.toBeInstanceOf(LeaseLostError);
      await rename(lease!, 'written by the holder');
      const row = await ctx.deps.db.selectFrom('integrations').select('name').where('id', '=', integration.id).executeTakeFirstOrThrow();
      expect(row.name).toBe('written by the holder');
    } finally {
      await b.close();
    }
  });

  // Two connections at once: PostgreSQL (PGlite runs one statement at a time).
  it.runIf(databaseUrl)('a take waits for a fenced transaction of the holder, so that write is made while the lease is still its own', async () => {
    const holderLease: Lease = { kind: 'sync', id: 9006, token: 'slow-holder' };
    expect(await takeLease(ctx.deps.db, holderLease, 'slow-process', 200)).toBe(true);
    await new Promise((r) => setTimeout(r, 400)); // expired, and nobody took it yet
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let inside!: () => void;
    const fenced = new Promise<void>((resolve) => (inside = resolve));
    const write = ctx.deps.db.transaction().execute(async (trx) => {
      await holdLease(trx, holderLease);
      inside();
      await committing;
    });
    await fenced;
    const b = claimsWith(30_000, 10_000);
    try {
      let taken: Lease | null | undefined;
      const take = b.tryClaim('sync', 9006).then((lease) => (taken = lease));
      await new Promise((r) => setTimeout(r, 500));
      expect(taken).toBeUndefined(); // still waiting for the holder's transaction
      commit();
      await write;
      await take;
      expect(taken).not.toBeNull();
    } finally {
      commit();
      await b.close();
    }
  });

  /** A session of its own holding an advisory lock on a random key: a process's LISTEN connection. */
  async function sessionWithLock(): Promise<{ key: string; end(): Promise<void> }> {
    const client = new pg.Client({ connectionString: sessionUrl! });
    await client.connect();
    const key = String(BigInt(Math.floor(Math.random() * 2 ** 52)) * 1000n + 7n);
    await client.query('select pg_advisory_lock($1::bigint)', [key]);
    return { key, end: () => client.end() };
  }

  // A session of the holder's own beside the pool: PostgreSQL (DATABASE_DIRECT_URL behind a transaction pooler).
  it.runIf(sessionUrl)('a lease naming its holder’s session lock passes at once when that session ends, however long the lease', async () => {
    const session = await sessionWithLock();
    const lease: Lease = { kind: 'delivery', id: 9101, token: 'live-holder' };
    expect(await takeLease(ctx.deps.db, lease, holderName('holder-process', session.key), 600_000)).toBe(true);
    const b = claimsWith(30_000, 10_000);
    try {
      // alive: nobody takes it, and it is not reported vacated
      expect(await b.tryClaim('delivery', 9101)).toBeNull();
      expect(await b.vacated('delivery', [9101, 9102])).toEqual([9102]);
      await session.end();
      await eventually(async () => (await b.vacated('delivery', [9101])).length === 1, 5_000, 'the lock freed by the session’s end');
      const taken = await b.tryClaim('delivery', 9101);
      expect(taken).not.toBeNull();
      expect(b.holds(taken!)).toBe(true);
    } finally {
      await session.end().catch(() => {});
      await b.close();
    }
  });

  it.runIf(sessionUrl)('a holder names its session lock on its leases, and drops them at once when that session ends while it lives', async () => {
    const session = await sessionWithLock();
    const a = claimsWith(30_000, 10_000);
    const b = claimsWith(30_000, 10_000);
    const lost: Lease[] = [];
    a.onLost((l) => lost.push(l));
    try {
      const before = await a.tryClaim('sync', 9103); // taken before the lock is up: named at once when it is
      a.sessionLock(session.key);
      const after = await a.tryClaim('sync', 9104);
      const holders = async () =>
        (await ctx.deps.db.selectFrom('work_leases').select('holder').where('kind', '=', 'sync').where('id', 'in', [9103, 9104]).execute()).map(
          (r) => r.holder,
        );
      await eventually(async () => (await holders()).every((h) => h.endsWith(`@lock:${session.key}`)), 5_000, 'both leases naming the lock');
      expect(await b.tryClaim('sync', 9103)).toBeNull();

      await session.end();
      a.sessionLock(null);
      expect(lost.map((l) => l.id).sort()).toEqual([9103, 9104]);
      expect(a.holds(before!) || a.holds(after!)).toBe(false);
      expect(await b.tryClaim('sync', 9104)).not.toBeNull();
      // the holder takes work again without a lock: its new leases wait out their expiry
      const again = await a.tryClaim('sync', 9103);
      expect(again).not.toBeNull();
      expect(await b.vacated('sync', [9103])).toEqual([]);
    } finally {
      await session.end().catch(() => {});
      await Promise.all([a.close(), b.close()]);
    }
  });
});
