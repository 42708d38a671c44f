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

/** What `begin`, `commit` or `rollback` answers when nothing had to be sent. */
const noResult = (command: string) => ({ command, rowCount: null, oid: 0, rows: [], fields: [] }) as unknown as pg.QueryResult;

interface ProtocolConnection {
  parsedStatements: Record<string, string>;
  parse(config: { text: string; name?: string }): void;
  bind(config: object): void;
  execute(config: object): void;
}

/**
 * A statement sent with `begin` ahead of it in the same write, under one Sync: the transaction
 * opens and its first statement runs in one round trip. Each statement of an extended-protocol
 * batch takes its own snapshot, so the statement sees what was committed before it ran, exactly
 * as after a separate `begin`; an error in either skips the rest and is the query's error.
 */
class BeginAndQuery extends pg.Query {
  prepare(connection: ProtocolConnection): void {
    connection.parse({ text: 'begin' });
    connection.bind({});
    connection.execute({});
    (pg.Query.prototype as unknown as { prepare(c: ProtocolConnection): void }).prepare.call(this, connection);
  }

  handleCommandComplete(msg: { text: string }, connection: ProtocolConnection): void {
    if (msg.text === 'BEGIN') return;
    (pg.Query.prototype as unknown as { handleCommandComplete(m: object, c: ProtocolConnection): void }).handleCommandComplete.call(this, msg, connection);
  }
}

export class PreparingClient extends pg.Client {
  private readonly named = new Set<string>();
  private readonly retired = new Set<string>();
  /**
   * A transaction's `begin` not sent yet: it goes out with the transaction's first statement
   * (BeginAndQuery), saving a round trip on every transaction. Measured on booking creates (nine
   * round trips each before): see docs/performance.md, seventh round.
   */
  private beginPending = false;

  override query(config: unknown, values?: unknown, callback?: unknown): never {
    if (typeof config === 'string' && callback === undefined && (values === undefined || (Array.isArray(values) && values.length === 0))) {
      if (config === 'begin' && !this.beginPending && this.getTransactionStatus() === 'I') {
        this.beginPending = true;
        return Promise.resolve(noResult('BEGIN')) as never;
      }
      if (this.beginPending && (config === 'commit' || config === 'rollback')) {
        // Nothing was sent: there is no transaction to end.
        this.beginPending = false;
        return Promise.resolve(noResult(config.toUpperCase())) as never;
      }
    }
    if (this.beginPending) {
      this.beginPending = false;
      const framed = this.beginWith(config, values, callback);
      if (framed) return framed;
      return super.query('begin').then(() => this.query(config, values, callback)) as never;
    }
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

  /**
   * The statement with `begin` ahead of it in one round trip, when it is a parameterised data
   * statement whose text this connection has parsed (or will run unnamed); otherwise null, and
   * `begin` goes alone. A named statement's first Parse is left out of the frame: pg marks a name
   * parsed on any ParseComplete, and `begin`'s own would mark it before its Parse succeeded.
   */
  private beginWith(config: unknown, values?: unknown, callback?: unknown): never | null {
    // Without parameters pg sends the text as a simple query, which may hold several statements.
    if (typeof config !== 'string' || !Array.isArray(values) || values.length === 0 || callback !== undefined) return null;
    let name: string | undefined;
    if (DATA_STATEMENT.test(config)) {
      const candidate = nameOf(config);
      if (!this.retired.has(candidate) && (this.named.has(candidate) || this.named.size < MAX_NAMED)) {
        const parsed = (this as unknown as { connection: ProtocolConnection }).connection.parsedStatements[candidate] !== undefined;
        if (!parsed) return null;
        name = candidate;
      }
    }
    const run = new Promise<pg.QueryResult>((resolve, reject) => {
      const query = new BeginAndQuery({ text: config, values, ...(name ? { name } : {}) } as pg.QueryConfig, undefined, ((error: Error | null, result: pg.QueryResult) =>
        error ? reject(error) : resolve(result)) as never);
      super.query(query as never);
    });
    return run.catch((error: unknown) => {
      if (isReadTimeout(error)) (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      // The transaction is aborted either way; the caller's retry runs the statement unnamed.
      if (name && isStalePlan(error)) this.retired.add(name);
      throw error;
    }) as never;
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
