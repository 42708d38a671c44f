import { promises as fs } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { PreparingClient } from './prepared.js';
import { TableChanges, watchChanges } from './changes.js';
import { migrations } from './migrations/index.js';
import type { DB } from './schema.js';

export type Engine = 'postgres' | 'pglite';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** Counters of the writes made through `db` (what a cache compares to see a write). */
  changes: TableChanges;
  close(): Promise<void>;
}

// int8 → number (sequences and ids stay far below 2^53), numeric → number (money has two decimals),
// date → the `YYYY-MM-DD` text itself (a JS Date would drag in a time zone).
const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const textParsers: Record<number, (value: string) => unknown> = {
  [INT8]: Number,
  [NUMERIC]: Number,
  [DATE]: (value) => value,
};

export interface DatabaseOptions {
  /** `postgres://…`, `memory:`, or null for PGlite stored in dataDir. */
  url: string | null;
  dataDir: string;
  /** Schema placed first on the search path (tests use one per file). */
  schema?: string;
  /** An already open PGlite to share (tests open one per process). */
  pglite?: PGlite;
  poolSize?: number;
}

export async function openPGlite(dataDir: string | null): Promise<PGlite> {
  if (dataDir) await fs.mkdir(dataDir, { recursive: true });
  return PGlite.create(dataDir ? path.join(dataDir, 'pglite') : undefined, {
    parsers: Object.fromEntries(Object.entries(textParsers).map(([oid, fn]) => [oid, fn])),
  });
}

/** A Kysely whose writes move its TableChanges. */
function watched(dialect: Dialect): { db: Kysely<DB>; changes: TableChanges } {
  const changes = new TableChanges();
  return { db: new Kysely<DB>({ dialect: watchChanges(dialect, changes) }), changes };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const searchPath = options.schema ? `"${options.schema}", public` : null;
  if (options.url?.startsWith('postgres')) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      Client: PreparingClient,
      options: searchPath ? `-c search_path=${searchPath.replace(/\s/g, '')}` : undefined,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    const { db, changes } = watched(new PostgresDialect({ pool }));
    if (options.schema) await sql`create schema if not exists ${sql.id(options.schema)}`.execute(db);
    return { db, engine: 'postgres', changes, close: () => db.destroy() };
  }
  const shared = options.pglite;
  const pglite = shared ?? (await openPGlite(options.url === 'memory:' ? null : options.dataDir));
  if (options.schema) await pglite.exec(`create schema if not exists "${options.schema}"`);
  const { db, changes } = watched(new PGliteDialect(pglite, searchPath ?? undefined));
  return {
    db,
    engine: 'pglite',
    changes,
    close: async () => {
      await db.destroy();
      if (!shared) await pglite.close();
    },
  };
}

/**
 * Applies pending migrations; throws with the failing migration's name. `schema` keeps the
 * migration bookkeeping beside the tables when a schema other than public is in use.
 */
export async function migrate(db: Kysely<DB>, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    migrationTableSchema: schema,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${cause}`);
  }
}
