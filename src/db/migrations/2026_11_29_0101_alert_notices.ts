import { sql, type Kysely } from 'kysely';

// The alerts module's notices to ALERT_WEBHOOK_URL: a row from an alert's start until its end is
// told (then deleted), so the start and the end each reach the receiver once the receiver answers.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table alert_notices (
      alert_id text primary key,
      name text not null,
      integration_id int not null,
      since timestamptz not null,
      body text not null,
      firing_sent_at timestamptz,
      ended_at timestamptz
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table alert_notices`.execute(db);
}
