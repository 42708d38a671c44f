import { sql, type Kysely } from 'kysely';

// Delivery state moves from `integrations` (which keeps the integration's configuration and its
// status) to a table of the webhooks module: the failure counters, the pause's time and reason,
// the next attempt, the last success, the in-order cursor, and `undelivered`, the number of the
// integration's events still pending, kept in the transactions that change it so that GET /me
// never counts them. Existing rows are copied, with `undelivered` counted once here.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_delivery_state (
      integration_id int primary key references integrations(id),
      -- the highest sequence that left pending (delivered or skipped)
      cursor bigint not null default 0,
      consecutive_failures int not null default 0,
      first_failure_at timestamptz,
      last_failure_at timestamptz,
      last_success_at timestamptz,
      paused_at timestamptz,
      paused_reason text,
      next_attempt_at timestamptz,
      undelivered bigint not null default 0 check (undelivered >= 0)
    );
    insert into webhook_delivery_state (integration_id, cursor, consecutive_failures, first_failure_at, last_failure_at, last_success_at,
      paused_at, paused_reason, next_attempt_at, undelivered)
    select i.id,
      coalesce((select max(e.sequence) from events e where e.integration_id = i.id and e.delivery_status <> 'pending'), 0),
      i.consecutive_failures, i.first_failure_at, i.last_failure_at, i.last_success_at, i.paused_at, i.paused_reason, i.next_attempt_at,
      (select count(*) from events e where e.integration_id = i.id and e.delivery_status = 'pending')
    from integrations i;
    -- the scan for due work reads the next attempt here
    create index webhook_delivery_state_next on webhook_delivery_state (next_attempt_at);
    alter table integrations
      drop column consecutive_failures,
      drop column first_failure_at,
      drop column last_failure_at,
      drop column last_success_at,
      drop column paused_at,
      drop column paused_reason,
      drop column next_attempt_at;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table integrations
      add column consecutive_failures int not null default 0,
      add column first_failure_at timestamptz,
      add column last_failure_at timestamptz,
      add column last_success_at timestamptz,
      add column paused_at timestamptz,
      add column paused_reason text,
      add column next_attempt_at timestamptz;
    update integrations i set consecutive_failures = s.consecutive_failures, first_failure_at = s.first_failure_at,
      last_failure_at = s.last_failure_at, last_success_at = s.last_success_at, paused_at = s.paused_at,
      paused_reason = s.paused_reason, next_attempt_at = s.next_attempt_at
    from webhook_delivery_state s where s.integration_id = i.id;
    drop table webhook_delivery_state;
  `.execute(db);
}
