/**
 * Backup and point-in-time restore on the fleet of scripts/fleet.ts, end to end: a base backup of
 * the primary (pg_basebackup), a write before and a write after a chosen moment, the WAL archived
 * by archive_command (deploy/patroni.yml), then the backup restored to that moment on a new
 * PostgreSQL, a service node started on it, and the node asked what it has: the first write and
 * not the second.
 *
 *   npm run fleet -- up --pool-mode session && npx tsx scripts/fleet-pitr.ts [STATE_DIR]
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PG_BIN, ROOT, asPostgresArgv, freePort, sleep } from './lib.js';
import { loadState } from './fleet.js';

/** Runs a command as postgres, in a directory postgres can enter (the checkout may be under a 0700 home). */
const asPostgres = (command: string, args: string[], env: Record<string, string> = {}) => {
  const [setpriv, ...argv] = asPostgresArgv(command, args);
  return execFileSync(setpriv, argv, { stdio: 'pipe', cwd: '/', env: { ...process.env, ...env } }).toString();
};

async function sql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const state = await loadState(process.argv[2]);
  const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
  const staff = async <T>(method: string, route: string, body?: unknown, base = state.apiUrl) => {
    const res = await fetch(`${base}/api/staff/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${state.staffToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as { data?: T } };
  };
  const work = path.join(state.stateDir, 'pitr');
  const base = path.join(work, 'base');
  const restored = path.join(work, 'restored');
  const archive = path.join(state.stateDir, 'archive');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { mode: 0o700 });
  execFileSync('chown', ['postgres:postgres', work]);

  // 1. the base backup, from whichever server is primary (through its HAProxy)
  asPostgres(
    `${PG_BIN}/pg_basebackup`,
    ['-h', '127.0.0.1', '-p', String(state.postgresProxy.port), '-U', 'replicator', '-w', '-D', base, '-X', 'stream', '-c', 'fast'],
    {
      PGPASSWORD: state.secrets.replicator,
    },
  );
  log(`base backup taken: ${base}`);

  // 2. one write before the target moment, one after it
  const before = await staff<{ id: number; name: string }>('POST', '/brands', { name: `pitr-before-${Date.now()}` });
  await sleep(1_500);
  const [{ target }] = await sql<{ target: string }>(state.adminUrl, `select to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS.US TZH') as target`);
  await sleep(1_500);
  const after = await staff<{ id: number; name: string }>('POST', '/brands', { name: `pitr-after-${Date.now()}` });
  if (before.status !== 201 || after.status !== 201) throw new Error(`writes failed: ${before.status} ${after.status}`);
  log(`brand ${before.body.data?.id} written before ${target}, brand ${after.body.data?.id} after it`);

  // 3. the WAL holding both is closed and archived
  const [{ segment }] = await sql<{ segment: string }>(state.adminUrl, 'select pg_walfile_name(pg_switch_wal()) as segment');
  for (let waited = 0; ; waited += 200) {
    const [{ last }] = await sql<{ last: string | null }>(state.adminUrl, 'select last_archived_wal as last from pg_stat_archiver');
    if (last && last.slice(8) >= segment.slice(8)) break;
    if (waited > 30_000) throw new Error(`segment ${segment} not archived (last ${last})`);
    await sleep(200);
  }
  log(`WAL up to ${segment} archived in ${archive}`);

  // 4. restore: the base backup, replayed from the archive up to the target, then promoted
  asPostgres('cp', ['-a', base, restored]);
  const port = await freePort();
  await appendFile(
    path.join(restored, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${path.join(state.stateDir, 'run')}'`,
      `hba_file = '${path.join(restored, 'pg_hba.conf')}'`,
      `ident_file = '${path.join(restored, 'pg_ident.conf')}'`,
      `restore_command = 'cp ${archive}/%f %p'`,
      `recovery_target_time = '${target}'`,
      `recovery_target_action = 'promote'`,
      `archive_mode = 'off'`,
      `synchronous_standby_names = ''`,
      `primary_conninfo = ''`,
      '',
    ].join('\n'),
  );
  await rm(path.join(restored, 'standby.signal'), { force: true });
  await writeFile(path.join(restored, 'recovery.signal'), '');
  execFileSync('chown', ['-R', 'postgres:postgres', restored]);
  asPostgres(`${PG_BIN}/pg_ctl`, ['-D', restored, '-l', path.join(work, 'restored.log'), '-w', '-t', '60', 'start']);
  const restoredUrl = `postgres://postgres:${state.secrets.postgres}@127.0.0.1:${port}/doorloom`;
  for (let waited = 0; ; waited += 200) {
    const [{ recovering }] = await sql<{ recovering: boolean }>(restoredUrl, 'select pg_is_in_recovery() as recovering').catch(() => [{ recovering: true }]);
    if (!recovering) break;
    if (waited > 60_000) throw new Error('the restored server did not finish recovery');
    await sleep(200);
  }
  log(`restored to ${target} on port ${port}, promoted`);

  // 5. a service node on the restored database answers: the first brand is there, the second is not
  const nodePort = await freePort();
  const node = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(nodePort),
      DATABASE_URL: `postgres://doorloom:${state.secrets.doorloom}@127.0.0.1:${port}/doorloom`,
      STAFF_TOKEN: state.staffToken,
      SECRETS_KEY: state.secretsKey,
      NO_BACKGROUND: '1',
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: 'inherit',
  });
  const nodeUrl = `http://127.0.0.1:${nodePort}`;
  try {
    for (let waited = 0; ; waited += 200) {
      const ok = await fetch(`${nodeUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (waited > 120_000) throw new Error('the node on the restored database did not start');
      await sleep(200);
    }
    const listed = await staff<Array<{ name: string }>>('GET', `/brands?q=pitr-&per_page=100`, undefined, nodeUrl);
    const names = (listed.body.data ?? []).map((b) => b.name);
    log(`node on the restored database answers GET /api/staff/v1/brands?q=pitr- with ${listed.status}: ${JSON.stringify(names)}`);
    if (listed.status !== 200 || !names.includes(before.body.data!.name) || names.includes(after.body.data!.name)) {
      throw new Error('the restore does not hold exactly the writes before the target');
    }
    log('point-in-time restore checked: the write before the target is there, the one after it is not');
  } finally {
    node.kill('SIGTERM');
    await new Promise((resolve) => node.once('exit', resolve));
    asPostgres(`${PG_BIN}/pg_ctl`, ['-D', restored, '-m', 'fast', '-w', 'stop']);
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`fleet-pitr: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
