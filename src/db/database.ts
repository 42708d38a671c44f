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
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTCONN',
]);
// pg and pg-pool say these in words only.
const NETWORK_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection timeout|query read timeout|not queryable|cannot use a pool after calling end|client was closed|connection error/i;

/**
 * True when an error means "the database cannot be reached or cannot answer now", as opposed to a
 * fault of the statement: network failures, the server shutting down or ending the session
 * (57P01–57P03), connection exceptions (08xxx), too many connections (53300), a write reaching a
 * server that is read-only now (25006, a standby during a failover), a statement
 * cancelled by its timeout (57014), and pg's own connect and read timeouts.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK_CODES.has(code)) return true;
      if (/^(57P0[123]|08...|53300|57014|25006)$/.test(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && NETWORK_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * The embedded engine's settings, each measured on the soak and the PGlite bench:
 * - min/max_wal_size 32 MB: pg_wal stays at two 16 MB segments (the defaults let it grow to 64 MB,
 *   and a single-user backend never checkpoints for WAL volume by itself: the maintenance loop
 *   checkpoints every 16 MB, CHECKPOINT_WAL in maintenance.ts).
 * - shared_buffers 32 MB: PostgreSQL zeroes its buffer pool at start, so 128 MB cost about 60 MiB
 *   more WebAssembly memory (189 against 128 MiB) with creates, snapshots and GET /me unchanged.
 * - default_statistics_target 10: the maintenance ANALYZE holds the engine's only connection, and
 *   at 100 a round of it delayed requests by up to 185 ms (75 ms at 10); the plans rest on ids,
 *   sequences and a few event kinds, which ten entries per column describe.
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
 * then opens it as on any later start: PGlite's initdb runs in a second engine instance whose
 * WebAssembly memory (about 430 MiB) would otherwise stay until V8's next full collection.
 */
async function createClusterApart(dir: string): Promise<void> {
  if (
    await fs.stat(path.join(dir, 'PG_VERSION')).then(
      () => true,
      () => false,
    )
  )
    return;
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
      // Statements are written without waiting for the previous answer (see PgConnection).
      pipeline: true,
      ...(mode === 'session' ? { options: settings.join(' ') } : {}),
      types: {
        getTypeParser: ((oid: number, format?: string) => textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
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
