import { sql, type Kysely } from 'kysely';

// Foundation: platform clock, staff tokens, brands, integrations with their delivery state,
// the base of properties and coverage (needed by the event log), and the event log itself.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table service_clock (
      id int primary key default 1 check (id = 1),
      offset_seconds bigint not null default 0
    );
    insert into service_clock (id, offset_seconds) values (1, 0);

    create table staff_tokens (
      id serial primary key,
      token_hash text not null unique,
      created_at timestamptz not null
    );

    create table brands (
      id serial primary key,
      name text not null,
      plan_active boolean not null default true,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table integrations (
      id serial primary key,
      brand_id int not null references brands(id),
      slug text not null unique,
      name text not null,
      status text not null default 'active' check (status in ('active', 'paused', 'disabled')),
      api_key_hash text not null unique,
      webhook_url text,
      webhook_event_types text[] not null,
      webhook_timeout_seconds int not null default 10,
      webhook_secret_enc text not null,
      webhook_secret_prev_enc text,
      webhook_secret_prev_expires_at timestamptz,
      horizon_days int not null default 365,
      -- highest sequence allocated; bumped under this row's lock so sequences are gap-free
      last_sequence bigint not null default 0,
      consecutive_failures int not null default 0,
      first_failure_at timestamptz,
      last_success_at timestamptz,
      last_failure_at timestamptz,
      paused_at timestamptz,
      paused_reason text,
      -- when the head of the delivery queue is next due (retry ladder, probes)
      next_attempt_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    create table properties (
      id serial primary key,
      brand_id int not null references brands(id),
      name text not null,
      status text not null default 'active' check (status in ('active', 'inactive', 'archived')),
      created_at timestamptz not null,
      updated_at timestamptz not null
    );

    -- An integration sees a property only while it covers it; the partner's external id for the
    -- property is per integration, so it lives on the coverage row.
    create table coverage (
      integration_id int not null references integrations(id),
      property_id int not null references properties(id),
      external_id text,
      created_at timestamptz not null,
      primary key (integration_id, property_id)
    );
    create unique index coverage_external_id on coverage (integration_id, external_id) where external_id is not null;
    create index coverage_property on coverage (property_id);

    create table events (
      integration_id int not null references integrations(id),
      sequence bigint not null,
      id text not null unique,
      type text not null,
      origin text not null check (origin in ('partner', 'doorloom')),
      property_id int,
      window_from date,
      window_to date,
      -- the serialised envelope: delivery sends exactly these bytes, replay returns them
      body text not null,
      created_at timestamptz not null,
      delivery_status text not null check (delivery_status in ('pending', 'delivered', 'skipped')),
      attempts int not null default 0,
      delivered_at timestamptz,
      primary key (integration_id, sequence)
    );
    create index events_pending on events (integration_id, sequence) where delivery_status = 'pending';
    create index events_created_at on events (created_at);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table events, coverage, properties, integrations, brands, staff_tokens, service_clock`.execute(db);
}
