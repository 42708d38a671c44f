/**
 * The fleet on one machine, from Debian's packages: etcd, two PostgreSQL 15 servers under Patroni
 * (primary + synchronous standby), HAProxy following the primary, PgBouncer in front of it, three
 * service nodes and an HAProxy in front of them. Every port is a free one picked at `up`, every
 * file is under one state directory, and `down` leaves nothing running.
 *
 *   npm run fleet -- up [--pool-mode transaction|session] [--nodes 3] [--dist] [--state-dir DIR]
 *   npm run fleet -- status [DIR]
 *   npm run fleet -- down [DIR] [--keep]
 *
 * The configuration files are deploy/'s, filled in for this machine. The fleet tests drive the
 * same functions (upFleet, downFleet, and the node and member controls below).
 */
import { freePort } from './free-port.js';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '..');
const PG_BIN = '/usr/lib/postgresql/15/bin';
const LAST_STATE = path.join(os.tmpdir(), 'doorloom-fleet.last');
const PACKAGES: Array<[command: string, pkg: string]> = [
  ['haproxy', 'haproxy'],
  ['pgbouncer', 'pgbouncer'],
  ['patroni', 'patroni'],
  ['etcd', 'etcd-server'],
];

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

export interface FleetState {
  stateDir: string;
  poolMode: PoolMode;
  dist: boolean;
  staffToken: string;
  secretsKey: string;
  nodeEnv: Record<string, string>;
  etcd: { clientPort: number; peerPort: number; pid: number };
  members: Member[];
  postgresProxy: { port: number; pid: number };
  pgbouncer: { port: number; pid: number };
  nodes: NodeProcess[];
  nodeProxy: { port: number; pid: number };
  /** The API through the node HAProxy. */
  apiUrl: string;
  /** DATABASE_URL of the nodes (PgBouncer). */
  databaseUrl: string;
  /** DATABASE_DIRECT_URL of the nodes (the primary, through its HAProxy). */
  directUrl: string;
  /** A superuser connection to the primary (through its HAProxy), for checks. */
  adminUrl: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));


/** Installs the Debian packages whose commands are missing (apt-get update once, only if needed). */
export function ensurePackages(log: (line: string) => void = console.log): void {
  const missing = PACKAGES.filter(([command]) => !commandExists(command)).map(([, pkg]) => pkg);
  if (!existsSync(`${PG_BIN}/postgres`)) missing.push('postgresql-15');
  if (missing.length === 0) return;
  log(`installing ${missing.join(', ')} with apt`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '-o', 'DPkg::Lock::Timeout=300', ...missing], { stdio: 'inherit', env });
}

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** A deploy/ template with its {{NAME}}s filled in. */
async function template(file: string, values: Record<string, string>): Promise<string> {
  const text = await readFile(path.join(ROOT, 'deploy', file), 'utf8');
  return text.replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    if (!(name in values)) throw new Error(`deploy/${file}: no value for ${whole}`);
    return values[name];
  });
}

/**
 * Starts a long-running process in its own session (it outlives `up`), output appended to `logFile`;
 * `asPostgres` drops to the postgres user with setpriv, which execs: the pid is the process itself.
 */
function launch(command: string, args: string[], logFile: string, options: { asPostgres?: boolean; env?: Record<string, string>; cwd?: string } = {}): number {
  const fd = openSync(logFile, 'a');
  const argv = options.asPostgres ? ['setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args] : [command, ...args];
  const child = spawn(argv[0], argv.slice(1), {
    detached: true,
    stdio: ['ignore', fd, fd],
    cwd: options.cwd ?? ROOT,
    env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' },
  });
  closeSync(fd);
  child.unref();
  if (!child.pid) throw new Error(`could not start ${command}`);
  return child.pid;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie (exited, not yet reaped by its parent) is not running
    return !/^\d+ \([^)]*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, logFile?: string): Promise<T> {
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

/** The answer's body: parsed JSON, or the text when it is not JSON. */
async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body };
}

