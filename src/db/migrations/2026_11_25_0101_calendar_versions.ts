import { sql, type Kysely } from 'kysely';

// A version per property's availability inputs (units, unit aliases, unit blocks, holds, the
// nights' blocks and caps), moved by every writer of them under the property's calendar lock. An
// availability snapshot built at one version is served again while the version stands
// (calendar.snapshot-cache.ts). Versions come from one sequence, never reused, so a version names
// one state of one property; the sequence is not owned by a column, so nothing restarts it.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence calendar_version_seq`.execute(db);
  await sql`
    create table calendar_versions (
      property_id integer primary key references properties (id) on delete cascade,
      version bigint not null
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table calendar_versions`.execute(db);
  await sql`drop sequence calendar_version_seq`.execute(db);
}
