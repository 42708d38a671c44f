import type { Compilable, Kysely, QueryResult, RawBuilder, Transaction } from 'kysely';
import type { PipelineConnection } from './pg-dialect.js';
import type { DB } from './schema.js';

/**
 * Runs `queries` in order on the transaction's connection, in one round trip on PostgreSQL (each
 * statement still takes its own snapshot when it starts, after the one before it has finished
 * and taken its locks), one after the other on the embedded engine. An error fails the call and
 * the transaction. With `commit`, the transaction commits in the same round trip on PostgreSQL:
 * the caller runs nothing more in it.
 */
export async function pipeline(
  db: Transaction<DB> | Kysely<DB>,
  queries: ReadonlyArray<Compilable<unknown> | RawBuilder<unknown>>,
  options: { commit?: boolean } = {},
): Promise<QueryResult<unknown>[]> {
  const compiled = queries.map((q) => ('isRawBuilder' in q ? q.compile(db) : q.compile()));
  return db.getExecutor().provideConnection((connection) => (connection as PipelineConnection).executePipeline(compiled, { commit: options.commit === true }));
}
