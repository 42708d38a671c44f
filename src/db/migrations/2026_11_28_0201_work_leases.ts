import { sql, type Kysely } from 'kysely';

// Claims on background work (an integration's delivery stream, a sync job) as rows with an expiry
// on the database's clock: unlike a session advisory lock, a row works through a transaction
// pooler and is freed by time when its holder dies.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table work_leases (
      kind text not null,
      id bigint not null,
      holder text not null,
      token text not null,
      expires_at timestamptz not null,
      primary key (kind, id)
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table work_leases`.execute(db);
}
