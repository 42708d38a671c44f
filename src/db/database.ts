import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { PgDialect, type PoolMode } from './pg-dialect.js';
import { TableChanges } from './changes.js';
import { migrations } from './migrations/index.js';
import type { DB } from './schema.js';

export type Engine = 'postgres' | 'pglite';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** The versions of tables that this process's caches read, moved by their writers (see changes.ts). */
  changes: TableChanges;
  /** PostgreSQL: the connection pool's counts now (/metrics). */
  poolStats?: () => PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

// int8 → number (sequences and ids stay far below 2^53), numeric → number (money has two decimals),
// date → the `YYYY-MM-DD` text itself (a JS Date would drag in a time zone).
const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const textParsers: Record<number, (value: string) => unknown> = {
  [INT8]: Number,
  [NUMERIC]: Number,
  [DATE]: (value) => value,
};

export interface DatabaseOptions {
  /** `postgres://…`, `memory:`, or null for PGlite stored in dataDir. */
  url: string | null;
  dataDir: string;
  /** Schema placed first on the search path (tests use one per file). */
  schema?: string;
  /** An already open PGlite to share (tests open one per process). */
  pglite?: PGlite;
  poolSize?: number;
  /** Told of connections the pool lost while idle (the database restarted, a backend was ended). */
  log?: { warn(obj: object, msg: string): void };
  /** PostgreSQL application_name of the pool's connections (operators find the service by it). */
  applicationName?: string;
  /** PostgreSQL: `session` (the default) or `transaction` behind a transaction-mode pooler (see pg-dialect.ts). */
  poolMode?: PoolMode;
}

/**
 * Time limits of PostgreSQL work. A request must fail fast when the database is unreachable
 * rather than hang: a connection (or a free pooled one) within CONNECT_TIMEOUT_MS, a statement
 * within STATEMENT_TIMEOUT_MS (server side, which also ends lock waits), and an answer to any
 * query within QUERY_TIMEOUT_MS even when the network says nothing at all (client side, a little
 * later than the server's own limit; the connection is then discarded, as its state is unknown).
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const STATEMENT_TIMEOUT_MS = 8_000;
export const QUERY_TIMEOUT_MS = 10_000;

// Node's codes for a connection that could not be made or was cut.
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ENOTCONN']);
// pg and pg-pool say these in words only.
const NETWORK_MESSAGES = /connection terminated|timeout exceeded when trying to connect|connection timeout|query read timeout|not queryable|cannot use a pool after calling end|client was closed|connection error/i;

/**
 * True when an error means "the database cannot be reached or cannot answer now", as opposed to a
 * fault of the statement: network failures, the server shutting down or ending the session
 * (57P01–57P03), connection exceptions (08xxx), too many connections (53300), a statement
 * cancelled by its timeout (57014), and pg's own connect and read timeouts.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code)) return true;
      if (/^(57P0[123]|08...|53300|57014)$/.test(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && NETWORK_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * The embedded engine keeps as little WAL as PostgreSQL allows (two 16 MB segments), with the
 * maintenance loop checkpointing after every 16 MB of WAL (CHECKPOINT_WAL in maintenance.ts). With the defaults
 * (min_wal_size 80 MB, max_wal_size 1 GB) pg_wal filled up to 64 MB in the soak, one segment at a
 * time: DATA_DIR grew in 16 MB steps during the first minutes while its data files grew as
 * PostgreSQL's did (38 → 49 → 59 → 71 MiB by minute). Measured with a write loop: pg_wal stays at
 * 32 MiB (48 with max_wal_size alone, 64 with neither); checkpoints twice as often write about
 * 17 % more WAL (each page's first change after a checkpoint is logged whole) and took 6 ms each.
 * In the 5-minute soak pg_wal then stayed at 32 MiB from minute 1, and DATA_DIR grew 10.6 MiB a
 * minute after it against PostgreSQL's 10.9 (before: 18.7, pg_wal 16 → 32 → 48 → 48 → 64 → 64).
 * A single-user backend never checkpoints for WAL volume by itself, so max_wal_size only bounds
 * what a checkpoint keeps for recycling: after a 200 MB insert and a checkpoint, 13 segments
 * (208 MB) stayed in pg_wal with the defaults, 2 with these settings.
 *
 * shared_buffers is 32 MB instead of PostgreSQL's 128 MB: PostgreSQL zeroes its buffer pool as it
 * starts, so the WebAssembly linear memory was 189 MiB before a single table was read, 128 MiB (the
 * module's floor) with 32 MB. Pages past the pool are read from DATA_DIR's files through the
 * operating system's cache. Measured on the bench (BENCH_ONLY=pglite, two runs each way, the
 * database created apart in both, see createClusterApart): a fresh process after reading every
 * table 332–351 → 228–254 MiB RSS, the service after GET /me, snapshots and booking creates
 * 412–468 → 319–323 MiB; creates (247–248 → 249–254 a second), snapshots and GET /me within the
 * noise; 16 MB saved about 10 MiB more (300 and 318 MiB). In the 5-minute soak (a 114 MiB
 * DATA_DIR at its end) the service ended at 345 MiB (517–543 in earlier runs), its DATA_DIR grew
 * 0.99× as fast as PostgreSQL's database as before, and its worst 15 s p99 after minute 1 was
 * 145 ms (105 ms in run Y; one window over 62 ms).
 *
 * default_statistics_target is 10 instead of 100. The maintenance loop's ANALYZE samples 300 rows
 * per unit of the target and holds the engine's only connection while it runs; with requests'
 * statements queued between its steps, a round of ANALYZEs delays a request by about the whole
 * round. In the soak, the round at 210 s (events, delivery_attempts, bookings and four small
 * tables) took 185 ms and made the worst 15 s window (p99 141–155 ms in three runs); on that
 * database ANALYZE took 100 → 21 ms on events (36 MiB), 50 → 8 on
 * delivery_attempts, 58 → 22 on bookings. With it the same round took 75 ms and the soak's worst
 * window after minute 1 was 52 ms. The plans here rest on ids, sequences and a handful of event
 * kinds, which ten entries per column describe; the PGlite bench (creates, snapshots, GET /me,
 * alternating runs) did not move beyond its noise.
 */
