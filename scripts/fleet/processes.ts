/**
 * The fleet's processes: the Debian packages they come from, starting one in its own session (as
 * postgres where it must be), stopping it, and the service nodes with the HAProxy in front of them.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PG_BIN, ROOT, asPostgresArgv, sleep } from '../lib.js';
import { type FleetState, type NodeProcess, saveState, template, waitFor, waitForProxyStatus, writePrivate } from './topology.js';

const PACKAGES: Array<[command: string, pkg: string]> = [
  ['haproxy', 'haproxy'],
  ['pgbouncer', 'pgbouncer'],
  ['patroni', 'patroni'],
  ['etcd', 'etcd-server'],
  ['prometheus', 'prometheus'],
];

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

export function postgresIds(): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/**
 * Starts a long-running process in its own session (it outlives `up`), output appended to `logFile`;
 * `asPostgres` drops to the postgres user with setpriv, which execs: the pid is the process itself.
 * The process starts in `cwd`, a directory its user can enter (a checkout under a 0700 home is not
 * one for postgres), with umask 077, so that whatever it writes is its own user's only.
 */
export function launch(command: string, args: string[], logFile: string, options: { cwd: string; asPostgres?: boolean; env?: Record<string, string> }): number {
  const fd = openSync(logFile, 'a', 0o600);
  const argv = options.asPostgres ? asPostgresArgv(command, args) : [command, ...args];
  // the child inherits the umask at spawn, which forks and execs before returning
  const umask = process.umask(0o077);
  let child;
  try {
    child = spawn(argv[0], argv.slice(1), {
      detached: true,
      stdio: ['ignore', fd, fd],
      cwd: options.cwd,
      env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' },
    });
  } finally {
    process.umask(umask);
    closeSync(fd);
  }
  child.unref();
  if (!child.pid) throw new Error(`could not start ${command}`);
  return child.pid;
}

/** Throws unless the postgres user can enter and write `dir` (every parent must be open to it). */
export function checkReachableByPostgres(dir: string): void {
  const [setpriv, ...argv] = asPostgresArgv('test', ['-w', dir, '-a', '-x', dir]);
  try {
    execFileSync(setpriv, argv, { stdio: 'ignore', cwd: '/' });
  } catch {
    throw new Error(`the postgres user cannot enter ${dir}: give a --state-dir whose parent directories it may enter (the default is under ${os.tmpdir()})`);
  }
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

/** Sends `signal`, waits up to `timeoutMs` for the exit, then SIGKILL. */
export async function stopPid(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
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

/** Processes whose command line names the state directory (PostgreSQL, Patroni, HAProxy, PgBouncer, etcd). */
export function processesUnder(stateDir: string): number[] {
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
    METRICS_TOKEN: state.metricsToken,
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
  node.pid = launch(process.execPath, args, log, { cwd: ROOT, env: nodeEnvironment(state, node) });
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

/** The service nodes and the HAProxy in front of them. */
export async function startNodeTier(state: FleetState, log: (line: string) => void): Promise<void> {
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
  await writePrivate(path.join(state.stateDir, 'haproxy-nodes.cfg'), config);
  state.nodeProxy.pid = launch('haproxy', ['-W', '-db', '-f', path.join(state.stateDir, 'haproxy-nodes.cfg')], path.join(state.stateDir, 'haproxy-nodes.log'), {
    cwd: state.stateDir,
  });
  await saveState(state);
  for (const node of state.nodes) await waitForProxyStatus(state, node.name, 'UP');
  log(`HAProxy for the nodes on ${state.nodeProxy.port}`);
}
