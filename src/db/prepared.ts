import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * A pg client that runs the service's parameterised statements as named prepared statements.
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and plans it on every
 * call; for the short statements on the hot paths (the booking write, the event append, /me) the
 * planning cost more than the execution. A name derived from the statement text lets each
 * connection parse it once and, after a few executions, reuse a generic plan.
 *
 * - Only data statements with parameters are named (DDL and one-off text stay unnamed).
 * - Each connection names at most MAX_NAMED distinct texts (lists of varying length produce new
 *   texts); past that, statements run unnamed as before.
 * - A table altered under a prepared statement (a newer deployment migrating while this process
 *   still runs) answers 0A000 "cached plan must not change result type" once: the statement is
 *   then retired on this connection and run again unnamed (or, inside a transaction it has
 *   aborted, fails that one transaction).
 * - Not for PgBouncer in transaction pooling mode, which does not keep a connection's prepared
 *   statements (point DATABASE_URL at PostgreSQL or a session-mode pooler).
 */
const MAX_NAMED = 500;
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `k${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (names.size < 10_000) names.set(text, name);
  }
  return name;
}

const isStalePlan = (error: unknown) => (error as { code?: string } | null)?.code === '0A000';

const isReadTimeout = (error: unknown) => (error as { message?: string } | null)?.message === 'Query read timeout';

export class PreparingClient extends pg.Client {
  private readonly named = new Set<string>();
  private readonly retired = new Set<string>();

  override query(config: unknown, values?: unknown, callback?: unknown): never {
    const result = this.prepareAndRun(config, values, callback) as unknown;
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        // pg gave up waiting (query_timeout) but the statement may still be running on the
        // connection, which would answer the next caller's query with this one's rows: end it,
        // and the pool replaces it.
        if (isReadTimeout(error)) (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        throw error;
      }) as never;
    }
    return result as never;
  }

  // pg's overloads are many; only (text, values) — the form Kysely uses — is rewritten.
  private prepareAndRun(config: unknown, values?: unknown, callback?: unknown): never {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined && DATA_STATEMENT.test(config)) {
      const name = nameOf(config);
      if (!this.retired.has(name) && (this.named.has(name) || this.named.size < MAX_NAMED)) {
        this.named.add(name);
        const run = super.query({ name, text: config, values } as never) as unknown as Promise<pg.QueryResult>;
        return run.catch((error: unknown) => {
          if (!isStalePlan(error)) throw error;
          this.retired.add(name);
          // Inside a transaction the error has aborted it: the caller's retry runs it afresh.
          if (this.getTransactionStatus() === 'E') throw error;
          return super.query(config, values as never);
        }) as never;
      }
    }
    return (super.query as (...args: unknown[]) => never)(config, values, callback);
  }
}
