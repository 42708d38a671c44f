import { sql, type Kysely } from 'kysely';

// The webhook attempt log (decisions §7): one row per attempt, event or ping, kept 30 days.
// Delivery state itself lives on `integrations` (counters, pause, next_attempt_at) and on `events`
// (delivery_status, attempts, delivered_at) since the foundation.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table delivery_attempts (
      id bigserial primary key,
      integration_id int not null references integrations(id),
      -- the event's id, or the ping's own id (pings are never recorded as events)
      event_id text not null,
      event_type text not null,
      sequence bigint,
      -- the event's attempt number (1 = first try); null for pings
      attempt int,
      attempted_at timestamptz not null,
      duration_ms int not null,
      status_code int,
      error text,
      success boolean not null,
      -- the first 4 KB of the answer
      response_body text,
      -- host:pid of the process that made the attempt (several may share the database)
      worker text not null
    );
    create index delivery_attempts_log on delivery_attempts (integration_id, id);
    create index delivery_attempts_at on delivery_attempts (attempted_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table delivery_attempts`.execute(db);
}
