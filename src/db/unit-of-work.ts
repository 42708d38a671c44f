import type { CompiledQuery, Kysely, QueryExecutorProvider, QueryResult, Transaction } from 'kysely';
import type { IdSignal, Signals } from '../signals.js';
import type { TableChanges } from './changes.js';
import type { Engine } from './database.js';
import { sendAhead } from './pipeline.js';
import type { DB } from './schema.js';

/** A statement the unit of work can send: a Kysely query builder or an `sql` template. */
export interface Sendable {
  compile(executorProvider: QueryExecutorProvider): CompiledQuery;
}

/** What a unit of work's writes ask of the process once it has committed. */
class Effects {
  readonly tables = new Set<keyof DB>();
  readonly signals = new Map<IdSignal, Set<number>>();
  /** The signal names among them that other processes hear of too (sent by the commit's NOTIFY). */
  readonly shared = new Set<IdSignal>();
  /** Integrations with new events to send. */
  readonly deliverable = new Set<number>();
  /** Events recorded per kind (for /metrics, signalled as `recorded`). */
  readonly recorded = new Map<string, number>();
}

/**
 * The operations a unit of work adds to its transaction. Writers that need them take a UnitOfWork,
 * so a bare transaction does not compile where effects would otherwise be lost.
 */
export interface UnitOfWorkOps {
  /**
   * Sends a write whose answer nothing waits for: it goes out at once, and the next statement
   * awaited in this transaction, or the commit, comes after it, so a failure is thrown there and
   * rolls everything back. `onAnswer` gets its result when it arrives, before the commit returns.
   */
  send(query: Sendable, onAnswer?: (result: QueryResult<unknown>) => void): void;
  /** Notes a write of `table`: this process's caches of it are stale once the commit is known. */
  touched(...tables: (keyof DB)[]): void;
  /**
   * Tells this process's `signals` listeners of `name` that `id` changed, once the transaction
   * commits (calls on one name gather their ids into one signal). With `otherProcesses`, on
   * PostgreSQL, other processes listening for the name hear it too when the commit notifies them
   * of events to deliver anyway (see the events module's notifyAtCommit).
   */
  signal(name: IdSignal, id: number, options?: { otherProcesses?: boolean }): void;
  /** Wakes delivery for the integration after the commit (it has events to send). */
  wake(integrationId: number): void;
  /** Counts events recorded, per kind (signalled as `recorded` after the commit). */
  recorded(types: ReadonlyMap<string, number>): void;
  /**
   * Runs `step` last inside the transaction, once however often it is asked for (the events
   * module sends its NOTIFY there, so that it goes out with the COMMIT).
   */
  beforeCommit(step: CommitStep): void;
  /** The effects gathered so far (read by the commit steps). */
  readonly effects: Effects;
}

/** A step run just before the commit, with the unit of work's process. */
export type CommitStep = (uow: UnitOfWork, deps: UnitOfWorkDeps) => void;

/** A transaction run as a unit of work (runUnitOfWork). */
export type UnitOfWork = Transaction<DB> & UnitOfWorkOps;

/** What a unit of work needs of its process (a subset of Deps). */
export interface UnitOfWorkDeps {
  db: Kysely<DB>;
  engine: Engine;
  signals: Signals;
  state: { changes: TableChanges };
}

/**
 * Runs `work` in one transaction as a unit of work: every writer that does more than one statement,
 * or whose write others must hear of, runs in one. After the commit the effects run: cache
 * versions move, delivery is woken and the signals are emitted; a rollback runs none of them.
 */
export async function unitOfWork<T>(deps: UnitOfWorkDeps, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const effects = new Effects();
  const steps = new Set<CommitStep>();
  const handed: Promise<unknown>[] = [];
  const result = await deps.db.transaction().execute(async (trx) => {
    const uow: UnitOfWork = Object.assign(trx, operations(trx, effects, steps, handed));
    const out = await work(uow);
    for (const step of steps) step(uow, deps);
    // Kysely hands the COMMIT to the connection directly, not behind the statements it queues:
    // every statement sent must have reached the connection first (no round trip is waited for).
    await Promise.all(handed);
    return out;
  });
  runEffects(deps, effects);
  return result;
}

function operations(trx: Transaction<DB>, effects: Effects, steps: Set<CommitStep>, handed: Promise<unknown>[]): UnitOfWorkOps {
  return {
    effects,
    beforeCommit(step) {
      steps.add(step);
    },
    send(query, onAnswer) {
      // Kysely hands the statement to the connection, which sends it and answers at once (its
      // failure comes with a later statement's answer or the commit's).
      const sent = trx.executeQuery(sendAhead(query.compile(trx), onAnswer));
      sent.catch(() => {});
      handed.push(sent);
    },
    touched(...tables) {
      for (const table of tables) effects.tables.add(table);
    },
    signal(name, id, options = {}) {
      let ids = effects.signals.get(name);
      if (!ids) effects.signals.set(name, (ids = new Set()));
      ids.add(id);
      if (options.otherProcesses) effects.shared.add(name);
    },
    wake(integrationId) {
      effects.deliverable.add(integrationId);
    },
    recorded(types) {
      for (const [type, n] of types) effects.recorded.set(type, (effects.recorded.get(type) ?? 0) + n);
    },
  };
}

function runEffects(deps: UnitOfWorkDeps, effects: Effects): void {
  if (effects.tables.size > 0) deps.state.changes.wrote(effects.tables);
  if (effects.recorded.size > 0) deps.signals.emit('recorded', effects.recorded);
  if (effects.deliverable.size > 0) deps.signals.emit('events', [...effects.deliverable]);
  for (const [name, ids] of effects.signals) deps.signals.emit(name, [...ids]);
}
