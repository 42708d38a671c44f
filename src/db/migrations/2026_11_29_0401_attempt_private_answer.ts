import { sql, type Kysely } from 'kysely';

// An attempt answered from a loopback, private, link-local or reserved address (possible only with
// WEBHOOK_ALLOW_PRIVATE): its answer is kept for staff, and partners see its status only, so that a
// partner who controls its receiver's DNS cannot read the answers of the service's own network.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table delivery_attempts add column private_answer boolean not null default false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table delivery_attempts drop column private_answer`.execute(db);
}
