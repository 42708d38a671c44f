import { sql, type Kysely } from 'kysely';

// A booking create reads the other integrations' aliases of the property's units (bookings.sql's
// createContextQuery). The primary key (integration_id, unit_id) serves no lookup by unit alone:
// without this index that read was a scan of every alias of every integration.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index unit_aliases_unit on unit_aliases (unit_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index unit_aliases_unit`.execute(db);
}
