import { sql, type Kysely } from 'kysely';

// POST /sync: the per-integration quota (one accepted sync per 24 h, six calls per Asia/Kolkata
// day) and the queue of accepted syncs that the background runner works through property by
// property (next_index advances in the same transaction as that property's events, so a crash
// neither loses nor repeats a property).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table sync_quota (
      integration_id int primary key references integrations(id),
      -- the Asia/Kolkata day that calls counts
      day date not null,
      calls int not null,
      last_accepted_at timestamptz
    );

    create table sync_jobs (
      id serial primary key,
      integration_id int not null references integrations(id),
      property_ids int[] not null,
      types text[] not null,
      next_index int not null default 0,
      created_at timestamptz not null,
      started_at timestamptz,
      finished_at timestamptz
    );
    create index sync_jobs_open on sync_jobs (id) where finished_at is null;
    create index sync_jobs_created on sync_jobs (created_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table sync_jobs, sync_quota`.execute(db);
}
