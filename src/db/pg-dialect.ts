import { createHash } from 'node:crypto';
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
import { AheadState, aheadOf, sendAhead, SENT } from './pipeline.js';

/**
 * How statements reach PostgreSQL: `session` when each pooled connection is a server session of
 * its own (PostgreSQL itself or a session-mode pooler), `transaction` when a pooler such as
 * PgBouncer with `pool_mode = transaction` may hand every transaction to a different session.
 */
export type PoolMode = 'session' | 'transaction';

export interface PgDialectOptions {
  pool: pg.Pool;
  mode: PoolMode;
  /** Sent as `SET LOCAL statement_timeout` with each transaction's `BEGIN` in transaction mode. */
  statementTimeoutMs: number;
  /** Transaction mode: the search path set with each transaction (tests use a schema per file); null for the role's own. */
  searchPath: string | null;
}

/**
 * Each connection keeps at most this many named statements: texts that vary (lists of varying
 * length) would otherwise grow every session's plan cache without bound.
 */
const MAX_NAMED = 500;
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

const nameOf = (text: string) => `k${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;

/** PostgreSQL's answer when a named statement's plan no longer fits its tables (a migration altered them). */
const isStalePlan = (error: unknown) => (error as { code?: string } | null)?.code === '0A000';

function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return { numAffectedRows: writes ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
}

/**
 * One pooled pg client as Kysely's connection. In session mode parameterised data statements run
 * as named prepared statements (pg's public `{ name, text, values }`), so each session parses and
 * plans them once; in transaction mode every statement is unnamed, as a pooler that moves
 * transactions between sessions requires.
 *
 * The pool's clients run in pg's pipeline mode (each statement under its own Sync, written without
 * waiting for the one before to be answered). Kysely still awaits each statement it runs; what goes
 * out without waiting is a transaction's BEGIN and the statements a unit of work sends ahead
 * (pipeline.ts), so a booking create's BEGIN travels with its property lock, and its events,
 * idempotency record and NOTIFY with its COMMIT.
 */
class PgConnection implements DatabaseConnection {
  /** Statement names this session has prepared, and those retired after a stale plan. */
  private readonly named = new Set<string>();
  private readonly retired = new Set<string>();
  inTransaction = false;
  /** Set when the session's state is unknown (cut, or a reply never came): the pool discards it. */
  broken = false;
  /** The statements of the current transaction sent ahead, and the first of them that failed. */
  readonly ahead = new AheadState();

  constructor(
    readonly client: pg.PoolClient,
    private readonly options: PgDialectOptions,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const onAnswer = aheadOf(query);
    if (onAnswer) {
      if (!this.inTransaction) throw new Error('a statement is sent ahead only inside a transaction');
      // After a failure the transaction is aborted: the statement would only fail in turn.
      if (!this.ahead.failed) {
        const answer = this.run(query.sql, [...query.parameters]).then(resultOf);
        this.ahead.track(answer, onAnswer, (error) => {
          if (isConnectionLost(error)) this.broken = true;
        });
        // A client outside pipeline mode would queue the next statement behind this one (and warn
        // of it): there the answer is awaited here, with the same outcome, later.
        if (!this.client.pipeline) await this.ahead.settle();
      }
      return SENT;
    }
    this.ahead.check();
    try {
      return resultOf<R>(await this.run(query.sql, [...query.parameters]));
    } catch (error) {
      if (isConnectionLost(error)) this.broken = true;
      // A statement sent ahead failed first (this one then met an aborted transaction): its error
      // is the one to answer with. Its answer came before this one's, so nothing is waited for.
      await this.ahead.settle();
      this.ahead.check();
      throw error;
    }
  }

  private async run(text: string, values: unknown[]): Promise<pg.QueryResult> {
    const name = this.nameFor(text, values);
    if (name) {
      try {
        return await this.client.query({ name, text, values });
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // The name keeps its old plan on this session: from now on the text runs unnamed here.
        this.retired.add(name);
        // Inside a transaction the error has aborted it; the caller's retry runs it afresh.
        if (this.inTransaction) throw error;
        return this.client.query(text, values);
      }
    }
    if (this.options.mode === 'transaction' && this.options.searchPath && !this.inTransaction) {
      // A statement outside a transaction gets its search path from a transaction of its own.
      await this.client.query(`begin; set local search_path to ${this.options.searchPath}`);
      try {
        const result = await this.client.query(text, values);
        await this.client.query('commit');
        return result;
      } catch (error) {
        await this.client.query('rollback').catch(() => {});
        throw error;
      }
    }
    return this.client.query(text, values);
  }

  private nameFor(text: string, values: unknown[]): string | undefined {
    if (this.options.mode !== 'session' || values.length === 0 || !DATA_STATEMENT.test(text)) return undefined;
    const name = nameOf(text);
    if (this.retired.has(name) || (!this.named.has(name) && this.named.size >= MAX_NAMED)) return undefined;
    this.named.add(name);
    return name;
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used by this service');
  }
}

// pg's words for a session that is gone or whose reply never came (its state is then unknown).
const LOST = /connection terminated|query read timeout|not queryable|connection error|client was closed/i;
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', '57P01', '57P02', '57P03']);

function isConnectionLost(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === 'string' && LOST_CODES.has(e.code)) || (typeof e?.message === 'string' && LOST.test(e.message));
}

class PgDriver implements Driver {
  private readonly connections = new WeakMap<pg.PoolClient, PgConnection>();
  private pool: pg.Pool | null;

  constructor(private readonly options: PgDialectOptions) {
    this.pool = options.pool;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.pool) throw new Error('driver has already been destroyed');
    const client = await this.pool.connect();
    let connection = this.connections.get(client);
    if (!connection) this.connections.set(client, (connection = new PgConnection(client, this.options)));
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const level = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const mode = settings.accessMode ? ` ${settings.accessMode}` : '';
    let text = level || mode ? `start transaction${level}${mode}` : 'begin';
    if (this.options.mode === 'transaction') {
      // Session settings do not survive a transaction pooler: they go with each BEGIN, in one
      // simple-query round trip.
      text += `; set local statement_timeout = ${Math.trunc(this.options.statementTimeoutMs)}`;
      if (this.options.searchPath) text += `; set local search_path to ${this.options.searchPath}`;
    }
    const c = connection as PgConnection;
    c.inTransaction = true;
    c.ahead.reset();
    // Sent ahead: it goes out with the transaction's first statement, which answers its failure.
    await c.executeQuery(sendAhead(CompiledQuery.raw(text)));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as PgConnection;
    // Known failed already: still open, and the caller's rollback ends it.
    c.ahead.check();
    try {
      // PostgreSQL answers the COMMIT of a transaction that a statement sent ahead aborted with
      // ROLLBACK, not an error: that statement's own error is the answer.
      await c.executeQuery(CompiledQuery.raw('commit'));
      await c.ahead.settle();
    } finally {
      c.inTransaction = false;
    }
    c.ahead.check();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as PgConnection;
    // A lost session has nothing to roll back, and a busy one would answer only after its
    // statement; nor has a transaction whose COMMIT was sent (it ended either way).
    if (c.broken || !c.inTransaction) return;
    try {
      c.ahead.failed = null;
      await c.executeQuery(CompiledQuery.raw('rollback'));
      await c.ahead.settle();
    } finally {
      c.inTransaction = false;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = connection as PgConnection;
    c.inTransaction = false;
    c.ahead.reset();
    if (c.broken) {
      this.connections.delete(c.client);
      // pg-pool's public way to discard a client instead of reusing it.
      c.client.release(true);
    } else c.client.release();
  }

  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }
}

/** Kysely's PostgreSQL dialect over a pg pool, with the pool mode's rules (see PgConnection). */
export class PgDialect implements Dialect {
  constructor(private readonly options: PgDialectOptions) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PgDriver(this.options);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
