import { sql, type Kysely } from 'kysely';

// One row per daily job and Asia/Kolkata day: the insert is the claim, so a job runs once a day
// however many processes share the database.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table job_runs (
      name text not null,
      day date not null,
      started_at timestamptz not null,
      finished_at timestamptz,
      primary key (name, day)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table job_runs`.execute(db);
}