const PGLITE_SETTINGS = ['min_wal_size=32MB', 'max_wal_size=32MB', 'shared_buffers=32MB', 'default_statistics_target=10'];

export async function openPGlite(dataDir: string | null): Promise<PGlite> {
  let dir: string | undefined;
  if (dataDir) {
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    dir = path.join(dataDir, 'pglite');
    await createClusterApart(dir);
  }
  return PGlite.create(dir, {
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((setting) => ['-c', setting])],
    parsers: Object.fromEntries(Object.entries(textParsers).map(([oid, fn]) => [oid, fn])),
  });
}

/**
 * A new DATA_DIR's database is created (initdb) in a short-lived child process, and this process
 * then opens it as on any later start. PGlite runs initdb in a second engine instance of its own,
 * whose WebAssembly memories (about 430 MiB outside the JS heap) stay in the process until V8's
 * next full collection, which under load came anywhere from seconds to minutes later: the same
 * service measured 460 to 820 MiB RSS after the same bench runs, depending on when it came. Made
 * apart, a first start opens as a restart does (about 200 MiB outside the JS heap); the first
 * start answers /healthz after 4.6–4.9 s instead of 3.7–4.2 s (the second open), later starts
 * are unchanged.
 */
async function createClusterApart(dir: string): Promise<void> {
  if (await fs.stat(path.join(dir, 'PG_VERSION')).then(() => true, () => false)) return;
  const pgliteModule = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  // The engine's file errors carry only a name and an errno.
  const script = `require(process.argv[1]).PGlite.create(process.argv[2]).then((db) => db.close()).catch((error) => {
    const text = typeof error?.message === 'string' && error.message ? error.message : String(error?.name ?? error) + (error?.errno === undefined ? '' : ' (errno ' + error.errno + ')');
    process.stderr.write(text + '\\n');
    process.exit(1);
  })`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['-e', script, pgliteModule, dir], { maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const detail = String(stderr).trim().split('\n').filter(Boolean).pop() ?? error.message;
      reject(new Error(`the embedded database could not be created in ${dir} (DATA_DIR must be a directory this user can write): ${detail}`));
    });
  });
}

