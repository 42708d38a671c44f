-- A booking create's own statements, as the service sends them for POST /bookings (rate limits
-- on, one integration covering the property), run by pgbench with no service in between: the
-- PostgreSQL floor of a create (bench/scenarios/floor.ts). Kept in step with
-- src/modules/bookings/bookings.sql.ts, calendar/calendar.holds.ts, properties/properties.lock.ts,
-- properties/properties.sql.ts, events/events.sql.ts,
-- http/idempotency.ts and http/rate-limit.store.ts by hand (test/infra/bench-floor.test.ts fails
-- when one create through the service and one transaction of this script stop adding the same
-- rows to the same tables); only the ids differ: each
-- transaction books 2 nights of one unit of one of its client's 8 properties, the nights drawn at
-- random far ahead (unit_nights takes ON CONFLICT DO NOTHING, for the rare draw that repeats).
-- One statement the service does not send: the lookup of the target's ids (a primary-key read).
\set slot :client_id * 8 + random(0, 7)
\set k random(1, 20)
\set d random(0, 150000)
\set r random(1, 1000000000000000)
select integration_id as i, property_id as p, external_id as pe, unit_ids[:k] as u from bench_floor_targets where slot = :slot \gset
insert into rate_limit_counters (window_minute, bucket, hits)
select 29930275, bucket, n from unnest(array['i:' || (:i)::int8, 'i:' || (:i)::int8 || chr(58) || 'booking-writes', 'ip' || chr(58) || '127.0.0.' || :client_id]::text[], array[1,1,1]::int[]) as t(bucket, n)
on conflict (window_minute, bucket) do update set hits = rate_limit_counters.hits + excluded.hits
returning bucket, hits;
insert into "idempotency_keys" ("integration_id", "key", "fingerprint", "request_method", "request_path", "state", "claim_token", "claimed_at", "created_at", "expires_at", "response_status", "response_content_type", "response_body") values ((:i)::int8, 'k' || (:r)::int8, 'aba85dce11730b3532366a7514fc211bb09073d53feda86608959603703217f7', 'POST', '/api/integrations/v1/bookings', 'in_progress', 'tok' || (:r)::int8, now(), now(), now() + interval '1 day', NULL, NULL, NULL) on conflict ("integration_id", "key") do nothing returning "integration_id", "key";
\startpipeline
begin;
with prop as (
  select p.id, p.status, c.external_id
  from coverage c join properties p on p.id = c.property_id
  where c.integration_id = (:i)::int8 and c.external_id = :pe
  limit 1
  for no key update of p
),
existing as (select b.id from bookings b where b.integration_id = (:i)::int8 and b.external_booking_id = 'F' || (:r)::int8)
select json_build_object(
  'existing', (select id from existing),
  'property', (select row_to_json(prop) from prop),
  'new_id', case when true and exists (select 1 from prop where status = 'active') and not exists (select 1 from existing)
    then nextval(pg_get_serial_sequence('bookings', 'id')) end,
  'total', 10000::numeric(12, 2),
  'units', (
    select coalesce(json_agg(json_build_object('id', u.id, 'isActive', u.is_active, 'position', u.position, 'alias', a.external_id) order by u.position, u.id), '[]'::json)
    from units u
    left join unit_aliases a on a.unit_id = u.id and a.integration_id = (:i)::int8
    where u.property_id = (select id from prop)
  ),
  'targets', (
    select coalesce(json_agg(json_build_object('id', i.id, 'slug', i.slug, 'webhook_event_types', i.webhook_event_types,
      'horizon_days', i.horizon_days, 'has_webhook', i.webhook_url is not null, 'external_id', c.external_id) order by i.id), '[]'::json)
    from integrations i join coverage c on c.integration_id = i.id and c.property_id = (select id from prop)
    where i.status != 'disabled'
  )
)::text as doc;
\endpipeline
with calendar_property as (select (select p.id from coverage c join properties p on p.id = c.property_id where c.integration_id = (:i)::int8 and c.external_id = :pe limit 1)::int as id) select json_build_object('nights', (select coalesce(json_agg(t), '[]'::json) from ((select "night", "block_scope", "units_cap", "base_price", "extra_adult_price", "extra_child_price", "min_stay", "max_stay", "stop_sell", "closed_to_arrival", "closed_to_departure" from "calendar_nights" where "property_id" = (select id from calendar_property) and "night" >= date '2027-01-01' + (:d)::int4 and "night" <= date '2027-01-02' + (:d)::int4)) as t), 'units', (select coalesce(json_agg(t), '[]'::json) from ((select "u"."id", "u"."name", "u"."position", "a"."external_id" as "external_unit_id" from "units" as "u" left join "unit_aliases" as "a" on "a"."unit_id" = "u"."id" and "a"."integration_id" = (:i)::int8 where "u"."property_id" = (select id from calendar_property) and "u"."is_active" = true)) as t), 'unit_blocks', (select coalesce(json_agg(t), '[]'::json) from ((select "b"."unit_id", "b"."night", "b"."block_scope" from "unit_blocks" as "b" inner join "units" as "u" on "u"."id" = "b"."unit_id" where "u"."property_id" = (select id from calendar_property) and "u"."is_active" = true and "b"."night" >= date '2027-01-01' + (:d)::int4 and "b"."night" <= date '2027-01-02' + (:d)::int4)) as t), 'holds', (select coalesce(json_agg(json_build_array(u.id, held.nights)), '[]'::json) from units u cross join lateral (select array_agg(h.night - (date '2027-01-01' + (:d)::int4)) as nights from unit_nights h where h.unit_id = u.id and h.night >= date '2027-01-01' + (:d)::int4 and h.night <= date '2027-01-02' + (:d)::int4) as held where u.property_id = (select id from calendar_property) and u.is_active and held.nights is not null))::text as doc;
\startpipeline
with b as (insert into "bookings" ("id", "external_booking_id", "integration_id", "property_id", "status", "check_in", "check_out", "units", "guest_name", "guest_phone_code", "guest_mobile", "total", "notes", "source_channel", "source_reference", "reason", "refund_note", "cancelled_at", "created_at", "updated_at") values (currval(pg_get_serial_sequence('bookings', 'id')), 'F' || (:r)::int8, (:i)::int8, (:p)::int8, 'confirmed', date '2027-01-01' + (:d)::int4, date '2027-01-03' + (:d)::int4, ('[{"adults": 2, "unit_id": ' || (:u)::int8 || ', "children": 0, "meal_plan": "EP"}]')::jsonb, 'Bench Guest', '+91', '9000000000', 10000, NULL, 'airbnb', 'F' || (:r)::int8, NULL, NULL, NULL, now(), now()) returning *),
v as (insert into calendar_versions (property_id, version) values ((:p)::int8, nextval('calendar_version_seq'))
on conflict (property_id) do update set version = excluded.version),
hv as (insert into unit_hold_versions (unit_id, version) select t.unit_id, nextval('calendar_version_seq') from (select * from (values (:u::int)) as u(unit_id)) as t
on conflict (unit_id) do update set version = excluded.version),
h as (
  insert into unit_nights (unit_id, night, booking_id)
  select u.unit_id, d::date, b.id
  from b, (values (:u::int)) as u(unit_id),
    generate_series(date '2027-01-01' + (:d)::int4, date '2027-01-02' + (:d)::int4, interval '1 day') as d
  on conflict do nothing
)
select b.id from b;
with allocated as (
  update integrations set last_sequence = last_sequence + 2
  where id = (:i)::int8 and status != 'disabled'
  returning last_sequence - 2 as base
), added as (
  insert into events (integration_id, sequence, id, type, origin, property_id, window_from, window_to, body, created_at, delivery_status)
  select :i::int, a.base + r.n, r.id, r.type, 'partner'::text, :p::int, r.window_from, r.window_to,
         r.head || (a.base + r.n)::text || r.tail, now(), r.status
  from allocated a, (values (1::int, 'E' || (:r)::int8 || 'a', 'booking.changed'::text, null::date, null::date, :head1::text, :tail1::text, 'pending'::text), (2::int, 'E' || (:r)::int8 || 'b', 'availability.changed', date '2027-01-01' + (:d)::int4, date '2027-01-02' + (:d)::int4, :head2::text, :tail2::text, 'pending')) as r(n, id, type, window_from, window_to, head, tail, status)
  returning delivery_status
), counted as (
  update webhook_delivery_state set undelivered = undelivered + (select count(*) from added where delivery_status = 'pending')
  where integration_id = (:i)::int8 and exists (select 1 from added where delivery_status = 'pending')
  returning 1
)
select count(*)::int as n from added;
update idempotency_keys k
set state = 'completed', response_status = v.status, response_content_type = v.content_type, response_body = v.body
from (values (:i::int, 'k' || (:r)::int8, 'tok' || (:r)::int8, 201, 'application/json; charset=utf-8', :resp::text)) as v(integration_id, key, token, status, content_type, body)
where k.integration_id = v.integration_id and k.key = v.key and k.claim_token = v.token;
commit;
\endpipeline
