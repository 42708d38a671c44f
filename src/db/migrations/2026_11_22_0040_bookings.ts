import { sql, type Kysely } from 'kysely';

// Bookings (decisions §4). A booking belongs to the integration that created it
// (integration_id), or to the host when integration_id is null. Its units live in a jsonb list
// (position order, with guests and meal plan per unit); the nights it holds live in unit_nights
// (calendar module), whose (unit_id, night) primary key forbids a second hold of a unit on a night.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table bookings (
      id serial primary key,
      -- the integration whose API call created it; null for host bookings (made in the app)
      integration_id int references integrations(id),
      external_booking_id text not null,
      property_id int not null references properties(id),
      status text not null check (status in ('pending', 'confirmed', 'cancelled', 'completed', 'refunded')),
      -- 1 at create, +1 on every change by anyone; the ETag of reads
      revision int not null default 1,
      check_in date not null,
      check_out date not null,
      -- [{ unit_id, adults, children, meal_plan }] in the order sent
      units jsonb not null,
      guest_name text not null,
      guest_phone_code text,
      guest_mobile text,
      total numeric(12, 2) not null,
      currency text not null default 'INR',
      notes text,
      source_channel text not null,
      source_reference text,
      reason text,
      refund_note text,
      cancelled_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      check (check_out > check_in)
    );
    -- external_booking_id is unique within the integration; host ids are unique among host bookings
    create unique index bookings_external_id on bookings (integration_id, external_booking_id);
    create unique index bookings_host_external_id on bookings (external_booking_id) where integration_id is null;
    create index bookings_property on bookings (property_id, updated_at, id);
    create index bookings_integration_updated on bookings (integration_id, updated_at, id);

    alter table unit_nights add constraint unit_nights_booking_fk foreign key (booking_id) references bookings(id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table unit_nights drop constraint unit_nights_booking_fk;
    drop table bookings;
  `.execute(db);
}