async function query<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await client.query<R>(text);
  } finally {
    await client.end().catch(() => {});
  }
}

// Patroni members

export interface ClusterMember {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

/** Patroni's view of the cluster, from the first member whose REST API answers. */
export async function clusterMembers(state: FleetState): Promise<ClusterMember[]> {
  for (const member of state.members) {
    try {
      const { status, body } = await getJson(`http://127.0.0.1:${member.restPort}/cluster`);
      const members = (body as { members?: unknown } | null)?.members;
      if (status === 200 && Array.isArray(members)) return members as ClusterMember[];
    } catch {
      // this member is down: ask the next
    }
  }
  return [];
}

export async function leaderName(state: FleetState): Promise<string | null> {
  return (await clusterMembers(state)).find((m) => m.role === 'leader' && m.state === 'running')?.name ?? null;
}

/** Resolves once one member leads and another streams as its synchronous standby. */
export async function waitForSyncPair(state: FleetState, timeoutMs = 90_000): Promise<{ leader: string; standby: string }> {
  return waitFor(
    'a primary with a synchronous standby',
    async () => {
      const members = await clusterMembers(state);
      const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
      const standby = members.find((m) => m.role === 'sync_standby' && ['streaming', 'running'].includes(m.state));
      return leader && standby ? { leader: leader.name, standby: standby.name } : null;
    },
    timeoutMs,
    path.join(state.stateDir, `${state.members[1]?.name}`, 'patroni.log'),
  );
}

function patroniLog(state: FleetState, member: Member): string {
  return path.join(state.stateDir, member.name, 'patroni.log');
}

/** (Re)starts a member's Patroni (which starts its PostgreSQL: a former primary rejoins as a standby). */
export async function startMember(state: FleetState, name: string): Promise<void> {
  const member = state.members.find((m) => m.name === name)!;
  member.pid = launch('patroni', [path.join(state.stateDir, member.name, 'patroni.yml')], patroniLog(state, member), {
    asPostgres: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: state.stateDir, LANG: 'C.UTF-8' },
  });
  await saveState(state);
}

