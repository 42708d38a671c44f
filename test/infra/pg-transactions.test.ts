import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparingClient } from '../../src/db/prepared.js';
import { databaseUrl } from '../helpers/context.js';

// PreparingClient's transaction framing (src/db/prepared.ts): `begin` waits for the transaction's
// first statement and goes out with it. Counted by the ReadyForQuery messages the server sends
// (one per round trip), and checked for what a transaction must still do: see what committed
// before its first statement, keep its writes to itself until commit, roll back on an error, and
// leave the connection usable.

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
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
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
    // The first time, the insert's text is new on the connection: begin goes alone (see below).
    expect((await roundTrips((trx) => write(trx, 1))).trips).toBe(4);
    const { value, trips } = await roundTrips((trx) => write(trx, 2));
    expect(value).toEqual({ name: 'n2' });
    expect(trips).toBe(3);
    expect((await other.query('select name from items where id in (1, 2) order by id')).rows).toEqual([{ name: 'n1' }, { name: 'n2' }]);
  });

  it('a statement whose text is new on the connection goes after a begin of its own', async () => {
    const { trips } = await roundTrips((trx) => trx.selectFrom('items').select(['id', 'name']).where('name', '=', 'never').execute());
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
});
