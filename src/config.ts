import ipaddr from 'ipaddr.js';
import { parseSecretsKey } from './lib/secrets.js';

/**
 * The service's configuration: one pass over the environment, validated, frozen.
 * Decisions §1 lists every setting and its default.
 */
export interface Config {
  port: number;
  host: string;
  /** `postgres://…`, `memory:` or null (embedded PGlite in dataDir). */
  databaseUrl: string | null;
  /** `session` (PostgreSQL or a session-mode pooler) or `transaction` (PgBouncer pool_mode = transaction) (DATABASE_POOL_MODE). */
  databasePoolMode: 'session' | 'transaction';
  /** A connection that is not transaction-pooled, for what needs a session (LISTEN), or null (DATABASE_DIRECT_URL). */
  databaseDirectUrl: string | null;
  dataDir: string;
  staffToken: string | null;
  secretsKey: string | null;
  testClock: boolean;
  /** Plain `http://` webhook URLs (WEBHOOK_ALLOW_INSECURE). */
  webhookAllowInsecure: boolean;
  /** Webhooks to loopback, private, link-local and reserved addresses and local names (WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean;
  maxStayNights: number;
  workers: number;
  logLevel: string;
  /** Run the background loops (delivery, probes, jobs) in this process. */
  background: boolean;
  /** Enforce the request rate tiers (off only for load tests). */
  rateLimits: boolean;
  /** Longest a request may take to arrive whole, headers and body (REQUEST_TIMEOUT_SECONDS). */
  requestTimeoutMs: number;
  /** Staff API requests per minute per source address. */
  staffRateLimit: number;
  /** Failed staff authentications per minute per source address; past it every staff call of the address is refused. */
  staffAuthFailureLimit: number;
  /** A bearer token that may read /metrics (besides staff tokens). */
  metricsToken: string | null;
  /** At start, revoke every staff token but STAFF_TOKEN's (STAFF_TOKEN_REVOKE_OTHERS; needs STAFF_TOKEN). */
  staffTokenRevokeOthers: boolean;

  /** How long a claim on background work lasts unless renewed (WORK_LEASE_MS). */
  workLeaseMs: number;
  /** How often held claims are renewed (WORK_LEASE_RENEW_MS). */
  workLeaseRenewMs: number;

  /** Addresses and CIDRs of proxies whose X-Forwarded-For is believed (TRUST_PROXY); empty: none. */
  trustProxy: string[];
  /** After SIGTERM, how long health checks answer 503 while requests are still served (SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs: number;

  /** Where alert notices are POSTed when an alert starts and ends (ALERT_WEBHOOK_URL); null: none are sent. */
  alertWebhookUrl: string | null;
  /** Signs the alert notices, `whsec_…` (ALERT_WEBHOOK_SECRET); set exactly when alertWebhookUrl is. */
  alertWebhookSecret: string | null;
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

const TRUE = ['1', 'true', 'on'];
const FALSE = ['0', 'false', 'off'];

/** A boolean setting: 1/0, true/false, on/off (any case); unset or empty → `fallback`. */
function flag(env: NodeJS.ProcessEnv, name: string, fallback = false): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (TRUE.includes(raw)) return true;
  if (FALSE.includes(raw)) return false;
  throw new ConfigError(`${name} must be one of 1/0, true/false, on/off, got "${env[name]}"`);
}

function secretsKeySetting(env: NodeJS.ProcessEnv): string | null {
  const raw = env.SECRETS_KEY?.trim() || null;
  if (raw) {
    try {
      parseSecretsKey(raw);
    } catch {
      throw new ConfigError('SECRETS_KEY must be 32 bytes written as 64 hex characters or base64 (make one with: openssl rand -hex 32)');
    }
  }
  return raw;
}

function isPostgresUrl(raw: string): boolean {
  try {
    return /^postgres(ql)?:$/.test(new URL(raw).protocol);
  } catch {
    return false;
  }
}

function databaseUrlSetting(env: NodeJS.ProcessEnv): string | null {
  const raw = env.DATABASE_URL?.trim() || null;
  if (!raw || raw === 'memory:') return raw;
  if (!isPostgresUrl(raw)) {
    throw new ConfigError('DATABASE_URL must be postgres://user@host:port/database (or postgresql://…, or memory:); unset it to use the embedded database');
  }
  return raw;
}

