import { sql, type Kysely } from 'kysely';

// Fixed-window request counters shared by every process on one PostgreSQL (src/http/rate-limit.ts).
// One row per window (minutes since the epoch on the service clock) and bucket (`ip:…`,
// `i:<integration>`, `i:<integration>:<tier>`). The window leads the key so that dropping old
// windows is a range delete. Unlogged: counters live for a minute, so they skip the WAL; a crash
// empties the table, which only forgives the current minute. The embedded engine counts in
// process memory and leaves this table empty.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table rate_limit_counters (
      window_minute int not null,
      bucket text not null,
      hits int not null,
      primary key (window_minute, bucket)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table rate_limit_counters`.execute(db);
}
