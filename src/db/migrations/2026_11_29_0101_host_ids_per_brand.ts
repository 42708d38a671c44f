import { sql, type Kysely } from 'kysely';

// Host booking ids are the brand's own: `brand_id` (the property's brand, set on host bookings)
// makes the host id unique per brand instead of platform-wide, and `host_booking_names` counts each
// brand's generated `DL-<n>` names, so that neither the uniqueness check nor a generated name tells
// anything about another brand's bookings. Existing rows keep their ids; each brand's counter
// starts after the highest `DL-<n>` it already has.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table bookings add column brand_id int references brands(id);
    update bookings b set brand_id = p.brand_id from properties p where p.id = b.property_id and b.integration_id is null;
    alter table bookings add constraint bookings_host_brand check (integration_id is not null or brand_id is not null);
    create unique index bookings_host_brand_external_id on bookings (brand_id, external_booking_id) where integration_id is null;
    drop index bookings_host_external_id;
    create table host_booking_names (
      brand_id int primary key references brands(id),
      last_number bigint not null
    );
    insert into host_booking_names (brand_id, last_number)
      select brand_id, max(substring(external_booking_id from '^DL-([0-9]{1,18})$')::bigint)
      from bookings
      where integration_id is null and external_booking_id ~ '^DL-[0-9]{1,18}$'
      group by brand_id;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table host_booking_names;
    drop index bookings_host_brand_external_id;
    alter table bookings drop constraint bookings_host_brand;
    create unique index bookings_host_external_id on bookings (external_booking_id) where integration_id is null;
    alter table bookings drop column brand_id;
  `.execute(db);
}
