import { randomBytes } from 'node:crypto';
import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/database.js';
import { PgDialect, type PoolMode } from '../../src/db/pg-dialect.js';
import { sendAhead } from '../../src/db/pipeline.js';
import { databaseUrl, transactionPooled } from '../helpers/context.js';

// The contract of the PostgreSQL adapter (src/db/pg-dialect.ts) in both pool modes: named
// statements only in session mode, and what a caller sees when a plan goes stale under a
// migration, when the session is ended mid-transaction, and when a statement fails inside one.

const schema = `adapter_${randomBytes(4).toString('hex')}`;
let admin: pg.Client;

function open(mode: PoolMode, max = 1): { db: Kysely<any>; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: databaseUrl!,
    max,
    // as openDatabase does (see PgConnection)
    pipeline: true,
    ...(mode === 'session' ? { options: `-c search_path=${schema}` } : {}),
  });
  // as openDatabase does: a session ended while a client is checked out must not be an unhandled 'error'
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<any>({ dialect: new PgDialect({ pool, mode, statementTimeoutMs: 4321, searchPath: mode === 'transaction' ? `"${schema}"` : null }) });
  return { db, pool };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (e: unknown) => (e as { code?: string }).code ?? String(e),
  );

describe.runIf(databaseUrl)('the PostgreSQL adapter', () => {
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.DATABASE_DIRECT_URL ?? databaseUrl! });
    await admin.connect();
    await admin.query(`create schema ${schema}; create table ${schema}.items (id int primary key, name text not null)`);
  });
  afterAll(async () => {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  // Named statements and connect-time settings need a session of one's own: not through a transaction pooler.
  describe.skipIf(transactionPooled)('session mode', () => {
    let db: Kysely<any>;
    beforeAll(() => void ({ db } = open('session')));
    afterAll(() => db.destroy());

    it('runs parameterised statements as named prepared statements, each parsed once per session', async () => {
      await db.insertInto('items').values({ id: 1, name: 'one' }).execute();
      for (let i = 0; i < 3; i++) expect(await db.selectFrom('items').select('name').where('id', '=', 1).executeTakeFirst()).toEqual({ name: 'one' });
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements where statement like '%from "items"%'`.execute(db);
      expect(rows.map((r) => r.statement)).toEqual(['select "name" from "items" where "id" = $1']);
    });

    it('a plan gone stale under a migration: runs again unnamed outside a transaction, fails only the transaction inside one', async () => {
      await db.insertInto('items').values({ id: 2, name: 'two' }).execute();
      const all = (q: Kysely<any>) => q.selectFrom('items').selectAll().where('id', '=', 2).executeTakeFirst();
      expect(await all(db)).toEqual({ id: 2, name: 'two' });
      await admin.query(`alter table ${schema}.items add column note text`);
      // outside a transaction the caller never sees the stale plan
      expect(await all(db)).toEqual({ id: 2, name: 'two', note: null });

      await db.insertInto('items').values({ id: 3, name: 'three' }).execute();
      const inTransaction = (q: Kysely<any>) => q.selectFrom('items').select(['id', 'name']).where('id', '>', 2).execute();
      expect(await db.transaction().execute(inTransaction)).toEqual([{ id: 3, name: 'three' }]);
      await admin.query(`alter table ${schema}.items alter column name type varchar(100)`);
      // inside one it has aborted the transaction: 0A000, and the caller's retry succeeds
      expect(await codeOf(db.transaction().execute(inTransaction))).toBe('0A000');
      expect(await db.transaction().execute(inTransaction)).toEqual([{ id: 3, name: 'three' }]);
      await admin.query(`alter table ${schema}.items drop column note, alter column name type text`);
    });

    it('a session ended mid-transaction: the caller gets a database-unavailable error, and the pool recovers', async () => {
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('items').values({ id: 10, name: 'lost' }).execute();
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
          await trx.selectFrom('items').selectAll().execute();
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(outcome).not.toBeNull();
      expect(isDatabaseUnavailable(outcome)).toBe(true);
      // the pool (one connection) opens a new session; the lost transaction wrote nothing
      expect(await db.selectFrom('items').select('id').where('id', '=', 10).execute()).toEqual([]);
      expect(await db.transaction().execute((trx) => trx.insertInto('items').values({ id: 11, name: 'after' }).returning('id').execute())).toEqual([
        { id: 11 },
      ]);
    });

    it('a statement that fails inside a transaction rolls all of it back and leaves the session usable', async () => {
      const failed = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 20, name: 'first' }).execute();
        await trx.insertInto('items').values({ id: 1, name: 'duplicate' }).execute();
      });
      expect(await codeOf(failed)).toBe('23505');
      expect(await db.selectFrom('items').select('id').where('id', '=', 20).execute()).toEqual([]);
      expect(await db.selectFrom('items').select('name').where('id', '=', 1).executeTakeFirst()).toEqual({ name: 'one' });
    });
  });

  describe('transaction mode', () => {
    let db: Kysely<any>;
    beforeAll(() => void ({ db } = open('transaction')));
    afterAll(() => db.destroy());

    it('names no statement and sends no session setting: BEGIN carries the timeout and the search path', async () => {
      await db.insertInto('items').values({ id: 100, name: 'hundred' }).execute();
      for (let i = 0; i < 3; i++) expect(await db.selectFrom('items').select('name').where('id', '=', 100).executeTakeFirst()).toEqual({ name: 'hundred' });
      const settings = await db.transaction().execute(async (trx) => {
        const timeout = await sql<{ t: string }>`select current_setting('statement_timeout') as t`.execute(trx);
        const prepared = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(trx);
        return { timeout: timeout.rows[0].t, prepared: prepared.rows[0].n };
      });
      expect(settings).toEqual({ timeout: '4321ms', prepared: 0 });
      // outside a transaction the session keeps the role's own settings
      const outside = await sql<{ t: string; path: string }>`select current_setting('statement_timeout') as t, current_setting('search_path') as path`.execute(
        db,
      );
      expect(outside.rows[0].t).not.toBe('4321ms');
      expect(outside.rows[0].path).toContain(schema);
    });

    it('a statement that fails inside a transaction rolls it back', async () => {
      const failed = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 30, name: 'first' }).execute();
        await trx.insertInto('items').values({ id: 100, name: 'duplicate' }).execute();
      });
      expect(await codeOf(failed)).toBe('23505');
      expect(await db.selectFrom('items').select('id').where('id', '=', 30).execute()).toEqual([]);
    });
  });

  // Statements a unit of work sends ahead (src/db/pipeline.ts): out at once, their failure thrown
  // by the next statement awaited or by the commit, in either pool mode.
  describe.each(transactionPooled ? (['transaction'] as const) : (['session', 'transaction'] as const))('statements sent ahead, %s mode', (mode) => {
    let db: Kysely<any>;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    const base = mode === 'session' ? 1000 : 2000;
    const ahead = (trx: Kysely<any>, query: { compile(): import('kysely').CompiledQuery }, onAnswer?: (r: import('kysely').QueryResult<unknown>) => void) =>
      trx.executeQuery(sendAhead(query.compile(), onAnswer));
    beforeAll(async () => {
      ({ db } = open(mode));
      process.on('warning', onWarning);
      await db.insertInto('items').values({ id: base, name: 'taken' }).execute();
    });
    afterAll(async () => {
      process.off('warning', onWarning);
      await db.destroy();
    });

    it('goes out without waiting for its answer: a write blocked on a row lock does not hold up the caller', async () => {
      await admin.query(`begin; select * from ${schema}.items where id = ${base} for update`);
      let returned = false;
      const done = db.transaction().execute(async (trx) => {
        await ahead(trx, trx.updateTable('items').set({ name: 'updated' }).where('id', '=', base));
        returned = true;
        // the lock is released only once the write is out and its caller went on
        await admin.query('commit');
        return trx.selectFrom('items').select('name').where('id', '=', base).executeTakeFirst();
      });
      expect(await done).toEqual({ name: 'updated' });
      expect(returned).toBe(true);
      await db.updateTable('items').set({ name: 'taken' }).where('id', '=', base).execute();
    });

    it('a failure is thrown by the next statement awaited, and nothing of the transaction stays', async () => {
      const answered: string[] = [];
      const failed = db.transaction().execute(async (trx) => {
        await ahead(trx, trx.insertInto('items').values({ id: base + 1, name: 'first' }), () => answered.push('first'));
        await ahead(trx, trx.insertInto('items').values({ id: base, name: 'duplicate' }));
        await ahead(trx, trx.insertInto('items').values({ id: base + 2, name: 'after' }));
        await trx.selectFrom('items').selectAll().execute();
        answered.push('read');
      });
      expect(await codeOf(failed)).toBe('23505');
      expect(answered).toEqual(['first']);
      expect(
        await db
          .selectFrom('items')
          .select('id')
          .where('id', 'in', [base + 1, base + 2])
          .execute(),
      ).toEqual([]);
    });

    it('a failure sent just before the commit fails the commit, which rolls everything back; the session stays usable', async () => {
      const failed = db.transaction().execute(async (trx) => {
        await trx
          .insertInto('items')
          .values({ id: base + 3, name: 'awaited' })
          .execute();
        await ahead(trx, trx.insertInto('items').values({ id: base + 4, name: 'ahead' }));
        await ahead(trx, trx.insertInto('items').values({ id: base, name: 'duplicate' }));
      });
      expect(await codeOf(failed)).toBe('23505');
      expect(
        await db
          .selectFrom('items')
          .select('id')
          .where('id', 'in', [base + 3, base + 4])
          .execute(),
      ).toEqual([]);
      const rows: unknown[] = [];
      await db.transaction().execute(async (trx) => {
        await ahead(
          trx,
          trx
            .insertInto('items')
            .values({ id: base + 5, name: 'kept' })
            .returning('id'),
          (r) => rows.push(...r.rows),
        );
      });
      // the answer arrived before the commit returned
      expect(rows).toEqual([{ id: base + 5 }]);
    });

    it('the session ended with statements sent ahead: the commit fails as database-unavailable, nothing is written, the pool recovers', async () => {
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await ahead(trx, trx.insertInto('items').values({ id: base + 6, name: 'lost' }));
          await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
          await ahead(trx, trx.insertInto('items').values({ id: base + 7, name: 'lost' }));
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isDatabaseUnavailable(outcome)).toBe(true);
      expect(
        await db
          .selectFrom('items')
          .select('id')
          .where('id', 'in', [base + 6, base + 7])
          .execute(),
      ).toEqual([]);
    });

    it("pg's warning about a query sent while another runs never appears", () => {
      expect(warnings.filter((w) => /already executing a query/.test(w))).toEqual([]);
    });
  });
});
