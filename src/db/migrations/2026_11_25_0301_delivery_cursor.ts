import { sql, type Kysely } from 'kysely';

// A delivered event's row is no longer updated: the in-order cursor of webhook_delivery_state
// (every event at or below it has left pending) says it was delivered, and its successful attempt
// says when. Marking each row cost a new row version and an entry in each of the five indexes per
// delivered event (about 1.6 KB of WAL, and a dead tuple for vacuum). The pending events are the
// ones above the cursor, read off the primary key, so the partial index of pending events goes
// (it would now keep every delivered event too); a delivered event's time comes from the new
// partial index of successful attempts.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    drop index events_pending;
    create index delivery_attempts_delivered on delivery_attempts (integration_id, sequence) where success and sequence is not null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    update events e set delivery_status = 'delivered', attempts = e.attempts + 1,
      delivered_at = (
        select a.attempted_at + a.duration_ms * interval '1 millisecond' from delivery_attempts a
        where a.integration_id = e.integration_id and a.sequence = e.sequence and a.success order by a.id desc limit 1
      )
    from webhook_delivery_state s
    where s.integration_id = e.integration_id and e.delivery_status = 'pending' and e.sequence <= s.cursor;
    drop index delivery_attempts_delivered;
    create index events_pending on events (integration_id, sequence) where delivery_status = 'pending';
  `.execute(db);
}
