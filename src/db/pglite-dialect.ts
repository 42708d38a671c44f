import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * Kysely over PGlite. PGlite is one PostgreSQL session in this process, so a transaction must own
 * it from BEGIN to COMMIT: the driver hands out its single connection behind a mutex, which
 * serialises transactions (and keeps every other query out of an open transaction).
 */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

const MULTI_STATEMENT = /;\s*\S/;

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query.parameters.length === 0 && MULTI_STATEMENT.test(query.sql)) {
      // Migrations send several statements at once; only the simple protocol (exec) accepts that.
      const results = await this.pg.exec(query.sql);
      const last = results[results.length - 1];
      return { rows: (last?.rows ?? []) as R[] };
    }
    const result = await this.pg.query<R>(query.sql, query.parameters as unknown[], { rowMode: 'object' });
    return {
      rows: result.rows,
      numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }
}

// Shared per PGlite instance: several Kysely instances (tests: one per schema) may use one PGlite.
const mutexes = new WeakMap<PGlite, Mutex>();
const searchPaths = new WeakMap<PGlite, string>();

class PGliteDriver implements Driver {
  private readonly mutex: Mutex;
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  private readonly connection: PGliteConnection;

  constructor(
    private readonly pg: PGlite,
    private readonly searchPath: string | undefined,
  ) {
    this.connection = new PGliteConnection(pg);
    if (!mutexes.has(pg)) mutexes.set(pg, new Mutex());
    this.mutex = mutexes.get(pg)!;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    if (this.searchPath && searchPaths.get(this.pg) !== this.searchPath) {
      try {
        await this.pg.exec(`set search_path to ${this.searchPath}`);
        searchPaths.set(this.pg, this.searchPath);
      } catch (error) {
        release();
        throw error;
      }
    }
    // One shared connection object: the mutex guarantees a single holder at a time.
    this.releases.set(this.connection, release);
    return this.connection;
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${level}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    const release = this.releases.get(conn);
    this.releases.delete(conn);
    release?.();
  }

  async destroy(): Promise<void> {}
}

export class PGliteDialect implements Dialect {
  /** `searchPath`: set on the session whenever this dialect takes it over from another. */
  constructor(
    private readonly pg: PGlite,
    private readonly searchPath?: string,
  ) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pg, this.searchPath);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
