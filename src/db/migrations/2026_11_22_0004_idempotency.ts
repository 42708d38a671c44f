import { sql, type Kysely } from 'kysely';

// Idempotency records of the create endpoints (POST /properties, POST /properties/bulk,
// POST /bookings). The primary key is the claim: the first request inserts the row, any other
// request with the same key, in any process, conflicts with it.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table idempotency_keys (
      integration_id int not null references integrations(id),
      key text not null,
      -- SHA-256 over method, path and key-sorted JSON body
      fingerprint text not null,
      request_method text not null,
      request_path text not null,
      state text not null check (state in ('in_progress', 'completed')),
      -- who holds an in-progress record; a take-over swaps it, so a late finisher stores nothing
      claim_token text not null,
      claimed_at timestamptz not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      response_status int,
      response_content_type text,
      response_body text,
      primary key (integration_id, key)
    );
    create index idempotency_keys_expires on idempotency_keys (expires_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table idempotency_keys`.execute(db);
}
