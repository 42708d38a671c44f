import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { ConfigError, type Config } from './config.js';
import { migrate, openDatabase, type Database } from './db/database.js';
import type { Deps } from './deps.js';
import { createClock } from './lib/clock.js';
import { createSecretBox, parseSecretsKey } from './lib/secrets.js';
import { loadClockOffset } from './modules/integrations/integrations.sql.js';
import { createMetrics } from './modules/metrics/metrics.js';

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

/** Config → database → migrations → deps: everything but the HTTP server and the loops. */
export async function createRuntime(config: Config, logger = pino({ level: config.logLevel })): Promise<Runtime> {
  const key = await resolveSecretsKey(config);
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  await migrate(database.db);
  const clock = createClock(config.testClock ? await loadClockOffset(database.db) : 0);
  const deps: Deps = {
    config,
    db: database.db,
    engine: database.engine,
    clock,
    secrets: createSecretBox(key),
    log: logger,
    signals: new EventEmitter(),
  };
  deps.signals.setMaxListeners(100);
  // With WORKERS above 1, a scrape of any worker reports the whole node (gathered by the primary).
  deps.metrics = createMetrics(deps, { poolStats: database.poolStats, clusterWorker: cluster.isWorker && config.workers > 1 });
  return { deps, database };
}
