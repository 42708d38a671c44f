import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { createLogger } from './lib/logger.js';
import { buildApp } from './app.js';
import { startProcess } from './background.js';
import { ConfigError, trustsEveryAddress, type Config } from './config.js';
import { describeDatabaseUrl, isDatabaseUnavailable } from './db/database.js';
import { ensureStaffToken } from './modules/integrations/integrations.service.js';
import { serveClusterMetrics } from './modules/metrics/metrics.js';
import { createRuntime, type Runtime } from './runtime.js';

/**
 * Shutdown budget. SIGTERM: for SHUTDOWN_DRAIN_MS health checks answer 503 while requests are
 * still served (each answer closing its connection), so a proxy takes the node out before it stops
 * listening. SIGINT (Ctrl-C at a terminal) skips the drain, or ends one under way. Then stop accepting, let requests in flight answer for up to FINISH_MS, cut what is
 * left, stop the background loops (a delivery in flight gets 3 s), close the database. FORCE_EXIT_MS
 * after the drain the process exits whatever is left.
 */
const FINISH_MS = 5_000;
const FORCE_EXIT_MS = 9_000;

function fail(line: string, code: number): never {
  process.stderr.write(`${line}\n`);
  process.exit(code);
}

/** The innermost message of an error chain, on one line. */
export function causeOf(error: unknown): string {
  let e = error as { cause?: unknown; message?: string; code?: string } | undefined;
  while (e && typeof e === 'object' && e.cause && typeof e.cause === 'object') e = e.cause;
  const text = e?.message || e?.code || String(error);
  return text.replace(/\s+/g, ' ').trim();
}

/** A start that cannot go on: one line on stderr (configuration: exit 2; anything else: exit 1). */
function startFailure(config: Config, error: unknown): never {
  if (error instanceof ConfigError) fail(`configuration error: ${error.message}`, 2);
  const code = (error as { code?: string }).code;
  const sqlState = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
  // 28xxx: the login was refused; 3D000: no such database
  const refused = /^(28|3D)/.test(sqlState);
  if (config.databaseUrl?.startsWith('postgres') && (isDatabaseUnavailable(error) || refused)) {
    fail(`cannot reach the database at ${describeDatabaseUrl(config.databaseUrl)}: ${causeOf(error)}`, 1);
  }
  if (code === 'EADDRINUSE') fail(`cannot listen on ${config.host}:${config.port}: the port is in use (set PORT to a free one)`, 1);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
    fail(
      `configuration error: cannot listen on ${config.host}:${config.port} (${code}): set HOST to an address of this machine and PORT to one this user may open`,
      2,
    );
  }
  if (['debug', 'trace'].includes(config.logLevel) && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  fail(`failed to start: ${causeOf(error)}`, 1);
}

async function runtimeOrExit(config: Config, logger: Logger): Promise<Runtime> {
  try {
    return await createRuntime(config, logger);
  } catch (error) {
    startFailure(config, error);
  }
}

function engineLine(config: Config, runtime: Runtime): Record<string, unknown> {
  return {
    engine: runtime.deps.engine,
    database: config.databaseUrl?.startsWith('postgres')
      ? describeDatabaseUrl(config.databaseUrl)
      : config.databaseUrl === 'memory:'
        ? 'memory'
        : config.dataDir,
    migrationsApplied: runtime.migrations,
  };
}

