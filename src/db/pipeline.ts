import type { CompiledQuery, QueryResult } from 'kysely';

/**
 * Statements sent ahead: a unit of work's write whose answer nobody waits for (UnitOfWork.send).
 * The connection that gets one sends it at once and answers Kysely with no rows; the statement's
 * own answer goes to its callback when it arrives. The next statement awaited on that connection,
 * or the commit, comes after it on the wire, so it waits for the answers still due; when one of
 * them was an error, that awaited statement (or the commit) throws it, and the transaction rolls
 * back. Both drivers (pg-dialect.ts, pglite-dialect.ts) keep these rules.
 */
const ahead = new WeakMap<CompiledQuery, (result: QueryResult<unknown>) => void>();

/** Marks `query` to be sent ahead; `onAnswer` gets its result when it arrives (before the commit returns). */
export function sendAhead(query: CompiledQuery, onAnswer: (result: QueryResult<unknown>) => void = () => {}): CompiledQuery {
  ahead.set(query, onAnswer);
  return query;
}

/** The answer callback of a query sent ahead, or undefined for an ordinary one. */
export function aheadOf(query: CompiledQuery): ((result: QueryResult<unknown>) => void) | undefined {
  return ahead.get(query);
}

/** The empty answer Kysely gets for a statement sent ahead. */
export const SENT: QueryResult<never> = Object.freeze({ rows: [] });

/** What a transaction's connection keeps of the statements it sent ahead. */
export class AheadState {
  /** Answers still due (each settles; failures are kept in `failed`). */
  due: Promise<void>[] = [];
  /** The first error among them: the transaction is aborted from there on. */
  failed: { error: unknown } | null = null;

  /** Throws the first failure, if any (read afresh: answers arrive while the caller awaits). */
  check(): void {
    if (this.failed) throw this.failed.error;
  }

  reset(): void {
    this.due = [];
    this.failed = null;
  }

  /** Tracks a statement's answer; `answer` is its promise, already on its way. */
  track(answer: Promise<QueryResult<unknown>>, onAnswer: (result: QueryResult<unknown>) => void, onError?: (error: unknown) => void): void {
    this.due.push(
      answer.then(onAnswer, (error: unknown) => {
        onError?.(error);
        this.failed ??= { error };
      }),
    );
  }

  /** Waits for every answer still due. */
  async settle(): Promise<void> {
    while (this.due.length > 0) {
      const due = this.due;
      this.due = [];
      await Promise.all(due);
    }
  }
}