/** The postmaster's pid, from its data directory. */
export function postmasterPid(member: Member): number | null {
  try {
    return Number(readFileSync(path.join(member.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || null;
  } catch {
    return null;
  }
}

/** The machine of a member dies: its Patroni and its PostgreSQL killed with -9. Returns the member's name. */
export function killMember(state: FleetState, name: string): void {
  const member = state.members.find((m) => m.name === name)!;
  const postmaster = postmasterPid(member);
  for (const pid of [member.pid, postmaster]) {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

// Service nodes

function nodeEnvironment(state: FleetState, node: NodeProcess): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    HOST: '127.0.0.1',
    PORT: String(node.port),
    DATABASE_URL: state.databaseUrl,
    DATABASE_POOL_MODE: state.poolMode,
    DATABASE_DIRECT_URL: state.directUrl,
    TRUST_PROXY: '127.0.0.1',
    STAFF_TOKEN: state.staffToken,
    SECRETS_KEY: state.secretsKey,
    WEBHOOK_ALLOW_INSECURE: '1',
    WEBHOOK_ALLOW_PRIVATE: '1',
    LOG_LEVEL: 'warn',
    ...state.nodeEnv,
  };
}

/** Starts (or restarts) a node and waits for its /healthz. */
export async function startNode(state: FleetState, name: string, timeoutMs = 120_000): Promise<void> {
  const node = state.nodes.find((n) => n.name === name)!;
  const args = state.dist ? [path.join(ROOT, 'dist/main.js')] : ['--import', 'tsx', path.join(ROOT, 'src/main.ts')];
  const log = path.join(state.stateDir, `${node.name}.log`);
  node.pid = launch(process.execPath, args, log, { env: nodeEnvironment(state, node) });
  await saveState(state);
  await waitFor(
    `${node.name} on port ${node.port}`,
    async () => {
      if (!alive(node.pid)) throw Object.assign(new Error(`${node.name} exited`), { fatal: true });
      return (await fetch(`http://127.0.0.1:${node.port}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok;
    },
    timeoutMs,
    log,
  );
}

/** Stops a node: SIGTERM (its drain) and the wait for it to exit; SIGKILL after `timeoutMs`. */
export async function stopNode(state: FleetState, name: string, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<void> {
  const node = state.nodes.find((n) => n.name === name)!;
  await stopPid(node.pid, signal, timeoutMs);
}

async function stopPid(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  if (!pid || !alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const until = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < until) await sleep(50);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await sleep(20);
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

// State

async function saveState(state: FleetState): Promise<void> {
  await writeFile(path.join(state.stateDir, 'state.json'), JSON.stringify(state, null, 2));
}

export async function loadState(stateDir?: string): Promise<FleetState> {
  const dir = stateDir ?? (existsSync(LAST_STATE) ? readFileSync(LAST_STATE, 'utf8').trim() : '');
  if (!dir || !existsSync(path.join(dir, 'state.json'))) throw new Error(`no fleet state at ${dir || '(none recorded)'}: give the directory that up printed`);
  return JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as FleetState;
}

// up / down / status

export async function upFleet(options: FleetOptions = {}): Promise<FleetState> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  ensurePackages(log);
  const stateDir = options.stateDir ?? (await mkdtemp(path.join(os.tmpdir(), 'doorloom-fleet-')));
  await mkdir(stateDir, { recursive: true });
  // PostgreSQL, Patroni, etcd and PgBouncer run as postgres and write under the state directory.
  const { uid, gid } = postgresIds();
  await chown(stateDir, uid, gid);
  await chmod(stateDir, 0o755);
  for (const sub of ['etcd', 'run', 'archive', 'pg1', 'pg2']) {
    await mkdir(path.join(stateDir, sub), { recursive: true, mode: 0o700 });
    await chown(path.join(stateDir, sub), uid, gid);
  }
  await writeFile(LAST_STATE, stateDir);

  const nodeCount = options.nodes ?? 3;
  const ports = await Promise.all(Array.from({ length: 10 + nodeCount }, freePort));
  const [etcdClient, etcdPeer, pg1, pg2, rest1, rest2, pgProxy, bouncer, nodeProxy] = ports;
  const poolMode = options.poolMode ?? 'transaction';
  const state: FleetState = {
    stateDir,
    poolMode,
    dist: !!options.dist,
    staffToken: `dls_${randomBytes(30).toString('base64').replace(/[^A-Za-z0-9]/g, '').padEnd(40, 'x').slice(0, 40)}`,
    secretsKey: randomBytes(32).toString('hex'),
    nodeEnv: options.nodeEnv ?? {},
    etcd: { clientPort: etcdClient, peerPort: etcdPeer, pid: 0 },
    members: [
      { name: 'pg1', pgPort: pg1, restPort: rest1, dataDir: path.join(stateDir, 'pg1', 'data'), pid: 0 },
      { name: 'pg2', pgPort: pg2, restPort: rest2, dataDir: path.join(stateDir, 'pg2', 'data'), pid: 0 },
    ],
    postgresProxy: { port: pgProxy, pid: 0 },
    pgbouncer: { port: bouncer, pid: 0 },
    nodes: Array.from({ length: nodeCount }, (_, i) => ({ name: `node${i + 1}`, port: ports[10 + i], pid: 0 })),
    nodeProxy: { port: nodeProxy, pid: 0 },
    apiUrl: `http://127.0.0.1:${nodeProxy}`,
    databaseUrl: `postgres://doorloom@127.0.0.1:${bouncer}/doorloom`,
    directUrl: `postgres://doorloom@127.0.0.1:${pgProxy}/doorloom`,
    adminUrl: `postgres://postgres@127.0.0.1:${pgProxy}/postgres`,
  };
  await saveState(state);
  log(`state: ${stateDir}`);
  try {
    await startDatabaseTier(state, log);
    await startNodeTier(state, log);
  } catch (error) {
    log(`up failed; logs are under ${stateDir}`);
    await downFleet(state.stateDir, { keep: true, log: () => {} });
    throw error;
  }
  log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s: API ${state.apiUrl}, staff token ${state.staffToken}`);
  return state;
}

async function startDatabaseTier(state: FleetState, log: (line: string) => void): Promise<void> {
  const { stateDir } = state;
  const postgresEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: stateDir, LANG: 'C.UTF-8' };
  const etcdUrl = (port: number) => `http://127.0.0.1:${port}`;
  state.etcd.pid = launch(
    'etcd',
    [
      '--name', 'fleet',
      '--data-dir', path.join(stateDir, 'etcd', 'data'),
      '--listen-client-urls', etcdUrl(state.etcd.clientPort),
      '--advertise-client-urls', etcdUrl(state.etcd.clientPort),
      '--listen-peer-urls', etcdUrl(state.etcd.peerPort),
      '--initial-advertise-peer-urls', etcdUrl(state.etcd.peerPort),
      '--initial-cluster', `fleet=${etcdUrl(state.etcd.peerPort)}`,
      '--log-level', 'warn',
    ],
    path.join(stateDir, 'etcd', 'etcd.log'),
    { asPostgres: true, env: postgresEnv },
  );
  await saveState(state);
  await waitFor('etcd', async () => ((await getJson(`${etcdUrl(state.etcd.clientPort)}/health`)).body as { health?: string } | null)?.health === 'true', 30_000, path.join(stateDir, 'etcd', 'etcd.log'));
  log(`etcd on ${state.etcd.clientPort}`);

  for (const member of state.members) {
    const dir = path.join(stateDir, member.name);
    const config = await template('patroni.yml', {
      NAMESPACE: `/doorloom-fleet-${path.basename(stateDir)}/`,
      NAME: member.name,
      REST_LISTEN: `127.0.0.1:${member.restPort}`,
      ETCD_HOSTS: `127.0.0.1:${state.etcd.clientPort}`,
      ARCHIVE_DIR: path.join(stateDir, 'archive'),
      PG_LISTEN: `127.0.0.1:${member.pgPort}`,
      DATA_DIR: member.dataDir,
      PGPASS: path.join(dir, 'pgpass'),
      SOCKET_DIR: path.join(stateDir, 'run'),
    });
    await writeFile(path.join(dir, 'patroni.yml'), config);
    await chown(path.join(dir, 'patroni.yml'), ...Object.values(postgresIds()) as [number, number]);
  }
  // pg1 first, so that it initialises the cluster; pg2 then copies it as its standby
  await startMember(state, 'pg1');
  await waitFor('pg1 as primary', async () => (await getJson(`http://127.0.0.1:${state.members[0].restPort}/primary`)).status === 200, 60_000, patroniLog(state, state.members[0]));
  await startMember(state, 'pg2');

  const proxyConfig = await template('haproxy-postgres.cfg', {
    STATE_DIR: stateDir,
    LISTEN: `127.0.0.1:${state.postgresProxy.port}`,
    SERVERS: state.members.map((m) => `    server ${m.name} 127.0.0.1:${m.pgPort} check port ${m.restPort}`).join('\n'),
  });
  await writeFile(path.join(stateDir, 'haproxy-postgres.cfg'), proxyConfig);
  state.postgresProxy.pid = launch('haproxy', ['-W', '-db', '-f', path.join(stateDir, 'haproxy-postgres.cfg')], path.join(stateDir, 'haproxy-postgres.log'));
  await saveState(state);
  // HAProxy counts a server up until its checks say otherwise: wait until the standby is out
  await waitForProxyStatus(state, 'pg1', 'UP');
  await waitForProxyStatus(state, 'pg2', 'DOWN');
  // the service's own role and database (it creates its tables itself)
  await waitFor(
    'the doorloom role and database through HAProxy',
    async () => {
      const exists = await query(state.adminUrl, `select 1 from pg_roles where rolname = 'doorloom'`);
      if (exists.rowCount === 0) await query(state.adminUrl, 'create role doorloom login');
      const db = await query(state.adminUrl, `select 1 from pg_database where datname = 'doorloom'`);
      if (db.rowCount === 0) await query(state.adminUrl, 'create database doorloom owner doorloom');
      return true;
    },
    30_000,
    path.join(stateDir, 'haproxy-postgres.log'),
  );
  log(`PostgreSQL primary pg1 on ${state.members[0].pgPort}, HAProxy for the primary on ${state.postgresProxy.port}`);

  const ignoreOptions = state.poolMode === 'session' ? ',options' : '';
  await writeFile(
    path.join(stateDir, 'pgbouncer.ini'),
    await template('pgbouncer.ini', {
      PG_HOST: '127.0.0.1',
      PG_PORT: String(state.postgresProxy.port),
      LISTEN_HOST: '127.0.0.1',
      LISTEN_PORT: String(state.pgbouncer.port),
      STATE_DIR: stateDir,
      AUTH_TYPE: 'trust',
      POOL_MODE: state.poolMode,
      IGNORE_OPTIONS: ignoreOptions,
    }),
  );
  await writeFile(path.join(stateDir, 'pgbouncer-users.txt'), '"doorloom" ""\n"postgres" ""\n');
  state.pgbouncer.pid = launch('pgbouncer', [path.join(stateDir, 'pgbouncer.ini')], path.join(stateDir, 'pgbouncer.out'), { asPostgres: true, env: postgresEnv });
  await saveState(state);
  await waitFor('PgBouncer', async () => (await query(state.databaseUrl, 'select 1 as one')).rows[0].one === 1, 30_000, path.join(stateDir, 'pgbouncer.log'));
  log(`PgBouncer (${state.poolMode} mode) on ${state.pgbouncer.port}`);

  const pair = await waitForSyncPair(state);
  log(`synchronous standby ${pair.standby} streaming from ${pair.leader}`);
}

async function startNodeTier(state: FleetState, log: (line: string) => void): Promise<void> {
  // The first node migrates the empty database; the others then start together.
  const [first, ...rest] = state.nodes;
  await startNode(state, first.name);
  await Promise.all(rest.map((node) => startNode(state, node.name)));
  log(`nodes on ${state.nodes.map((n) => n.port).join(', ')}`);

  const config = await template('haproxy-nodes.cfg', {
    STATE_DIR: state.stateDir,
    LISTEN: `127.0.0.1:${state.nodeProxy.port}`,
    SERVERS: state.nodes.map((n) => `    server ${n.name} 127.0.0.1:${n.port} check`).join('\n'),
  });
  await writeFile(path.join(state.stateDir, 'haproxy-nodes.cfg'), config);
  state.nodeProxy.pid = launch('haproxy', ['-W', '-db', '-f', path.join(state.stateDir, 'haproxy-nodes.cfg')], path.join(state.stateDir, 'haproxy-nodes.log'));
  await saveState(state);
  for (const node of state.nodes) await waitForProxyStatus(state, node.name, 'UP');
  log(`HAProxy for the nodes on ${state.nodeProxy.port}`);
}

/** Processes whose command line names the state directory (PostgreSQL, Patroni, HAProxy, PgBouncer, etcd). */
function processesUnder(stateDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(stateDir)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export async function downFleet(stateDir?: string, options: { keep?: boolean; log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const state = await loadState(stateDir);
  // front to back: nothing is sent to a part that has already stopped
  await stopPid(state.nodeProxy.pid, 'SIGTERM', 5_000);
  await Promise.all(state.nodes.map((node) => stopPid(node.pid, 'SIGTERM', 2_000)));
  await stopPid(state.pgbouncer.pid, 'SIGTERM', 5_000);
  await stopPid(state.postgresProxy.pid, 'SIGTERM', 5_000);
  // Patroni stops its PostgreSQL (fast shutdown) before it exits
  await Promise.all(state.members.map((member) => stopPid(member.pid, 'SIGTERM', 20_000)));
  for (const member of state.members) {
    const postmaster = postmasterPid(member);
    if (postmaster && alive(postmaster)) await stopPid(postmaster, 'SIGQUIT', 5_000);
  }
  await stopPid(state.etcd.pid, 'SIGTERM', 5_000);
  const left = processesUnder(state.stateDir);
  for (const pid of left) if (alive(pid)) process.kill(pid, 'SIGKILL');
  if (left.length > 0) log(`killed ${left.length} processes left over`);
  if (options.keep) log(`down; logs kept in ${state.stateDir}`);
  else {
    await rm(state.stateDir, { recursive: true, force: true });
    log('down');
  }
  if (existsSync(LAST_STATE) && readFileSync(LAST_STATE, 'utf8').trim() === state.stateDir) await rm(LAST_STATE, { force: true });
}

export async function fleetStatus(stateDir?: string): Promise<string> {
  const state = await loadState(stateDir);
  const lines: string[] = [`state: ${state.stateDir} (pool mode ${state.poolMode})`];
  const mark = (pid: number) => (alive(pid) ? `running (pid ${pid})` : 'stopped');
  lines.push(`etcd             127.0.0.1:${state.etcd.clientPort}  ${mark(state.etcd.pid)}`);
  const members = await clusterMembers(state);
  for (const member of state.members) {
    const seen = members.find((m) => m.name === member.name);
    const role = seen ? `${seen.role} ${seen.state}${seen.lag !== undefined ? `, lag ${seen.lag}` : ''}${seen.timeline ? `, timeline ${seen.timeline}` : ''}` : 'not in the cluster';
    lines.push(`${member.name.padEnd(16)} 127.0.0.1:${member.pgPort}  patroni ${mark(member.pid)}: ${role}`);
  }
  const primary = members.find((m) => m.role === 'leader');
  lines.push(`primary          ${primary ? `${primary.name} (${primary.state})` : 'none'}`);
  const pgServers = await proxyServers(postgresProxySocket(state)).catch(() => ({}));
  lines.push(`postgres proxy   127.0.0.1:${state.postgresProxy.port}  ${mark(state.postgresProxy.pid)}: ${JSON.stringify(pgServers)}`);
  lines.push(`pgbouncer        127.0.0.1:${state.pgbouncer.port}  ${mark(state.pgbouncer.pid)} (${state.poolMode} mode)`);
  for (const node of state.nodes) lines.push(`${node.name.padEnd(16)} 127.0.0.1:${node.port}  ${mark(node.pid)}`);
  const nodeServers = await proxyServers(nodeProxySocket(state)).catch(() => ({}));
  lines.push(`node proxy       ${state.apiUrl}  ${mark(state.nodeProxy.pid)}: ${JSON.stringify(nodeServers)}`);
  lines.push(`staff token      ${state.staffToken}`);
  return lines.join('\n');
}

async function cli(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const option = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const positional = rest.find((arg, i) => !arg.startsWith('--') && !(i > 0 && rest[i - 1].startsWith('--') && ['pool-mode', 'nodes', 'state-dir'].includes(rest[i - 1].slice(2))));
  switch (command) {
    case 'up': {
      const poolMode = option('pool-mode') ?? 'transaction';
      if (poolMode !== 'session' && poolMode !== 'transaction') throw new Error('--pool-mode must be session or transaction');
      const nodes = Number(option('nodes') ?? 3);
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) throw new Error('--nodes must be from 1 to 9');
      const state = await upFleet({ poolMode, nodes, dist: rest.includes('--dist'), stateDir: option('state-dir') });
      console.log(`stop it with: npm run fleet -- down ${state.stateDir}`);
      return;
    }
    case 'down':
      return downFleet(positional, { keep: rest.includes('--keep') });
    case 'status':
      console.log(await fleetStatus(positional));
      return;
    default:
      throw new Error('usage: npm run fleet -- up [--pool-mode transaction|session] [--nodes 3] [--dist] [--state-dir DIR] | status [DIR] | down [DIR] [--keep]');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  cli(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`fleet: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
