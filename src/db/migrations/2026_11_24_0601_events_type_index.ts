import { sql, type Kysely } from 'kysely';

// GET /events?types=… reads one integration's log in sequence order for a few kinds. With only the
// primary key (integration_id, sequence) a rare kind is a filter over every event after the cursor
// (370 ms from the start of a 1M-event log); this index serves integration + kind + sequence, one
// ordered range per kind (events.replay.ts merges them).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index events_type_sequence on events (integration_id, type, sequence)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index events_type_sequence`.execute(db);
}
