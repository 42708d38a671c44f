import pg from 'pg';

/**
 * On PostgreSQL every test file works in its own schema `t_<run>_…`. This run's schemas are
 * dropped here once the whole run is over, rather than by each file as it ends: a `drop schema`
 * running while another file's migrator introspects the catalog makes that introspection fail.
 * The run id keeps concurrent runs on one database out of each other's way.
 */
async function dropTestSchemas(prefix: string): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(`select nspname from pg_namespace where starts_with(nspname, $1)`, [prefix]);
    for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`);
  } finally {
    await client.end();
  }
}

export async function setup(): Promise<void> {
  // forked test workers inherit this environment
  process.env.TEST_RUN_ID ??= `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
}

export async function teardown(): Promise<void> {
  await dropTestSchemas(`t_${process.env.TEST_RUN_ID}_`);
}
