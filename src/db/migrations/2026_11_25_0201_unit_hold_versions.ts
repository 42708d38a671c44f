import { sql, type Kysely } from 'kysely';

// A version per unit's holds (its unit_nights rows), moved by the two writers of holds (reserveStay
// and releaseStay) in the statement that writes them. When a cached availability snapshot's
// property version has moved, the rebuild re-reads the holds only of the units whose hold version
// moved (calendar.snapshots.ts); the holds are most of what the rebuild reads. Versions come from
// calendar_version_seq. A unit without a row here has never held a night since this table exists:
// its holds are always read.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table unit_hold_versions (
      unit_id integer primary key references units (id) on delete cascade,
      version bigint not null
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table unit_hold_versions`.execute(db);
}
