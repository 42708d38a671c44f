/**
 * The fleet on one machine, from Debian's packages: etcd, two PostgreSQL 15 servers under Patroni
 * (primary + synchronous standby), HAProxy following the primary, PgBouncer in front of it, three
 * service nodes, an HAProxy in front of them, and Prometheus watching the nodes with the alerting
 * rules of deploy/prometheus. Every port is a free one picked at `up`, every
 * file is under one state directory, and `down` leaves nothing running.
 *
 *   npm run fleet -- up [--pool-mode transaction|session] [--nodes 3] [--dist] [--state-dir DIR] [--test-alert-thresholds]
 *   npm run fleet -- status [DIR]
 *   npm run fleet -- down [DIR] [--keep]
 *
 * The configuration files are deploy/'s, filled in for this machine. The fleet tests drive the
 * same functions (upFleet, downFleet, and the node and member controls of fleet/).
 *
 * fleet/topology.ts: the parts, their ports, the state file, the templates and HAProxy's view;
 * fleet/processes.ts: packages, starting and stopping processes, the service nodes;
 * fleet/postgres.ts: etcd, Patroni, the primary's HAProxy and PgBouncer;
 * fleet/prometheus.ts: Prometheus, its rules (and their test thresholds) and its HTTP API.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './lib.js';
import { clusterMembers, newPassword, postmasterPid, startDatabaseTier } from './fleet/postgres.js';
import { alive, checkReachableByPostgres, ensurePackages, postgresIds, processesUnder, startNodeTier, stopPid } from './fleet/processes.js';
import { activeAlerts, prometheusApi, startPrometheus } from './fleet/prometheus.js';
import {
  type FleetOptions,
  type FleetSecrets,
  type FleetState,
  LAST_STATE,
  loadState,
  nodeProxySocket,
  postgresProxySocket,
  proxyServers,
  saveState,
  writePrivate,
} from './fleet/topology.js';

// What the fleet tests and the other fleet scripts drive.
export { type ClusterMember, REST_API_USER, clusterMembers, killMember, leaderName, postmasterPid, startMember, waitForSyncPair } from './fleet/postgres.js';
export { alive, ensurePackages, startNode, stopNode } from './fleet/processes.js';
export { type ActiveAlert, TEST_FOR, activeAlerts, prometheusApi, prometheusUrl, withTestThresholds } from './fleet/prometheus.js';
export {
  type FleetOptions,
  type FleetSecrets,
  type FleetState,
  type Member,
  type NodeProcess,
  type PoolMode,
  loadState,
  nodeProxySocket,
  postgresProxySocket,
  proxyServers,
  waitForProxyStatus,
} from './fleet/topology.js';

// up / down / status

export async function upFleet(options: FleetOptions = {}): Promise<FleetState> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = Date.now();
  ensurePackages(log);
  const stateDir = path.resolve(options.stateDir ?? (await mkdtemp(path.join(os.tmpdir(), 'doorloom-fleet-'))));
  // The state directory holds the secrets (state.json, the configuration files) and the servers'
  // data: 0700, its files 0600. PostgreSQL, Patroni, etcd and PgBouncer run as postgres and write
  // under it, so postgres owns it; this process, as root, reads and writes it all the same.
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const { uid, gid } = postgresIds();
  await chown(stateDir, uid, gid);
  await chmod(stateDir, 0o700);
  checkReachableByPostgres(stateDir);
  for (const sub of ['etcd', 'run', 'archive', 'pg1', 'pg2']) {
    await mkdir(path.join(stateDir, sub), { recursive: true, mode: 0o700 });
    await chown(path.join(stateDir, sub), uid, gid);
  }
  await writePrivate(LAST_STATE, stateDir);

  const nodeCount = options.nodes ?? 3;
  const ports = await Promise.all(Array.from({ length: 10 + nodeCount }, freePort));
  const [etcdClient, etcdPeer, pg1, pg2, rest1, rest2, pgProxy, bouncer, nodeProxy, prometheus] = ports;
  const poolMode = options.poolMode ?? 'transaction';
  const secrets: FleetSecrets = { postgres: newPassword(), replicator: newPassword(), doorloom: newPassword(), restApi: newPassword() };
  const state: FleetState = {
    stateDir,
    poolMode,
    dist: !!options.dist,
    staffToken: `dls_${randomBytes(30)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '')
      .padEnd(40, 'x')
      .slice(0, 40)}`,
    metricsToken: randomBytes(24).toString('hex'),
    secretsKey: randomBytes(32).toString('hex'),
    secrets,
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
    prometheus: { port: prometheus, pid: 0, testThresholds: !!options.testAlertThresholds },
    apiUrl: `http://127.0.0.1:${nodeProxy}`,
    databaseUrl: `postgres://doorloom:${secrets.doorloom}@127.0.0.1:${bouncer}/doorloom`,
    directUrl: `postgres://doorloom:${secrets.doorloom}@127.0.0.1:${pgProxy}/doorloom`,
    adminUrl: `postgres://postgres:${secrets.postgres}@127.0.0.1:${pgProxy}/postgres`,
  };
  await saveState(state);
  log(`state: ${stateDir}`);
  try {
    await startDatabaseTier(state, log);
    await startNodeTier(state, log);
    await startPrometheus(state, log);
  } catch (error) {
    log(`up failed; logs are under ${stateDir}`);
    await downFleet(state.stateDir, { keep: true, log: () => {} });
    throw error;
  }
  log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s: API ${state.apiUrl}, staff token ${state.staffToken}`);
  return state;
}

export async function downFleet(stateDir?: string, options: { keep?: boolean; log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const state = await loadState(stateDir);
  // front to back: nothing is sent to a part that has already stopped (Prometheus first: a node it
  // can no longer scrape is not news)
  await stopPid(state.prometheus.pid, 'SIGTERM', 10_000);
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
    const role = seen
      ? `${seen.role} ${seen.state}${seen.lag !== undefined ? `, lag ${seen.lag}` : ''}${seen.timeline ? `, timeline ${seen.timeline}` : ''}`
      : 'not in the cluster';
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
  lines.push(...(await prometheusStatus(state)));
  lines.push(`staff token      ${state.staffToken}`);
  return lines.join('\n');
}

/** Prometheus's targets and the alerts it has pending or firing. */
async function prometheusStatus(state: FleetState): Promise<string[]> {
  const head = `prometheus       http://127.0.0.1:${state.prometheus.port}  ${alive(state.prometheus.pid) ? `running (pid ${state.prometheus.pid})` : 'stopped'}`;
  if (!alive(state.prometheus.pid)) return [head];
  try {
    const { activeTargets } = await prometheusApi<{ activeTargets: Array<{ labels: { instance: string }; health: string }> }>(
      state,
      '/api/v1/targets?state=active',
    );
    const targets = activeTargets.map((t) => `${t.labels.instance} ${t.health}`).join(', ');
    const alerts = await activeAlerts(state);
    const firing = alerts.filter((a) => a.state === 'firing');
    const describe = (a: (typeof alerts)[number]) => {
      const { alertname: _, severity, ...rest } = a.labels;
      return `  ${a.state.padEnd(8)} ${a.name} ${severity} ${Object.entries(rest)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')} since ${a.activeAt}`;
    };
    return [
      `${head}${state.prometheus.testThresholds ? ' (test alert thresholds)' : ''}: scraping ${targets}`,
      `alerts           ${firing.length} firing, ${alerts.length - firing.length} pending`,
      ...alerts.sort((a, b) => a.state.localeCompare(b.state) || a.name.localeCompare(b.name)).map(describe),
    ];
  } catch (error) {
    return [`${head}: ${(error as Error).message}`];
  }
}

