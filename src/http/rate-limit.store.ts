import { sql, type Kysely } from 'kysely';
import { StatementBatcher } from '../db/batcher.js';
import type { DB } from '../db/schema.js';
import type { Deps } from '../deps.js';

/**
 * The counters behind the request rate limits (rate-limit.ts): fixed one-minute windows of
 * per-bucket hits, in process memory on the embedded engine, in the rate_limit_counters table
 * (shared by every process) on PostgreSQL.
 */

export interface CounterStore {
  /** Counting costs no round trip (the embedded engine's store, in process memory). */
  readonly inMemory: boolean;
  /** Adds one to each bucket in the window; the counts afterwards, in the order given. */
  hit(window: number, buckets: string[]): number[] | Promise<number[]>;
  /** The highest count this process has seen for the bucket in the window (never above the truth). */
  seen(window: number, bucket: string): number;
  /** The bucket's count in the window, without adding to it. */
  read(window: number, bucket: string): number | Promise<number>;
  /** Takes back one hit of the bucket in the window (an attempt counted in advance that turned out not to count). */
  release(window: number, bucket: string): void | Promise<void>;
}

/** Counts of the current window only: the next window starts from an empty map. */
class WindowCounts {
  private window = -1;
  private counts = new Map<string, number>();

  /** The map of the window; an older window (the clock stepped back) keeps counting in the current one. */
  of(window: number): Map<string, number> {
    if (window > this.window) {
      this.window = window;
      this.counts = new Map();
    }
    return this.counts;
  }

  get(window: number, bucket: string): number {
    return window > this.window ? 0 : (this.counts.get(bucket) ?? 0);
  }

  /** Lowers the bucket's count to `count` (never raises it); nothing for a window already gone. */
  lower(window: number, bucket: string, count: number): void {
    if (window !== this.window) return;
    const current = this.counts.get(bucket);
    if (current !== undefined && count < current) this.counts.set(bucket, Math.max(0, count));
  }
}

/** The embedded engine: one process owns the database, so its memory is the truth. */
class MemoryStore implements CounterStore {
  readonly inMemory = true;
  private readonly counts = new WindowCounts();

  hit(window: number, buckets: string[]): number[] {
    const map = this.counts.of(window);
    return buckets.map((bucket) => {
      const count = (map.get(bucket) ?? 0) + 1;
      map.set(bucket, count);
      return count;
    });
  }

  seen(window: number, bucket: string): number {
    return this.counts.get(window, bucket);
  }

  read(window: number, bucket: string): number {
    return this.counts.get(window, bucket);
  }

  release(window: number, bucket: string): void {
    this.counts.lower(window, bucket, this.counts.get(window, bucket) - 1);
  }
}

interface Hit {
  window: number;
  buckets: string[];
}

/**
 * PostgreSQL: counters shared by every process using the database. The requests that arrive while
 * a counting statement runs are counted together by the next one (StatementBatcher), each bucket
 * once with the number of its hits, and every request gets its own counts back: the counts a
 * bucket's requests see are consecutive, in arrival order, as if counted one by one.
 */
class PostgresStore implements CounterStore {
  readonly inMemory = false;
  private readonly local = new WindowCounts();
  private sweptWindow = -1;
  private readonly batcher = new StatementBatcher<Hit, number[]>(async (hits) => {
    const out = new Map<Hit, number[]>();
    for (const window of new Set(hits.map((h) => h.window)))
      await this.count(
        window,
        hits.filter((h) => h.window === window),
        out,
      );
    return hits.map((h) => out.get(h)!);
  });

  constructor(
    private readonly db: Kysely<DB>,
    private readonly log: Deps['log'],
  ) {}

  hit(window: number, buckets: string[]): Promise<number[]> {
    if (window > this.sweptWindow) this.sweep(window);
    return this.batcher.run({ window, buckets });
  }

  private async count(window: number, hits: Hit[], out: Map<Hit, number[]>): Promise<void> {
    const added = new Map<string, number>();
    for (const h of hits) for (const bucket of h.buckets) added.set(bucket, (added.get(bucket) ?? 0) + 1);
    // Rows are locked in bucket order, the same in every statement of every process, so
    // concurrent statements cannot deadlock on each other.
    const buckets = [...added.keys()].sort();
    const { rows } = await sql<{ bucket: string; hits: number }>`
      insert into rate_limit_counters (window_minute, bucket, hits)
      select ${window}, bucket, n from unnest(${buckets}::text[], ${buckets.map((b) => added.get(b)!)}::int[]) as t(bucket, n)
      on conflict (window_minute, bucket) do update set hits = rate_limit_counters.hits + excluded.hits
      returning bucket, hits
    `.execute(this.db);
    // A bucket's first request in this statement gets the count before it plus one.
    const next = new Map<string, number>();
    for (const row of rows) next.set(row.bucket, row.hits - added.get(row.bucket)! + 1);
    const local = this.local.of(window);
    for (const h of hits) {
      out.set(
        h,
        h.buckets.map((bucket) => {
          const count = next.get(bucket) ?? 1;
          next.set(bucket, count + 1);
          if (count > (local.get(bucket) ?? 0)) local.set(bucket, count);
          return count;
        }),
      );
    }
  }

  seen(window: number, bucket: string): number {
    return this.local.get(window, bucket);
  }

  async read(window: number, bucket: string): Promise<number> {
    const row = await sql<{ hits: number }>`
      select hits from rate_limit_counters where window_minute = ${window} and bucket = ${bucket}
    `.execute(this.db);
    const hits = row.rows[0]?.hits ?? 0;
    const local = this.local.of(window);
    if (hits > (local.get(bucket) ?? 0)) local.set(bucket, hits);
    return hits;
  }

  async release(window: number, bucket: string): Promise<void> {
    const { rows } = await sql<{ hits: number }>`
      update rate_limit_counters set hits = hits - 1
      where window_minute = ${window} and bucket = ${bucket} and hits > 0
      returning hits
    `.execute(this.db);
    // what this process saw includes the hit taken back
    if (rows[0]) this.local.lower(window, bucket, rows[0].hits);
  }

  /**
   * Drops windows before the previous one, once per window per process, without holding up the
   * request. The previous window stays for processes whose clocks run a little behind.
   */
  private sweep(window: number): void {
    this.sweptWindow = window;
    sql`delete from rate_limit_counters where window_minute < ${window - 1}`.execute(this.db).catch((error: unknown) => {
      this.log.warn({ err: error }, 'rate limit counters: sweeping old windows failed');
    });
  }
}

/**
 * The counters of one runtime (Deps.state.rateCounters): every app built on the same runtime
 * shares them. PostgreSQL keeps them in a table that every process shares.
 */
export function createCounterStore(deps: Pick<Deps, 'db' | 'engine' | 'log'>): CounterStore {
  return deps.engine === 'postgres' ? new PostgresStore(deps.db, deps.log) : new MemoryStore();
}
