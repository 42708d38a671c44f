import { sql, type Kysely } from 'kysely';

// An event's delivery facts move off its row into a table of the webhooks module, so that `events`
// is written once, by its append: a mark exists only for an event that failed an attempt or was
// found unsubscribed when its turn came; a delivered event has none (the cursor says it was
// delivered, its successful attempt says when). The old columns `attempts` and `delivered_at` stay
// on `events`, unused, so that the previous release keeps working during a rolling upgrade; a
// later release drops them. While both releases deliver, an event failing on nodes of both has its
// failures counted in two places, which can only delay its `attempts_exhausted` pause.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table delivery_marks (
      integration_id int not null,
      sequence bigint not null,
      -- left pending because its kind was no longer subscribed when it was sent
      skipped boolean not null default false,
      -- failed attempts
      failures int not null default 0,
      -- when the first mark was made: kept as long as its event (retention, 30 days)
      marked_at timestamptz not null default now(),
      primary key (integration_id, sequence)
    );
    create index delivery_marks_at on delivery_marks (marked_at);
    insert into delivery_marks (integration_id, sequence, failures, marked_at)
      select integration_id, sequence, attempts - case when delivery_status = 'delivered' then 1 else 0 end, created_at
      from events
      where attempts > case when delivery_status = 'delivered' then 1 else 0 end;
    -- events delivered before the delivery cursor existed: at or below their cursor, which says so
    update events set delivery_status = 'pending' where delivery_status = 'delivered';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    update events e set attempts = m.failures, delivery_status = case when m.skipped then 'skipped' else e.delivery_status end
    from delivery_marks m where m.integration_id = e.integration_id and m.sequence = e.sequence;
    drop table delivery_marks;
  `.execute(db);
}
