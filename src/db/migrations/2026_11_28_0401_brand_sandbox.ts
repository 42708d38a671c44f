import { sql, type Kysely } from 'kysely';

// A sandbox brand's integrations may call the test-helper routes (/sandbox/…) that act as its host.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table brands add column sandbox boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table brands drop column sandbox`.execute(db);
}