/** Where a PostgreSQL database handle connects (for messages): `host:port`. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured database';
  }
}

function withChanges(dialect: Dialect): { db: Kysely<DB>; changes: TableChanges } {
  return { db: new Kysely<DB>({ dialect }), changes: new TableChanges() };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const searchPath = options.schema ? `"${options.schema}", public` : null;
  if (options.url?.startsWith('postgres')) {
    const mode = options.poolMode ?? 'session';
    // Session mode sets the session once, at connect; a transaction pooler refuses startup
    // options, so there each transaction sets its own (PgDialect's BEGIN).
    const settings = [`-c statement_timeout=${STATEMENT_TIMEOUT_MS}`];
    if (searchPath) settings.push(`-c search_path=${searchPath.replace(/\s/g, '')}`);
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? 'doorloom',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
      ...(mode === 'session' ? { options: settings.join(' ') } : {}),
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // Without a listener an idle connection's error (a backend ended, the server restarting) would
    // be an unhandled 'error' event and end the process; pg-pool has already dropped the client.
    let lastWarned = 0;
    pool.on('error', (error) => {
      if (Date.now() - lastWarned < 5_000) return;
      lastWarned = Date.now();
      options.log?.warn({ err: error }, 'database connection lost (the pool opens another when needed)');
    });
    // pg-pool listens for a client's errors only while it is idle in the pool. A client checked out
    // (inside a transaction, or between two statements) whose session ends gets an 'error' with
    // no query to fail: handled here, the client is merely unusable and the pool drops it on release.
    pool.on('connect', (client) => {
      client.on('error', (error) => {
        if (Date.now() - lastWarned < 5_000) return;
        lastWarned = Date.now();
        options.log?.warn({ err: error }, 'database connection lost while in use');
      });
    });
    const { db, changes } = withChanges(new PgDialect({ pool, mode, statementTimeoutMs: STATEMENT_TIMEOUT_MS, searchPath }));
    if (options.schema) await sql`create schema if not exists ${sql.id(options.schema)}`.execute(db);
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, engine: 'postgres', changes, poolStats, close: () => db.destroy() };
  }
  const shared = options.pglite;
  const pglite = shared ?? (await openPGlite(options.url === 'memory:' ? null : options.dataDir));
  if (options.schema) await pglite.exec(`create schema if not exists "${options.schema}"`);
  const { db, changes } = withChanges(new PGliteDialect(pglite, searchPath ?? undefined));
  return {
    db,
    engine: 'pglite',
    changes,
    close: async () => {
      await db.destroy();
      if (!shared) await pglite.close();
    },
  };
}

/**
 * Applies pending migrations in name order and answers their names; throws with the failing
 * migration's name (the original error as its cause). All of them run in one transaction that
 * first takes a transaction-scoped advisory lock, so two processes starting together migrate once
 * (the second waits, then finds nothing left) and the lock never outlives its transaction, as a
 * transaction pooler requires (Kysely's Migrator takes a session lock). Names applied by a newer
 * release are left alone, so the previous release keeps starting during a rolling upgrade. The
 * bookkeeping table is Kysely's own `kysely_migration`, beside the tables when `schema` is given.
 */
export async function migrate(db: Kysely<DB>, schema?: string): Promise<string[]> {
  const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
  // Restarts find nothing to do: one read says so, without the lock.
  const applied = await sql<{ name: string }>`select name from ${table}`
    .execute(db)
    .then((r) => new Set(r.rows.map((row) => row.name)))
    .catch(() => null);
  const names = Object.keys(migrations).sort();
  if (applied && names.every((name) => applied.has(name))) return [];
  let current = '';
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`doorloom migrations ${schema ?? 'public'}`}))`.execute(trx);
      await sql`create table if not exists ${table} (name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(trx);
      const done = new Set((await sql<{ name: string }>`select name from ${table}`.execute(trx)).rows.map((r) => r.name));
      const ran: string[] = [];
      for (const name of names) {
        if (done.has(name)) continue;
        current = name;
        await migrations[name].up(trx);
        await sql`insert into ${table} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(trx);
        ran.push(name);
      }
      return ran;
    });
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(current ? `migration ${current} failed: ${cause}` : `migrations could not run: ${cause}`, { cause: error });
  }
}
