import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
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

/**
 * pg's own conversion of a parameter, run before a frame is written: a value it cannot send
 * fails the call here instead of in the middle of a half-written frame.
 */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };
function prepareValues(values: unknown[]): void {
  for (const value of values) prepareValue(value);
}

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
  submittedNamedStatements: Record<string, string>;
  stream: { cork?(): void; uncork?(): void; destroy(): void };
  parse(config: { text: string; name?: string }): void;
  bind(config: object): void;
  execute(config: object): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

interface Statement {
  text: string;
  values: unknown[];
}

type QueryInternals = {
  prepare(c: ProtocolConnection): void;
  handleRowDescription(msg: object): void;
  handleDataRow(msg: object): void;
  handleCommandComplete(msg: object, c: ProtocolConnection): void;
  _results: pg.QueryResult;
  _result: { _types: unknown };
  _canceledDueToError: Error | false;
};

/** One statement of a Frame: its Parse (when new), Bind, Describe and Execute, without a Sync of its own. */
class FramePart extends pg.Query {
  _getRows(connection: ProtocolConnection, rows: number | undefined): void {
    connection.execute({ portal: (this as unknown as { portal: string }).portal, rows });
  }
}

const sendText = (connection: ProtocolConnection, text: string) => {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
};

/**
 * Statements written together and answered together: one round trip for all of them (optionally
 * opened by `begin` and closed by `commit`), under one Sync. Each statement of an extended-protocol
 * batch takes its own snapshot when it starts, after the one before it has finished (and taken its
 * locks), exactly as if each had been sent alone; an error skips the rest, `commit` included, and
 * is the frame's error.
 */
class Frame {
  callback?: (error: Error | null, results?: pg.QueryResult[]) => void;
  private readonly parts: Array<pg.Query & QueryInternals>;
  private answered = 0;
  private failed = false;

  constructor(
    statements: Array<Statement & { name?: string }>,
    types: unknown,
    private readonly begin: boolean,
    private readonly commit: boolean,
    callback: (error: Error | null, results?: pg.QueryResult[]) => void,
  ) {
    this.parts = statements.map((s) => {
      const part = new FramePart({ text: s.text, values: s.values, name: s.name, queryMode: 'extended' } as pg.QueryConfig) as unknown as pg.Query & QueryInternals;
      // what pg's client.query does for its own queries: the pool's type parsers
      part._result._types = types;
      return part;
    });
    this.callback = callback;
  }

  submit(connection: ProtocolConnection): null {
    connection.stream.cork?.();
    try {
      if (this.begin) sendText(connection, 'begin');
      for (const part of this.parts) part.prepare(connection);
      if (this.commit) sendText(connection, 'commit');
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  /** The statement whose answer is arriving (undefined while `begin` or `commit` answer). */
  private get current() {
    return this.parts[this.answered - (this.begin ? 1 : 0)];
  }

  handleRowDescription(msg: object): void {
    this.current?.handleRowDescription(msg);
  }

  handleDataRow(msg: object): void {
    this.current?.handleDataRow(msg);
  }

  handleCommandComplete(msg: object, connection: ProtocolConnection): void {
    this.current?.handleCommandComplete(msg, connection);
    this.answered++;
  }

  handleEmptyQuery(): void {
    this.answered++;
  }

  handleError(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    if (this.failed) return;
    const unparsable = this.parts.find((p) => p._canceledDueToError)?._canceledDueToError;
    if (unparsable) this.callback?.(unparsable);
    else this.callback?.(null, this.parts.map((p) => p._results));
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: ProtocolConnection): void {
    connection.sendCopyFail('COPY is not supported in a frame');
  }

  handleCopyData(): void {}
}

export class PreparingClient extends pg.Client {
  private readonly named = new Set<string>();
  private readonly retired = new Set<string>();
  /**
   * A transaction's `begin` not sent yet: it goes out with the transaction's first statement
   * (a Frame), saving a round trip on every transaction. Measured on booking creates (nine
   * round trips each before): see docs/performance.md, seventh round.
   */
  private beginPending = false;
  /** The open transaction committed at the end of a frame: Kysely's commit is answered here. */
  private committed = false;

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
    if (this.committed && typeof config === 'string' && (config === 'commit' || config === 'rollback')) {
      // The transaction committed with its last statements (a frame with commit).
      this.committed = false;
      return Promise.resolve(noResult('COMMIT')) as never;
    }
    if (this.beginPending) {
      // Without parameters pg sends the text as a simple query, which may hold several statements:
      // `begin` then goes alone.
      if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
        return this.frame([{ text: config, values }]).then((results) => results[0]) as never;
      }
      this.beginPending = false;
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

  /** Back in the pool: nothing of a transaction is carried over to the next holder. */
  resetTransaction(): void {
    this.beginPending = false;
    this.committed = false;
  }

  /** The name a statement runs under on this connection, or undefined to run it unnamed. */
  private nameFor(text: string, values: unknown[]): string | undefined {
    if (values.length === 0 || !DATA_STATEMENT.test(text)) return undefined;
    const name = nameOf(text);
    if (this.retired.has(name) || (!this.named.has(name) && this.named.size >= MAX_NAMED)) return undefined;
    this.named.add(name);
    return name;
  }

  /**
   * Runs `statements` in order in one round trip (a Frame), with the transaction's pending
   * `begin` ahead of them and, with `commit`, the transaction's commit after them: the caller then
   * runs nothing more in it, and the commit Kysely sends afterwards is answered here. Answers each
   * statement's result; an error fails the whole frame (the statements after it did not run, nor
   * did the commit).
   */
  frame(statements: Statement[], options: { commit?: boolean } = {}): Promise<pg.QueryResult[]> {
    const connection = (this as unknown as { connection: ProtocolConnection }).connection;
    const begin = this.beginPending;
    this.beginPending = false;
    // Only an open transaction is committed here (outside one, each statement commits on its own).
    const commit = options.commit === true && (begin || this.getTransactionStatus() === 'T');
    const named = statements.map((s) => ({ ...s, name: this.nameFor(s.text, s.values) }));
    // Names parsed in this frame: pg moves a name to parsedStatements on ParseComplete only for a
    // query of its own, so the frame does it once the answers are in.
    const fresh = named.filter((s) => s.name && connection.parsedStatements[s.name] === undefined && connection.submittedNamedStatements[s.name] === undefined);
    const run = new Promise<pg.QueryResult[]>((resolve, reject) => {
      for (const s of named) prepareValues(s.values);
      const frame = new Frame(named, (this as unknown as { _types: unknown })._types, begin, commit, (error, results) => {
        if (error) {
          // Whether each new Parse succeeded is not known: those names are not used again here.
          for (const s of fresh) {
            this.retired.add(s.name!);
            delete connection.submittedNamedStatements[s.name!];
          }
          if (isStalePlan(error)) for (const s of named) if (s.name) this.retired.add(s.name);
          reject(error);
          return;
        }
        for (const s of fresh) {
          connection.parsedStatements[s.name!] = s.text;
          delete connection.submittedNamedStatements[s.name!];
        }
        if (commit) this.committed = true;
        resolve(results!);
      });
      super.query(frame as never);
    });
    return run.catch((error: unknown) => {
      if (isReadTimeout(error)) connection.stream.destroy();
      throw error;
    });
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
