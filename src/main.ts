import cluster from 'node:cluster';
import pino from 'pino';
import { buildApp } from './app.js';
import { startBackground } from './background.js';
import { listenForAuthChanges } from './http/auth.js';
import { ConfigError, loadConfig } from './config.js';
import { ensureStaffToken } from './modules/integrations/integrations.service.js';
import { serveClusterMetrics } from './modules/metrics/metrics.js';
import { createRuntime } from './runtime.js';

async function serve(): Promise<void> {
  const config = loadConfig();
  const logger = pino({ level: config.logLevel });
  const { deps, database } = await createRuntime(config, logger);
  if (config.testClock) logger.warn('TEST_CLOCK=1: the staff API can move the service clock. Never use this in production.');
  if (!config.rateLimits) logger.warn('RATE_LIMITS=off: request rate tiers are not enforced. For load tests only.');
  if (!cluster.isWorker || cluster.worker?.id === 1) {
    const token = await ensureStaffToken(deps);
    if (token) process.stdout.write(`staff token: ${token}\n`);
  }
  const app = await buildApp(deps, { logger });
  const authListener = deps.engine === 'postgres' && config.databaseUrl ? listenForAuthChanges(deps, config.databaseUrl) : null;
  const background = config.background ? startBackground(deps) : null;
  await app.listen({ port: config.port, host: config.host });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    await background?.stop();
    await authListener?.stop();
    await database.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config.workers > 1 && cluster.isPrimary) {
    // Migrate and bootstrap once before forking, so workers start on a ready database.
    const { deps, database } = await createRuntime(config, pino({ level: config.logLevel }));
    const token = await ensureStaffToken(deps);
    if (token) process.stdout.write(`staff token: ${token}\n`);
    await database.close();
    serveClusterMetrics();
    for (let i = 0; i < config.workers; i++) cluster.fork();
    cluster.on('exit', (worker, code, signal) => {
      if (code !== 0 && signal !== 'SIGTERM') {
        process.stderr.write(`worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`);
        cluster.fork();
      }
    });
    const stop = () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      setTimeout(() => process.exit(0), 200).unref();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return;
  }
  await serve();
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