async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const runtime = await runtimeOrExit(config, logger);
  const { deps, database } = runtime;
  logger.info(
    engineLine(config, runtime),
    runtime.migrations.length > 0 ? `database ready: ${runtime.migrations.length} migrations applied` : 'database ready: schema current',
  );
  if (trustsEveryAddress(config.trustProxy)) {
    logger.warn(
      'TRUST_PROXY trusts every address of a family (/0): any client can set its own address with X-Forwarded-For unless the load balancer is the only way in.',
    );
  }
  if (config.testClock) logger.warn('TEST_CLOCK on: the staff API can move the service clock. Never use this in production.');
  if (config.webhookAllowPrivate)
    logger.warn('WEBHOOK_ALLOW_PRIVATE on: webhooks may reach loopback, private and link-local addresses. For local development only.');
  if (!config.rateLimits) logger.warn('RATE_LIMITS=off: request rate tiers are not enforced. For load tests only.');
  try {
    if (!cluster.isWorker) {
      const token = await ensureStaffToken(deps);
      if (token) process.stdout.write(`staff token: ${token}\n`);
    }
  } catch (error) {
    startFailure(config, error);
  }
  const app = await buildApp(deps, { logger });
  // The LISTEN connection (revoked keys, other processes' writes) and, unless NO_BACKGROUND, the loops.
  const work = await startProcess(deps, { background: config.background });
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    startFailure(config, error);
  }
  logger.info(
    { address, engine: deps.engine, background: config.background, worker: cluster.isWorker ? cluster.worker?.id : undefined },
    `listening on ${address}; background work ${config.background ? 'runs in this process' : 'off (NO_BACKGROUND)'}`,
  );

  let stopping = false;
  let endDrain: (() => void) | undefined;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // Ctrl-C during the drain: whoever is at the terminal wants the process gone now.
      if (signal === 'SIGINT') endDrain?.();
      return;
    }
    stopping = true;
    // SIGTERM (systemd, an orchestrator) drains, so that a proxy's health checks take the node out
    // before it stops listening; a terminal's SIGINT has no proxy to wait for and stops at once.
    if (signal === 'SIGTERM' && config.shutdownDrainMs > 0) {
      // Idle keep-alive connections stay open meanwhile: a proxy may still send a request on one.
      app.beginDrain();
      logger.info({ signal, drainMs: config.shutdownDrainMs }, 'draining: health checks answer 503 while requests are still served');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, config.shutdownDrainMs);
        endDrain = () => {
          clearTimeout(timer);
          logger.info({ signal: 'SIGINT' }, 'drain ended early');
          resolve();
        };
      });
    }
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, FORCE_EXIT_MS).unref();
    // Connections that finish their answer close (Connection: close); those idle in between are
    // closed as they become idle; whatever is still open after FINISH_MS is cut.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    const cut = setTimeout(() => app.server.closeAllConnections(), FINISH_MS);
    try {
      await Promise.all([app.close(), work.stop()]);
      await database.close();
    } catch (error) {
      logger.error({ err: error }, 'error while shutting down');
    }
    clearInterval(sweep);
    clearTimeout(cut);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** WORKERS > 1: migrate and bootstrap once, fork, replace crashed workers, drain them on SIGTERM. */
async function primary(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const runtime = await runtimeOrExit(config, logger);
  logger.info({ ...engineLine(config, runtime), workers: config.workers }, `database ready; starting ${config.workers} workers`);
  try {
    const token = await ensureStaffToken(runtime.deps);
    if (token) process.stdout.write(`staff token: ${token}\n`);
  } catch (error) {
    startFailure(config, error);
  }
  await runtime.database.close();
  serveClusterMetrics();

  let stopping = false;
  for (let i = 0; i < config.workers; i++) cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        logger.info('every worker has stopped');
        process.exit(0);
      }
      return;
    }
    // A worker that cannot start (exit 1 or 2 before listening) would only fail again.
    if (code === 2) {
      logger.error({ pid: worker.process.pid }, 'a worker refused its configuration; stopping');
      process.exit(2);
    }
    logger.warn({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
    cluster.fork();
  });
  // The workers get the primary's signal: SIGTERM drains them, SIGINT (also a second one, during
  // the drain) stops them at once, as it does a single process.
  const stop = (signal: NodeJS.Signals) => {
    const workers = Object.values(cluster.workers ?? {});
    if (stopping) {
      if (signal === 'SIGINT') for (const worker of workers) worker?.process.kill('SIGINT');
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: waiting for the workers to stop');
    if (workers.length === 0) process.exit(0);
    for (const worker of workers) worker?.process.kill(signal);
    setTimeout(
      () => {
        logger.error('workers did not stop in time; killing them');
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
        process.exit(1);
      },
      (signal === 'SIGTERM' ? config.shutdownDrainMs : 0) + FORCE_EXIT_MS + 500,
    ).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Starts the service with a configuration already checked (see main.ts). */
export async function start(config: Config): Promise<void> {
  // A stray rejected promise (a database call nobody awaited) is logged, never fatal.
  const logger = createLogger(config.logLevel);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  if (config.workers > 1 && cluster.isPrimary) return primary(config);
  await serve(config);
}
