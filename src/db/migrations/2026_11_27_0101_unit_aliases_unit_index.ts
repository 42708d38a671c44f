import { sql, type Kysely } from 'kysely';

// A booking create on a property other integrations cover too reads their aliases of the
// property's units (bookings.sql's selectUnitAliasesOf). The primary key (integration_id, unit_id)
// serves no lookup by unit: without this index that read goes through every alias of each of
// those integrations (a channel manager's, of every property it covers), or every alias of all.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index unit_aliases_unit on unit_aliases (unit_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index unit_aliases_unit`.execute(db);
}
