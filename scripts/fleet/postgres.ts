/**
 * The fleet's database tier: etcd, two PostgreSQL servers under Patroni (a primary and its
 * synchronous standby), the HAProxy that follows the primary, and PgBouncer in front of it.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { alive, launch, postgresIds } from './processes.js';
import { type FleetState, type Member, saveState, template, waitFor, waitForProxyStatus, writePrivate } from './topology.js';

/** The user of Patroni's REST API for the changes it makes (GET /primary and /cluster need none). */
export const REST_API_USER = 'patroni';

/** A password that needs no quoting in a URL, YAML or PgBouncer's auth file. */
export const newPassword = () => randomBytes(24).toString('hex');

/**
 * The SCRAM-SHA-256 verifier of a password, as PostgreSQL stores it (RFC 5802, 4096 iterations).
 * PostgreSQL gets it as the role's password and PgBouncer in its auth file: neither keeps the
 * password, and PgBouncer logs in to PostgreSQL with the keys of the client that it authenticated,
 * which needs the same verifier on both.
 */
export function scramVerifier(password: string, salt = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** The answer's body: parsed JSON, or the text when it is not JSON. */
export async function getJson(url: string): Promise<{ status: number; body: unknown }> {
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
    cwd: path.join(state.stateDir, member.name),
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

/** The machine of a member dies: its Patroni and its PostgreSQL killed with -9. */
export function killMember(state: FleetState, name: string): void {
  const member = state.members.find((m) => m.name === name)!;
  const postmaster = postmasterPid(member);
  for (const pid of [member.pid, postmaster]) {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** etcd, both members (pg1 initialises the cluster), the primary's HAProxy, the service's role and database, PgBouncer. */
export async function startDatabaseTier(state: FleetState, log: (line: string) => void): Promise<void> {
  const { stateDir } = state;
  const postgresEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: stateDir, LANG: 'C.UTF-8' };
  const etcdUrl = (port: number) => `http://127.0.0.1:${port}`;
  state.etcd.pid = launch(
    'etcd',
    [
      '--name',
      'fleet',
      '--data-dir',
      path.join(stateDir, 'etcd', 'data'),
      '--listen-client-urls',
      etcdUrl(state.etcd.clientPort),
      '--advertise-client-urls',
      etcdUrl(state.etcd.clientPort),
      '--listen-peer-urls',
      etcdUrl(state.etcd.peerPort),
      '--initial-advertise-peer-urls',
      etcdUrl(state.etcd.peerPort),
      '--initial-cluster',
      `fleet=${etcdUrl(state.etcd.peerPort)}`,
      '--log-level',
      'warn',
    ],
    path.join(stateDir, 'etcd', 'etcd.log'),
    { asPostgres: true, cwd: path.join(stateDir, 'etcd'), env: postgresEnv },
  );
  await saveState(state);
  await waitFor(
    'etcd',
    async () => ((await getJson(`${etcdUrl(state.etcd.clientPort)}/health`)).body as { health?: string } | null)?.health === 'true',
    30_000,
    path.join(stateDir, 'etcd', 'etcd.log'),
  );
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
      HBA_NETWORK: '127.0.0.1/32',
      REST_USER: REST_API_USER,
      REST_PASSWORD: state.secrets.restApi,
      SUPERUSER_PASSWORD: state.secrets.postgres,
      REPLICATION_PASSWORD: state.secrets.replicator,
    });
    // it holds passwords: postgres's only
    await writePrivate(path.join(dir, 'patroni.yml'), config);
    await chown(path.join(dir, 'patroni.yml'), ...(Object.values(postgresIds()) as [number, number]));
  }
  // pg1 first, so that it initialises the cluster; pg2 then copies it as its standby
  await startMember(state, 'pg1');
  await waitFor(
    'pg1 as primary',
    async () => (await getJson(`http://127.0.0.1:${state.members[0].restPort}/primary`)).status === 200,
    60_000,
    patroniLog(state, state.members[0]),
  );
  await startMember(state, 'pg2');

  const proxyConfig = await template('haproxy-postgres.cfg', {
    STATE_DIR: stateDir,
    LISTEN: `127.0.0.1:${state.postgresProxy.port}`,
    SERVERS: state.members.map((m) => `    server ${m.name} 127.0.0.1:${m.pgPort} check port ${m.restPort}`).join('\n'),
  });
  await writePrivate(path.join(stateDir, 'haproxy-postgres.cfg'), proxyConfig);
  state.postgresProxy.pid = launch('haproxy', ['-W', '-db', '-f', path.join(stateDir, 'haproxy-postgres.cfg')], path.join(stateDir, 'haproxy-postgres.log'), {
    cwd: stateDir,
  });
  await saveState(state);
  // HAProxy counts a server up until its checks say otherwise: wait until the standby is out
  await waitForProxyStatus(state, 'pg1', 'UP');
  await waitForProxyStatus(state, 'pg2', 'DOWN');
  // the service's own role and database (it creates its tables itself)
  const doorloomVerifier = scramVerifier(state.secrets.doorloom);
  await waitFor(
    'the doorloom role and database through HAProxy',
    async () => {
      const exists = await query(state.adminUrl, `select 1 from pg_roles where rolname = 'doorloom'`);
      // a verifier, not a password: the password never reaches PostgreSQL's logs or catalog
      await query(state.adminUrl, `${exists.rowCount === 0 ? 'create' : 'alter'} role doorloom login password '${doorloomVerifier}'`);
      const db = await query(state.adminUrl, `select 1 from pg_database where datname = 'doorloom'`);
      if (db.rowCount === 0) await query(state.adminUrl, 'create database doorloom owner doorloom');
      return true;
    },
    30_000,
    path.join(stateDir, 'haproxy-postgres.log'),
  );
  log(`PostgreSQL primary pg1 on ${state.members[0].pgPort}, HAProxy for the primary on ${state.postgresProxy.port}`);

  const ignoreOptions = state.poolMode === 'session' ? ',options' : '';
  const postgresOwned = async (file: string, text: string) => {
    await writePrivate(file, text);
    await chown(file, ...(Object.values(postgresIds()) as [number, number]));
  };
  await postgresOwned(
    path.join(stateDir, 'pgbouncer.ini'),
    await template('pgbouncer.ini', {
      PG_HOST: '127.0.0.1',
      PG_PORT: String(state.postgresProxy.port),
      LISTEN_HOST: '127.0.0.1',
      LISTEN_PORT: String(state.pgbouncer.port),
      STATE_DIR: stateDir,
      POOL_MODE: state.poolMode,
      IGNORE_OPTIONS: ignoreOptions,
    }),
  );
  await postgresOwned(path.join(stateDir, 'pgbouncer-users.txt'), `"doorloom" "${doorloomVerifier}"\n`);
  state.pgbouncer.pid = launch('pgbouncer', [path.join(stateDir, 'pgbouncer.ini')], path.join(stateDir, 'pgbouncer.out'), {
    asPostgres: true,
    cwd: stateDir,
    env: postgresEnv,
  });
  await saveState(state);
  await waitFor('PgBouncer', async () => (await query(state.databaseUrl, 'select 1 as one')).rows[0].one === 1, 30_000, path.join(stateDir, 'pgbouncer.log'));
  log(`PgBouncer (${state.poolMode} mode) on ${state.pgbouncer.port}`);

  const pair = await waitForSyncPair(state);
  log(`synchronous standby ${pair.standby} streaming from ${pair.leader}`);
}
