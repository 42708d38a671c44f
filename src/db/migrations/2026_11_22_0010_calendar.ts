import { sql, type Kysely } from 'kysely';

// The calendar (decisions §5): what the host sets per night and per property, the booking holds
// that availability counts, and the horizon-roll bookkeeping (decisions §6).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    -- Per-night settings of a whole property. A null column means "no setting for that night"
    -- (not blocked, no cap, weekday/weekend price, the property's booking rules); a row whose
    -- columns are all null is removed by the writer.
    create table calendar_nights (
      property_id int not null references properties(id),
      night date not null,
      block_scope text check (block_scope in ('everywhere', 'ota_only')),
      units_cap int check (units_cap >= 0),
      base_price numeric(12, 2) check (base_price >= 0),
      extra_adult_price numeric(12, 2) check (extra_adult_price >= 0),
      extra_child_price numeric(12, 2) check (extra_child_price >= 0),
      min_stay int check (min_stay >= 1),
      max_stay int check (max_stay >= 1),
      stop_sell boolean,
      closed_to_arrival boolean,
      closed_to_departure boolean,
      primary key (property_id, night)
    );

    -- Blocks of chosen units (a property-wide block is calendar_nights.block_scope).
    create table unit_blocks (
      unit_id int not null references units(id),
      night date not null,
      block_scope text not null check (block_scope in ('everywhere', 'ota_only')),
      primary key (unit_id, night)
    );

    -- Booking holds: one row per unit and night held by a pending or confirmed booking. The
    -- primary key is what makes "one hold per unit and night" impossible to break, on PostgreSQL
    -- and on PGlite alike, whatever the application code does: a second booking's insert of the
    -- same (unit, night) fails with a unique violation and its transaction rolls back.
    -- booking_id references bookings(id); the bookings module adds that foreign key with its table.
    create table unit_nights (
      unit_id int not null references units(id),
      night date not null,
      booking_id int not null,
      primary key (unit_id, night)
    );
    create index unit_nights_booking on unit_nights (booking_id);

    -- Meal plans beyond EP (room only), which is always offered at price 0 and is not stored.
    create table meal_plans (
      property_id int not null references properties(id),
      code text not null check (code in ('CP', 'MAP', 'AP')),
      adult_price numeric(12, 2) not null check (adult_price >= 0),
      child_price numeric(12, 2) not null check (child_price >= 0),
      primary key (property_id, code)
    );

    -- Property-wide booking rules; a missing row or a null column is the platform default
    -- (min_stay 1, max_stay MAX_STAY_NIGHTS, min_advance_days 0, max_advance_days 730).
    create table booking_rules (
      property_id int primary key references properties(id),
      min_stay int check (min_stay >= 1),
      max_stay int check (max_stay >= 1),
      min_advance_days int check (min_advance_days >= 0),
      max_advance_days int check (max_advance_days >= 0)
    );

    -- Horizon roll: the last night through which an integration has been sent a property's
    -- calendar, so the daily roll emits each month entering the horizon exactly once.
    create table horizon_marks (
      integration_id int not null references integrations(id),
      property_id int not null references properties(id),
      through date not null,
      primary key (integration_id, property_id)
    );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table horizon_marks, booking_rules, meal_plans, unit_nights, unit_blocks, calendar_nights`.execute(db);
}
