/**
 * The service's configuration: one pass over the environment, validated, frozen.
 * Decisions §1 lists every setting and its default.
 */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `memory:` or null (embedded PGlite in dataDir). */
  databaseUrl: string | null;
  dataDir: string;
  staffToken: string | null;
  secretsKey: string | null;
  testClock: boolean;
  webhookAllowInsecure: boolean;
  maxStayNights: number;
  workers: number;
  logLevel: string;
  /** Run the background loops (delivery, probes, jobs) in this process. */
  background: boolean;
  /** Enforce the request rate tiers (off only for load tests). */
  rateLimits: boolean;
  /** A bearer token that may read /metrics (besides staff tokens). */
  metricsToken: string | null;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  return raw === '1' || raw === 'true' || raw === 'yes';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl) && databaseUrl !== 'memory:') {
    throw new ConfigError('DATABASE_URL must be postgres://…, postgresql://… or memory:');
  }
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const workers = intSetting(env, 'WORKERS', 1, 1, 64);
  const metricsToken = env.METRICS_TOKEN?.trim() || null;
  if (metricsToken !== null && !/^[A-Za-z0-9_\-.~+/]{16,256}=*$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 characters of letters, digits and -._~+/ (a bearer token)');
  }
  if (workers > 1 && !databaseUrl?.startsWith('postgres')) {
    throw new ConfigError('WORKERS above 1 needs PostgreSQL (DATABASE_URL=postgres://…): the embedded database lives in one process');
  }
  return Object.freeze({
    port: intSetting(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir: env.DATA_DIR || './data',
    staffToken: env.STAFF_TOKEN?.trim() || null,
    secretsKey: env.SECRETS_KEY?.trim() || null,
    testClock: flag(env, 'TEST_CLOCK'),
    webhookAllowInsecure: flag(env, 'WEBHOOK_ALLOW_INSECURE'),
    maxStayNights: intSetting(env, 'MAX_STAY_NIGHTS', 30, 1, 3650),
    workers,
    logLevel,
    background: !flag(env, 'NO_BACKGROUND'),
    rateLimits: !['0', 'off', 'false', 'no'].includes((env.RATE_LIMITS ?? '').toLowerCase()),
    metricsToken,
  });
}
