import { EventEmitter } from 'node:events';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { ConfigError, type Config } from './config.js';
import { migrate, openDatabase, type Database, type DatabaseOptions } from './db/database.js';
import type { Deps, RuntimeState } from './deps.js';
import { createAuthCache } from './http/auth.js';
import { createIdempotencyStatements } from './http/idempotency.js';
import { createCounterStore } from './http/rate-limit.js';
import { createClock } from './lib/clock.js';
import { createSecretBox, parseSecretsKey } from './lib/secrets.js';
import { createIntegrationViewCache } from './modules/integrations/integrations.service.js';
import { loadClockOffset } from './modules/integrations/integrations.sql.js';

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
  await fs.mkdir(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx': never overwrite a key another process wrote first
  await fs.writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' }).catch(async (error) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return parseSecretsKey(await fs.readFile(file, 'utf8'));
}

export interface Runtime {
  deps: Deps;
  database: Database;
}

/** Where a runtime's database lives beyond the configuration (tests: a schema of their own on a shared database). */
export type RuntimeDatabaseOptions = Pick<DatabaseOptions, 'schema' | 'pglite' | 'poolSize'>;

/** The process state of a runtime on `database` (see RuntimeState). */
export function createRuntimeState(database: Pick<Database, 'db' | 'engine' | 'changes'>, log: Deps['log']): RuntimeState {
  return {
    changes: database.changes,
    authCache: createAuthCache(),
    integrationViews: createIntegrationViewCache(),
    idempotency: createIdempotencyStatements(database.db),
    rateCounters: createCounterStore({ db: database.db, engine: database.engine, log }),
  };
}

/** Config → database → migrations → deps: everything but the HTTP server and the loops. */
export async function createRuntime(
  config: Config,
  logger = pino({ level: config.logLevel }),
  databaseOptions: RuntimeDatabaseOptions = {},
): Promise<Runtime> {
  const key = await resolveSecretsKey(config);
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, ...databaseOptions });
  await migrate(database.db, databaseOptions.schema);
  const clock = createClock(config.testClock ? await loadClockOffset(database.db) : 0);
  const deps: Deps = {
    config,
    db: database.db,
    engine: database.engine,
    clock,
    secrets: createSecretBox(key),
    log: logger,
    signals: new EventEmitter(),
    state: createRuntimeState(database, logger),
  };
  deps.signals.setMaxListeners(100);
  return { deps, database };
}
