import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteDialect } from '../../src/db/pglite-dialect.js';

// The embedded engine's named statements (pglite-dialect.ts) against what PGlite's own query()
// answers for the same text: values of every kind the service sends, row counts, errors, a table
// changed under a named statement, and two search paths sharing one session.

let pg: PGlite;
let a: Kysely<any>;
let b: Kysely<any>;

beforeAll(async () => {
  pg = await PGlite.create();
  await pg.exec(`
    create schema sa; create schema sb;
    create table sa.items (id serial primary key, name text not null, at timestamptz, ok boolean, doc jsonb, n bigint, day date);
    create table sb.items (id serial primary key, name text not null, at timestamptz, ok boolean, doc jsonb, n bigint, day date);
  `);
  a = new Kysely<any>({ dialect: new PGliteDialect(pg, 'sa') });
  b = new Kysely<any>({ dialect: new PGliteDialect(pg, 'sb') });
});
afterAll(async () => {
  await pg.close();
});

describe('named statements on PGlite', () => {
  it('answer as query() does, for every kind of value, run after run', async () => {
    const at = new Date('2026-11-25T10:00:00.123Z');
    for (let i = 0; i < 8; i++) {
      const inserted = await a
        .insertInto('items')
        .values({ name: `n${i}`, at, ok: i % 2 === 0, doc: JSON.stringify({ i, s: 'ünï' }), n: 9007199254740993n, day: '2026-12-01' })
        .returningAll()
        .executeTakeFirstOrThrow();
      expect(inserted).toMatchObject({ name: `n${i}`, ok: i % 2 === 0, doc: { i, s: 'ünï' }, day: new Date('2026-12-01T00:00:00.000Z') });
      expect((inserted.at as Date).toISOString()).toBe(at.toISOString());
    }
    const text = 'select id, name, at, ok, doc, n, day from sa.items where name = $1 or ok = $2 or at = $3 order by id';
    const params = ['n3', true, at];
    const ours = await a.executeQuery({ sql: text, parameters: params, query: undefined as never, queryId: undefined as never });
    const theirs = await pg.query(text, params);
    expect(ours.rows).toEqual(theirs.rows);
    const updated = await a.updateTable('items').set({ ok: null }).where('name', 'in', ['n1', 'n2']).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    const none = await a.selectFrom('items').selectAll().where('name', '=', 'nobody').execute();
    expect(none).toEqual([]);
  });

  it('keeps search paths apart: the same text reads each schema’s own table', async () => {
    await b.insertInto('items').values({ name: 'only-in-b' }).execute();
    for (let i = 0; i < 3; i++) {
      const inA = await a.selectFrom('items').select('name').where('name', '=', 'only-in-b').execute();
      const inB = await b.selectFrom('items').select('name').where('name', '=', 'only-in-b').execute();
      expect(inA).toEqual([]);
      expect(inB).toEqual([{ name: 'only-in-b' }]);
    }
  });

  it('raises the database’s errors with their codes, and the session goes on', async () => {
    const first = await a.selectFrom('items').select('id').where('name', '=', 'n0').executeTakeFirstOrThrow();
    const error = await a
      .insertInto('items')
      .values({ id: first.id, name: 'dup' })
      .execute()
      .catch((e: unknown) => e as { code?: string; constraint?: string });
    expect(error).toMatchObject({ code: '23505' });
    await expect(a.selectFrom('items').select('id').where('name', '=', 'n0').execute()).resolves.toHaveLength(1);
    // inside a transaction, an error rolls the whole transaction back as usual
    await expect(
      a.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ name: 'in-trx' }).execute();
        await trx.insertInto('items').values({ id: first.id, name: 'dup' }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await a.selectFrom('items').select('id').where('name', '=', 'in-trx').execute()).toEqual([]);
  });

  it('a table changed under a named statement: the statement is retired and runs unnamed', async () => {
    const read = () => a.selectFrom('items').selectAll().where('name', '=', 'n0').execute();
    expect((await read())[0]).not.toHaveProperty('extra');
    await sql`alter table sa.items add column extra text default 'x'`.execute(a);
    expect((await read())[0]).toMatchObject({ name: 'n0', extra: 'x' });
    expect((await read())[0]).toMatchObject({ name: 'n0', extra: 'x' });
  });
});