function databasePoolModeSetting(env: NodeJS.ProcessEnv, databaseUrl: string | null): Config['databasePoolMode'] {
  const raw = (env.DATABASE_POOL_MODE ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'session') return 'session';
  if (raw !== 'transaction') throw new ConfigError(`DATABASE_POOL_MODE must be session or transaction, got "${env.DATABASE_POOL_MODE}"`);
  if (!databaseUrl?.startsWith('postgres'))
    throw new ConfigError('DATABASE_POOL_MODE=transaction needs DATABASE_URL=postgres://… (a transaction-mode pooler in front of PostgreSQL)');
  return 'transaction';
}

function databaseDirectUrlSetting(env: NodeJS.ProcessEnv, databaseUrl: string | null): string | null {
  const raw = env.DATABASE_DIRECT_URL?.trim() || null;
  if (!raw) return null;
  if (!isPostgresUrl(raw))
    throw new ConfigError('DATABASE_DIRECT_URL must be postgres://user@host:port/database (PostgreSQL itself, not a transaction pooler)');
  if (!databaseUrl?.startsWith('postgres')) throw new ConfigError('DATABASE_DIRECT_URL needs DATABASE_URL=postgres://… as well');
  return raw;
}

/** `dls_` and 40 base62 characters: the form of every staff token the service mints. */
export const STAFF_TOKEN_FORMAT = /^dls_[A-Za-z0-9]{40}$/;

function staffToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.STAFF_TOKEN?.trim();
  if (!raw) return null;
  if (!STAFF_TOKEN_FORMAT.test(raw)) throw new ConfigError('STAFF_TOKEN must be dls_ followed by 40 letters or digits');
  return raw;
}

/** TRUST_PROXY: comma-separated IPv4/IPv6 addresses or CIDRs; unset or empty trusts no proxy. */
function trustProxySetting(env: NodeJS.ProcessEnv): string[] {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (raw === '') return [];
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (parseProxyEntry(entry) === null) {
      throw new ConfigError(`TRUST_PROXY must be comma-separated IP addresses or CIDRs of trusted proxies (e.g. 10.0.0.5,10.1.0.0/16), got "${entry}"`);
    }
  }
  return entries;
}

type ProxyRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** One TRUST_PROXY entry as a range (an address alone is its own /32 or /128), or null when unusable. */
function parseProxyEntry(entry: string): ProxyRange | null {
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0) return null;
  if (!(ipaddr.IPv4.isValidFourPartDecimal(address) || (address.includes(':') && ipaddr.IPv6.isValid(address)))) return null;
  const ip = ipaddr.parse(address);
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  if (bits === undefined) return [ip, max];
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return [ip, Number(bits)];
}

/** Whether TRUST_PROXY trusts every address of a family (0.0.0.0/0 or ::/0): logged at start. */
export function trustsEveryAddress(entries: string[]): boolean {
  return entries.some((entry) => parseProxyEntry(entry)?.[1] === 0);
}

/**
 * The proxy check Fastify is given (its `trustProxy` function): the peer is a trusted proxy when
 * its address lies in one of the ranges. Built from the entries the configuration check accepted,
 * with /0 allowed (load balancers whose addresses change), which the usual address list refuses.
 */
export function proxyTrust(entries: string[]): (address: string) => boolean {
  const ranges = entries.map((entry) => parseProxyEntry(entry)).filter((range): range is ProxyRange => range !== null);
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.process(address);
    return ranges.some(([base, bits]) => base.kind() === ip.kind() && (ip as ipaddr.IPv4).match(base, bits));
  };
}

/** `whsec_` and base64 of at least 18 bytes: a Standard Webhooks secret (the service's own are `whsec_` + 32 base62). */
const WEBHOOK_SECRET_FORMAT = /^whsec_[A-Za-z0-9+/]{24,}={0,2}$/;

/**
 * ALERT_WEBHOOK_URL and its secret. The URL's scheme is judged here; its host against the SSRF
 * rules of partner webhooks at start (src/main.ts) and on every resolved address when sending.
 */
