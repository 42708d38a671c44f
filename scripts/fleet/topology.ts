/**
 * The fleet's shape: its parts and their ports, the state file that records them, the deploy/
 * templates filled in for this machine, and HAProxy's view of which server is up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT, sleep } from '../lib.js';

export const LAST_STATE = path.join(os.tmpdir(), 'doorloom-fleet.last');

export type PoolMode = 'session' | 'transaction';

export interface FleetOptions {
  /** PgBouncer's pool_mode and the nodes' DATABASE_POOL_MODE (default transaction). */
  poolMode?: PoolMode;
  nodes?: number;
  /** Run the built service (dist/main.js) rather than src/ through tsx. */
  dist?: boolean;
  stateDir?: string;
  /** Settings added to every node's environment. */
  nodeEnv?: Record<string, string>;
  /** Prometheus evaluates the alerting rules with the short test thresholds (fleet/prometheus.ts). */
  testAlertThresholds?: boolean;
  log?: (line: string) => void;
}

export interface Member {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  pid: number;
}

export interface NodeProcess {
  name: string;
  port: number;
  pid: number;
}

/** Passwords that `up` generates: nothing in the fleet is reached without one. */
export interface FleetSecrets {
  /** PostgreSQL's superuser, postgres (also Patroni's rewind user). */
  postgres: string;
  /** PostgreSQL's replication role, replicator. */
  replicator: string;
  /** The service's role, doorloom (PostgreSQL and PgBouncer). */
  doorloom: string;
  /** Patroni's REST API (user patroni): switchover, restart, reload and the other changes. */
  restApi: string;
}

export interface FleetState {
  stateDir: string;
  poolMode: PoolMode;
  dist: boolean;
  staffToken: string;
  /** The nodes' METRICS_TOKEN, Prometheus's bearer token. */
  metricsToken: string;
  secretsKey: string;
  secrets: FleetSecrets;
  nodeEnv: Record<string, string>;
  etcd: { clientPort: number; peerPort: number; pid: number };
  members: Member[];
  postgresProxy: { port: number; pid: number };
  pgbouncer: { port: number; pid: number };
  nodes: NodeProcess[];
  nodeProxy: { port: number; pid: number };
  /** Prometheus scraping the nodes and evaluating deploy/prometheus/alerts.yml. */
  prometheus: { port: number; pid: number; testThresholds: boolean };
  /** The API through the node HAProxy. */
  apiUrl: string;
  /** DATABASE_URL of the nodes (PgBouncer). */
  databaseUrl: string;
  /** DATABASE_DIRECT_URL of the nodes (the primary, through its HAProxy). */
  directUrl: string;
  /** A superuser connection to the primary (through its HAProxy), for checks. */
  adminUrl: string;
}

/** Polls `probe` until it gives a value; a thrown error with `fatal` set ends the wait at once. */
export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, logFile?: string): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    const fatal = (last as { fatal?: boolean } | undefined)?.fatal;
    if (Date.now() > until || fatal) {
      const tail = logFile && existsSync(logFile) ? `\n--- ${logFile}:\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}` : '';
      throw new Error(`${what}: ${fatal ? 'failed' : `not ready after ${timeoutMs} ms`}${last ? ` (${String((last as Error).message ?? last)})` : ''}${tail}`);
    }
    await sleep(200);
  }
}

/** A deploy/ template with its {{NAME}}s filled in. */
export async function template(file: string, values: Record<string, string>): Promise<string> {
  const text = await readFile(path.join(ROOT, 'deploy', file), 'utf8');
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`deploy/${file}: no value for ${whole}`);
    return values[name];
  });
}

// State

/** Writes a file only its owner may read (mode 0600, also when it already existed). */
export async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
}

export async function saveState(state: FleetState): Promise<void> {
  await writePrivate(path.join(state.stateDir, 'state.json'), JSON.stringify(state, null, 2));
}

export async function loadState(stateDir?: string): Promise<FleetState> {
  const dir = stateDir ?? (existsSync(LAST_STATE) ? readFileSync(LAST_STATE, 'utf8').trim() : '');
  if (!dir || !existsSync(path.join(dir, 'state.json'))) throw new Error(`no fleet state at ${dir || '(none recorded)'}: give the directory that up printed`);
  return JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as FleetState;
}

// HAProxy's own view

/** HAProxy's stats: server name → status (UP, DOWN, MAINT, …) for each backend server. */
export async function proxyServers(socketPath: string): Promise<Record<string, string>> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(socketPath);
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write('show stat\n');
  });
  const servers: Record<string, string> = {};
  for (const line of text.split('\n').slice(1)) {
    const [, server, ...rest] = line.split(',');
    if (!server || server === 'FRONTEND' || server === 'BACKEND') continue;
    servers[server] = rest[15]; // field 18: status
  }
  return servers;
}

export const nodeProxySocket = (state: FleetState) => path.join(state.stateDir, 'haproxy-nodes.sock');
export const postgresProxySocket = (state: FleetState) => path.join(state.stateDir, 'haproxy-postgres.sock');

/** Waits until HAProxy reports `server` with `status` (e.g. UP once a restarted node passed its checks). */
export async function waitForProxyStatus(state: FleetState, server: string, status: string, timeoutMs = 30_000): Promise<void> {
  const socket = server.startsWith('pg') ? postgresProxySocket(state) : nodeProxySocket(state);
  await waitFor(`HAProxy reports ${server} ${status}`, async () => (await proxyServers(socket))[server] === status, timeoutMs);
}
