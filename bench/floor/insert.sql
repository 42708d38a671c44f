begin;
insert into baseline_rows (body) values (:body::text::jsonb) returning id;
commit;
