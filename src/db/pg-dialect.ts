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
import type pg from 'pg';
import type { PreparingClient } from './prepared.js';

/**
 * Kysely over a pool of PreparingClients: Kysely's own PostgreSQL driver, plus `executePipeline`,
 * which hands several statements to the client at once so that they make one round trip
 * (PreparingClient.frame). Kysely's connection keeps its client private, hence a driver of our own.
 */

/** A connection that can run several statements in one round trip. */
export interface PipelineConnection extends DatabaseConnection {
  /**
   * Runs `queries` in order in one round trip and answers their results; with `commit`, the open
   * transaction commits in the same round trip (nothing else may run in it afterwards).
   */
  executePipeline(queries: readonly CompiledQuery[], options: { commit: boolean }): Promise<QueryResult<unknown>[]>;
}

type Client = PreparingClient & pg.PoolClient;

function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { numAffectedRows: writes ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
}

class PgConnection implements PipelineConnection {
  constructor(readonly client: Client) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return resultOf<R>(await this.client.query(query.sql, [...query.parameters]));
  }

  async executePipeline(queries: readonly CompiledQuery[], options: { commit: boolean }): Promise<QueryResult<unknown>[]> {
    const results = await this.client.frame(
      queries.map((q) => ({ text: q.sql, values: [...q.parameters] })),
      options,
    );
    return results.map((r) => resultOf(r));
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used by this service');
  }
}

class PgDriver implements Driver {
  private readonly connections = new WeakMap<Client, PgConnection>();
  private pool: pg.Pool | null;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.pool) throw new Error('driver has already been destroyed');
    const client = (await this.pool.connect()) as Client;
    let connection = this.connections.get(client);
    if (!connection) this.connections.set(client, (connection = new PgConnection(client)));
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const mode = settings.accessMode ? ` ${settings.accessMode}` : '';
    await connection.executeQuery(CompiledQuery.raw(level || mode ? `start transaction${level}${mode}` : 'begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { client } = connection as PgConnection;
    client.resetTransaction();
    client.release();
  }

  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }
}

export class PgDialect implements Dialect {
  constructor(private readonly pool: pg.Pool) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PgDriver(this.pool);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
