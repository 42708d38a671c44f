import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TableChanges, watchChanges } from '../../src/db/changes.js';
import { PgDialect } from '../../src/db/pg-dialect.js';
import { pipeline } from '../../src/db/pipeline.js';
import { PreparingClient } from '../../src/db/prepared.js';
import { databaseUrl } from '../helpers/context.js';

// PreparingClient's frames (src/db/prepared.ts) through the service's own stack (PgDialect,
// watchChanges): `begin` waits for the transaction's first statement and goes out with it, and
// `pipeline` sends several statements (and the commit) in one round trip. Counted by the
// ReadyForQuery messages the server sends (one per round trip), and checked for what a
// transaction must still do: see what committed before each statement started, keep its writes
// to itself until commit, roll back on an error, and leave the connection usable.

const schema = `tx_${randomBytes(4).toString('hex')}`;
let pool: pg.Pool;
let db: Kysely<any>;
let other: pg.Client;

let trips = 0;

/** Round trips made while `work` runs in a transaction (the pool has one connection). */
async function roundTrips<T>(work: (trx: Kysely<any>) => Promise<T>): Promise<{ value: T; trips: number }> {
  trips = 0;
  const value = await db.transaction().execute(work);
  return { value, trips };
}

describe.runIf(databaseUrl)('transactions on PostgreSQL (one round trip fewer)', () => {
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: databaseUrl!, max: 1, Client: PreparingClient, options: `-c search_path=${schema}` });
    // One ReadyForQuery per round trip.
    pool.on('connect', (client) => (client as unknown as { connection: pg.Connection }).connection.on('readyForQuery', () => trips++));
    db = new Kysely<any>({ dialect: watchChanges(new PgDialect(pool), new TableChanges()) });
    await sql`create schema ${sql.id(schema)}`.execute(db);
    await sql`create table ${sql.id(schema, 'items')} (id int primary key, name text not null)`.execute(db);
    other = new pg.Client({ connectionString: databaseUrl!, options: `-c search_path=${schema}` });
    await other.connect();
  });
  afterAll(async () => {
    await other?.end();
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    await db?.destroy();
  });

  const byId = (q: Kysely<any>, id: number) => q.selectFrom('items').select('name').where('id', '=', id).executeTakeFirst();

  it('sends begin with the first statement: begin + 2 statements + commit is three round trips', async () => {
    const write = async (trx: Kysely<any>, id: number) => {
      await trx.insertInto('items').values({ id, name: `n${id}` }).execute();
      return byId(trx, id);
    };
    // The first time the texts are new on the connection (parsed in the same round trips).
    expect((await roundTrips((trx) => write(trx, 1))).trips).toBe(3);
    const { value, trips } = await roundTrips((trx) => write(trx, 2));
    expect(value).toEqual({ name: 'n2' });
    expect(trips).toBe(3);
    expect((await other.query('select name from items where id in (1, 2) order by id')).rows).toEqual([{ name: 'n1' }, { name: 'n2' }]);
  });

  it('a statement without parameters goes after a begin of its own (it may hold several statements)', async () => {
    const { value, trips } = await roundTrips((trx) => sql<{ n: number }>`select count(*)::int as n from items`.execute(trx));
    expect(value.rows[0].n).toBeGreaterThan(0);
    expect(trips).toBe(3);
  });

  it('an empty transaction sends nothing', async () => {
    const { trips } = await roundTrips(async () => 'nothing');
    expect(trips).toBe(0);
    expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('the first statement sees what committed before it ran, and its writes stay private until commit', async () => {
    await byId(db, 4);
    let seen: unknown;
    await roundTrips(async (trx) => {
      await other.query(`insert into items values (5, 'five')`);
      seen = await byId(trx, 5);
      await trx.insertInto('items').values({ id: 3, name: 'three' }).execute();
      expect((await other.query('select count(*)::int as n from items where id = 3')).rows).toEqual([{ n: 0 }]);
    });
    expect(seen).toEqual({ name: 'five' });
    expect((await other.query('select count(*)::int as n from items where id = 3')).rows).toEqual([{ n: 1 }]);
  });

  it('a failing first statement rolls the transaction back and leaves the connection usable', async () => {
    await db.insertInto('items').values({ id: 10, name: 'ten' }).execute();
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 10, name: 'again' }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 11, name: 'eleven' }).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await byId(db, 11)).toBeUndefined();
    expect((await db.selectFrom('items').select('name').where('id', 'in', [10, 11]).execute()).map((r) => r.name)).toEqual(['ten']);
    expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('a row lock taken by the first statement is held until commit', async () => {
    await db.insertInto('items').values({ id: 20, name: 'twenty' }).execute();
    let waiter: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('items').select('id').where('id', '=', 20).forUpdate().execute();
      waiter = other.query(`update items set name = 'later' where id = 20`);
      await new Promise((r) => setTimeout(r, 100));
      await trx.updateTable('items').set({ name: 'first' }).where('id', '=', 20).execute();
    });
    await waiter;
    expect(await byId(db, 20)).toEqual({ name: 'later' });
  });

  it('a pipeline with commit is one round trip, begin and commit included', async () => {
    const statements = (trx: Kysely<any>, id: number) => [
      trx.insertInto('items').values({ id, name: `p${id}` }),
      trx.selectFrom('items').select('name').where('id', '=', id),
    ];
    for (const id of [50, 51]) {
      const { value, trips } = await roundTrips((trx) => pipeline(trx, statements(trx, id), { commit: true }));
      expect(value.map((r) => r.rows)).toEqual([[], [{ name: `p${id}` }]]);
      expect(trips).toBe(1);
      expect((await other.query('select name from items where id = $1', [id])).rows).toEqual([{ name: `p${id}` }]);
    }
  });

  it('each statement of a pipeline sees what committed while the one before it waited for a lock', async () => {
    await db.insertInto('items').values({ id: 60, name: 'sixty' }).execute();
    await other.query('begin');
    await other.query('select id from items where id = 60 for update');
    await other.query(`insert into items values (61, 'committed while we waited')`);
    setTimeout(() => void other.query('commit'), 150);
    const [, after] = await db.transaction().execute((trx) =>
      pipeline(trx, [trx.selectFrom('items').select('id').where('id', '=', 60).forUpdate(), trx.selectFrom('items').select('name').where('id', '=', 61)]),
    );
    expect(after.rows).toEqual([{ name: 'committed while we waited' }]);
  });

  it('an error in a pipeline fails it and the transaction: the statements after it and the commit do not run', async () => {
    await db.insertInto('items').values({ id: 70, name: 'seventy' }).execute();
    for (let i = 0; i < 2; i++) {
      await expect(
        db.transaction().execute((trx) =>
          pipeline(trx, [trx.insertInto('items').values({ id: 70, name: 'again' }), trx.insertInto('items').values({ id: 71, name: 'never' })], { commit: true }),
        ),
      ).rejects.toMatchObject({ code: '23505' });
    }
    expect(await byId(db, 71)).toBeUndefined();
    const { value } = await roundTrips((trx) => pipeline(trx, [trx.insertInto('items').values({ id: 71, name: 'now' }), trx.selectFrom('items').select('name').where('id', '=', 71)], { commit: true }));
    expect(value[1].rows).toEqual([{ name: 'now' }]);
  });

  it('commit outside a transaction commits nothing of the next one: its rollback still rolls back', async () => {
    await pipeline(db, [db.insertInto('items').values({ id: 80, name: 'alone' })], { commit: true });
    expect(await byId(db, 80)).toEqual({ name: 'alone' });
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 81, name: 'rolled back' }).execute();
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(await byId(db, 81)).toBeUndefined();
  });
});
