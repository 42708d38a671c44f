import { sql, type Kysely } from 'kysely';

// Properties in full (the input groups of the contract), their units, and the per-integration
// aliases of units (a partner's external_unit_id is unique within its integration, like the
// property's external_id on coverage).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table properties
      add column property_type text,
      add column property_category text,
      add column description text not null default '',
      add column address_line_1 text not null default '',
      add column address_line_2 text,
      add column landmark text,
      add column city text not null default '',
      add column state text not null default '',
      add column country text not null default 'India',
      add column pin_code text not null default '',
      add column latitude double precision,
      add column longitude double precision,
      add column formatted_address text not null default '',
      add column bedrooms int not null default 0,
      add column washrooms int not null default 0,
      add column min_guests int not null default 1,
      add column max_guests int not null default 1,
      add column weekday_base_price numeric(12, 2) not null default 0,
      add column weekday_per_night_occupancy int not null default 1,
      add column weekday_extra_adult_price numeric(12, 2) not null default 0,
      add column weekday_extra_child_price numeric(12, 2) not null default 0,
      add column weekend_base_price numeric(12, 2) not null default 0,
      add column weekend_per_night_occupancy int not null default 1,
      add column weekend_extra_adult_price numeric(12, 2) not null default 0,
      add column weekend_extra_child_price numeric(12, 2) not null default 0,
      add column is_private boolean not null default false,
      add column is_pet_friendly boolean not null default false,
      add column max_pets int,
      add column pet_charges numeric(12, 2),
      add column is_veg boolean not null default false,
      add column is_smoking_in_rooms boolean not null default false,
      add column gst_applicable boolean not null default true,
      add column price_includes_gst boolean not null default false,
      -- the integration whose API call created it; null for host-created properties
      add column created_by_integration_id int references integrations(id),
      add column archived_at timestamptz;
    create index properties_brand on properties (brand_id);

    create table units (
      id serial primary key,
      property_id int not null references properties(id),
      name text not null,
      code text,
      max_occupancy int,
      is_active boolean not null default true,
      is_default boolean not null default false,
      position int not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index units_property on units (property_id, position);
    create unique index units_one_default on units (property_id) where is_default;

    create table unit_aliases (
      integration_id int not null references integrations(id),
      unit_id int not null references units(id),
      external_id text not null,
      primary key (integration_id, unit_id)
    );
    create unique index unit_aliases_external_id on unit_aliases (integration_id, external_id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table unit_aliases, units`.execute(db);
}
