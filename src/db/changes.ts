import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';

/**
 * Which tables this process has changed, as counters that move when a write becomes visible: at
 * once for a statement outside a transaction, at commit (or rollback) for one inside. A cache of
 * data read from some tables (GET /me) remembers their combined version when it read and is stale
 * once the version moved. Every write of the process goes through Kysely, so nothing is missed;
 * writes of other processes sharing a PostgreSQL database are not seen here.
 *
 * A counter moves after the commit, before the writer answers its client: whoever has heard of a
 * write cannot be served a cache entry that predates it.
 */
export class TableChanges {
  private readonly counts = new Map<string, number>();

  /** The combined version of `tables`: changes whenever one of them is written. */
  version(tables: readonly string[]): number {
    let sum = 0;
    for (const table of tables) sum += this.counts.get(table) ?? 0;
    return sum;
  }

  bump(tables: Iterable<string>): void {
    for (const table of tables) this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }
}

// The table after INSERT INTO, UPDATE, DELETE FROM or TRUNCATE, schema-qualified or not, quoted or
// not. Words such as `for update skip` or `do update set` yield names that no reader asks about.
const WRITTEN = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?(?:"?\w+"?\.)?"?(\w+)"?/gi;
const MAYBE_WRITE = /insert|update|delete|truncate/i;

/** The tables a statement may write. */
export function writtenTables(sql: string): string[] {
  if (!MAYBE_WRITE.test(sql)) return [];
  return [...sql.matchAll(WRITTEN)].map((m) => m[1].toLowerCase());
}

class WatchedConnection implements DatabaseConnection {
  /** Tables written inside the open transaction; null outside one. */
  pending: Set<string> | null = null;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly changes: TableChanges,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(query);
    this.wrote(query.sql);
    return result;
  }

  private wrote(sql: string): void {
    const tables = writtenTables(sql);
    if (tables.length > 0) {
      if (this.pending) for (const t of tables) this.pending.add(t);
      else this.changes.bump(tables);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }

  /** The transaction ended: what it wrote is now visible (or was never written). */
  settle(): void {
    if (this.pending && this.pending.size > 0) this.changes.bump(this.pending);
    this.pending = null;
  }
}

class WatchingDriver implements Driver {
  private readonly wrappers = new WeakMap<DatabaseConnection, WatchedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly changes: TableChanges,
  ) {
    if (inner.savepoint) this.savepoint = (c, name, compile) => inner.savepoint!(unwrap(c), name, compile);
    if (inner.rollbackToSavepoint) this.rollbackToSavepoint = (c, name, compile) => inner.rollbackToSavepoint!(unwrap(c), name, compile);
    if (inner.releaseSavepoint) this.releaseSavepoint = (c, name, compile) => inner.releaseSavepoint!(unwrap(c), name, compile);
  }

  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) this.wrappers.set(connection, (wrapper = new WatchedConnection(connection, this.changes)));
    return wrapper;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(unwrap(connection), settings);
    (connection as WatchedConnection).pending = new Set();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(unwrap(connection));
    } finally {
      (connection as WatchedConnection).settle();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(unwrap(connection));
    } finally {
      (connection as WatchedConnection).settle();
    }
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as WatchedConnection).settle();
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const unwrap = (connection: DatabaseConnection) => (connection as WatchedConnection).inner;

/** The dialect with every statement watched for the tables it writes. */
export function watchChanges(dialect: Dialect, changes: TableChanges): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new WatchingDriver(dialect.createDriver(), changes),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  };
}