function alertWebhookSettings(env: NodeJS.ProcessEnv): { alertWebhookUrl: string | null; alertWebhookSecret: string | null } {
  const url = env.ALERT_WEBHOOK_URL?.trim() || null;
  const secret = env.ALERT_WEBHOOK_SECRET?.trim() || null;
  if (!url) {
    if (secret) throw new ConfigError('ALERT_WEBHOOK_SECRET is set but ALERT_WEBHOOK_URL is not: set both, or neither');
    return { alertWebhookUrl: null, alertWebhookSecret: null };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`ALERT_WEBHOOK_URL must be an absolute https:// URL, got "${url}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError(`ALERT_WEBHOOK_URL must be an https:// URL, got "${url}"`);
  if (!secret)
    throw new ConfigError(
      'ALERT_WEBHOOK_URL needs ALERT_WEBHOOK_SECRET (whsec_ followed by base64, e.g. whsec_$(openssl rand -base64 32)) to sign its notices',
    );
  if (!WEBHOOK_SECRET_FORMAT.test(secret))
    throw new ConfigError('ALERT_WEBHOOK_SECRET must be whsec_ followed by at least 24 base64 characters (e.g. whsec_$(openssl rand -base64 32))');
  return { alertWebhookUrl: url, alertWebhookSecret: secret };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = databaseUrlSetting(env);
  const logLevel = (env.LOG_LEVEL || 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const dataDir = env.DATA_DIR?.trim() || './data';
  if (dataDir.includes('\0')) throw new ConfigError('DATA_DIR must be a directory path');
  const workers = intSetting(env, 'WORKERS', 1, 1, 64);
  const metricsToken = env.METRICS_TOKEN?.trim() || null;
  if (metricsToken !== null && !/^[A-Za-z0-9_\-.~+/]{16,256}=*$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 256 characters of letters, digits and -._~+/ (a bearer token)');
  }
  const staffTokenRevokeOthers = flag(env, 'STAFF_TOKEN_REVOKE_OTHERS');
  const configuredStaffToken = staffToken(env);
  if (staffTokenRevokeOthers && !configuredStaffToken) {
    throw new ConfigError('STAFF_TOKEN_REVOKE_OTHERS needs STAFF_TOKEN: it keeps that token and revokes every other one');
  }
  if (workers > 1 && !databaseUrl?.startsWith('postgres')) {
    throw new ConfigError('WORKERS above 1 needs PostgreSQL (DATABASE_URL=postgres://…): the embedded database lives in one process');
  }
  const databasePoolMode = databasePoolModeSetting(env, databaseUrl);
  const databaseDirectUrl = databaseDirectUrlSetting(env, databaseUrl);
  const workLeaseMs = intSetting(env, 'WORK_LEASE_MS', 30_000, 200, 600_000);
  const workLeaseRenewMs = intSetting(env, 'WORK_LEASE_RENEW_MS', Math.min(10_000, Math.floor(workLeaseMs / 3)), 50, 600_000);
  // a renewal must land well before the lease runs out, even when one renewal is slow
  if (workLeaseRenewMs * 2 > workLeaseMs) {
    throw new ConfigError(`WORK_LEASE_RENEW_MS (${workLeaseRenewMs}) must be at most half of WORK_LEASE_MS (${workLeaseMs})`);
  }
  return Object.freeze({
    port: intSetting(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    databasePoolMode,
    databaseDirectUrl,
    dataDir,
    staffToken: configuredStaffToken,
    secretsKey: secretsKeySetting(env),
    testClock: flag(env, 'TEST_CLOCK'),
    webhookAllowInsecure: flag(env, 'WEBHOOK_ALLOW_INSECURE'),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    maxStayNights: intSetting(env, 'MAX_STAY_NIGHTS', 30, 1, 3650),
    workers,
    logLevel,
    background: !flag(env, 'NO_BACKGROUND'),
    rateLimits: flag(env, 'RATE_LIMITS', true),
    requestTimeoutMs: intSetting(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 600) * 1000,
    staffRateLimit: intSetting(env, 'STAFF_RATE_LIMIT', 600, 1, 1_000_000),
    staffAuthFailureLimit: intSetting(env, 'STAFF_AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
    metricsToken,
    staffTokenRevokeOthers,

    workLeaseMs,
    workLeaseRenewMs,

    trustProxy: trustProxySetting(env),
    shutdownDrainMs: intSetting(env, 'SHUTDOWN_DRAIN_MS', 5_000, 0, 120_000),

    ...alertWebhookSettings(env),
  });
}
