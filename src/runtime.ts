import { SnapshotCache } from './modules/calendar/calendar.snapshot-cache.js';
import { INPUTS_SIGNAL } from './modules/properties/properties.lock.js';
import cluster from 'node:cluster';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type pino from 'pino';
import { createLogger } from './lib/logger.js';
import { ConfigError, type Config } from './config.js';
import { migrate, openDatabase, type Database, type DatabaseOptions } from './db/database.js';
import type { Deps, RuntimeState } from './deps.js';
import { createAuthCache } from './modules/integrations/integrations.auth.js';
import { createIdempotencyStatements } from './http/idempotency.js';
import { createCounterStore } from './http/rate-limit.store.js';
import { createClock } from './lib/clock.js';
import { createSecretBox, parseSecretsKey } from './lib/secrets.js';
import { checkSecretsKey, reloadBrandClocks, resealWebhookSecrets } from './modules/integrations/integrations.service.js';
import { loadClockOffset } from './modules/clock/clock.sql.js';
import { createMetrics } from './modules/metrics/metrics.js';
import { keepSnapshotsFresh } from './modules/calendar/calendar.snapshot-refresh.js';
import { Signals } from './signals.js';

/** The key that seals webhook secrets: SECRETS_KEY, or (embedded only) one kept in DATA_DIR. */
export async function resolveSecretsKey(config: Config): Promise<Buffer> {
  if (config.secretsKey) return parseSecretsKey(config.secretsKey);
  if (config.databaseUrl?.startsWith('postgres')) {
    throw new ConfigError('SECRETS_KEY is required with PostgreSQL: set it to 32 random bytes as hex (openssl rand -hex 32)');
  }
  if (config.databaseUrl === 'memory:') return randomBytes(32);
  const file = path.join(config.dataDir, 'secrets.key');
  try {
    return parseSecretsKey(await fs.readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await secureDataDir(config.dataDir);
  const key = randomBytes(32);
  // 'wx': never overwrite a key another process wrote first
  await fs.writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' }).catch(async (error) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return parseSecretsKey(await fs.readFile(file, 'utf8'));
}

/**
 * DATA_DIR holds the embedded database and the secrets key: only this user may read it. Created
 * 0700, set back to 0700 on every start, and every file or directory already under it loses its
 * group and other permissions (files written before, or by a run with a looser umask). New files
 * follow the process umask, which main sets to 077.
 */
export async function secureDataDir(dir: string, options: { files?: boolean } = {}): Promise<void> {
  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.chmod(dir, 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'EROFS') {
      throw new ConfigError(`DATA_DIR ${dir} cannot be used (${code}): point DATA_DIR at a directory this user can create and write`);
    }
    throw error;
  }
  if (options.files === false) return;
  // every entry of a directory at once: one by one, a thousand files take seconds on a busy machine
  const walk = async (at: string): Promise<void> => {
    const entries = await fs.readdir(at, { withFileTypes: true });
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.isSymbolicLink()) return;
        const full = path.join(at, entry.name);
        const { mode } = await fs.lstat(full);
        if (mode & 0o077) await fs.chmod(full, mode & 0o700);
        if (entry.isDirectory()) await walk(full);
      }),
    );
  };
  await walk(dir);
}

/**
 * PGlite sets its files' modes itself (0666, whatever the umask): they are made private again
 * once the database is open, every minute while it runs (new relation files), and after it closes.
 * The 0700 directory already keeps other users out in between.
 */
async function keepDataDirPrivate(dir: string, database: Database, logger: pino.Logger): Promise<Database> {
  const sweep = () => secureDataDir(dir).catch((error) => logger.warn({ err: error }, 'could not restrict DATA_DIR permissions'));
  await secureDataDir(dir);
  const timer = setInterval(() => void sweep(), 60_000).unref();
  return {
    ...database,
    close: async () => {
      clearInterval(timer);
      await database.close();
      await sweep();
    },
  };
}

export interface Runtime {
  deps: Deps;
  database: Database;
  /** Migrations this start applied (empty when the schema was current). */
  migrations: string[];
}

/** Where a runtime's database lives beyond the configuration (tests: a schema of their own on a shared database). */
export type RuntimeDatabaseOptions = Pick<DatabaseOptions, 'schema' | 'pglite' | 'poolSize'>;

/** The process state of a runtime on `database` (see RuntimeState). */
export function createRuntimeState(database: Pick<Database, 'db' | 'engine' | 'changes'>, log: Deps['log']): RuntimeState {
  return {
    changes: database.changes,
    authCache: createAuthCache(),
    idempotency: createIdempotencyStatements(database.db),
    rateCounters: createCounterStore({ db: database.db, engine: database.engine, log }),
    staffTokenUses: new Map(),
    knownStaffCredentials: new Map(),
    staffVerifiedFrom: new Map(),
    snapshots: new SnapshotCache(),
  };
}

/** Config → database → migrations → deps: everything but the HTTP server and the loops. */
export async function createRuntime(config: Config, logger = createLogger(config.logLevel), databaseOptions: RuntimeDatabaseOptions = {}): Promise<Runtime> {
  const embeddedOnDisk = !config.databaseUrl;
  // the directory first (nobody else may enter it); its files once the database has opened them
  if (embeddedOnDisk) await secureDataDir(config.dataDir, { files: false });
  const key = await resolveSecretsKey(config);
  const opened = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: logger, poolMode: config.databasePoolMode, ...databaseOptions });
  const migrations = await migrate(opened.db, databaseOptions.schema);
  const database = embeddedOnDisk ? await keepDataDirPrivate(config.dataDir, opened, logger) : opened;
  const clock = createClock(config.testClock ? await loadClockOffset(database.db) : 0);
  const signals = new Signals();
  // With WORKERS above 1, a scrape of any worker reports the whole node (gathered by the primary).
  const metrics = createMetrics({ db: database.db, clock, signals }, { poolStats: database.poolStats, clusterWorker: cluster.isWorker && config.workers > 1 });
  const deps: Deps = {
    config,
    db: database.db,
    engine: database.engine,
    clock,
    secrets: createSecretBox(key),
    log: logger,
    signals,
    metrics,
    state: createRuntimeState(database, logger),
  };
  const resealed = await resealWebhookSecrets(deps);
  if (resealed > 0) logger.info({ integrations: resealed }, `webhook secrets of ${resealed} integrations sealed again with their integration id`);
  await checkSecretsKey(deps);
  await reloadBrandClocks(deps);
  if (deps.engine === 'postgres') keepSnapshotsFresh(deps);
  deps.state.snapshots.onUnreadDropped = () => metrics.availabilitySnapshot('rebuild_unread');
  deps.signals.on(INPUTS_SIGNAL, (propertyIds) => {
    for (const id of propertyIds) deps.state.snapshots.noteTouch(id);
  });
  return { deps, database, migrations };
}