async function cli(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const option = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const positional = rest.find(
    (arg, i) => !arg.startsWith('--') && !(i > 0 && rest[i - 1].startsWith('--') && ['pool-mode', 'nodes', 'state-dir'].includes(rest[i - 1].slice(2))),
  );
  switch (command) {
    case 'up': {
      const poolMode = option('pool-mode') ?? 'transaction';
      if (poolMode !== 'session' && poolMode !== 'transaction') throw new Error('--pool-mode must be session or transaction');
      const nodes = Number(option('nodes') ?? 3);
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) throw new Error('--nodes must be from 1 to 9');
      const state = await upFleet({
        poolMode,
        nodes,
        dist: rest.includes('--dist'),
        stateDir: option('state-dir'),
        testAlertThresholds: rest.includes('--test-alert-thresholds'),
      });
      console.log(`stop it with: npm run fleet -- down ${state.stateDir}`);
      return;
    }
    case 'down':
      return downFleet(positional, { keep: rest.includes('--keep') });
    case 'status':
      console.log(await fleetStatus(positional));
      return;
    default:
      throw new Error(
        'usage: npm run fleet -- up [--pool-mode transaction|session] [--nodes 3] [--dist] [--state-dir DIR] [--test-alert-thresholds] | status [DIR] | down [DIR] [--keep]',
      );
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
