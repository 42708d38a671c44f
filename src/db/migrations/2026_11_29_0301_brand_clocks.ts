import { sql, type Kysely } from 'kysely';

// A sandbox brand's own clock (src/lib/clock.ts): how far it runs ahead of the service clock. Only
// the sandbox's POST /sandbox/clock/advance moves it, forward only; 0 for every other brand.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table brands add column clock_offset_seconds int not null default 0 check (clock_offset_seconds >= 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table brands drop column clock_offset_seconds`.execute(db);
}
