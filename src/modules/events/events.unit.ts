import { randomBytes } from 'node:crypto';
import type { Kysely, QueryResult, RawBuilder, Transaction } from 'kysely';
import { pipeline } from '../../db/pipeline.js';
import type { DB } from '../../db/schema.js';
import { listen, type Listener, type ListenerState } from '../../db/listener.js';
import type { Deps } from '../../deps.js';
import { currentSchema, notifyEvents, notifyEventsQuery } from './events.sql.js';

/**
 * The unit of work of every event producer: a transaction that records events and, once it has
 * committed, wakes delivery for what it recorded. Producers write through `withEvents`; appendEvents
 * only accepts its transaction (an EventTransaction), so no write can record events and forget
 * to wake delivery.
 *
 * Waking is twofold. This process's worker is told through `deps.signals` (`events`, integration
 * ids) right after the commit. Other processes sharing a PostgreSQL database are told by a
 * `pg_notify` issued inside the transaction, which PostgreSQL delivers exactly when (and only if)
 * it commits; each process with a delivery worker LISTENs (listenForEvents). The worker's periodic
 * scan remains as a slow safety net.
 */

const APPENDED = Symbol('events appended');

interface Appended {
  /** Integrations with new events to send. */
  deliverable: Set<number>;
  /** Events recorded per kind (for /metrics, signalled as `recorded`). */
  types: Map<string, number>;
  /** Event writes left for the commit (atCommit), in order, each with what to do with its result. */
  atCommit: Array<{ query: RawBuilder<unknown>; settle(result: QueryResult<unknown>): void; integrationId: number | null }>;
  /** Signals for this process once the transaction commits (signalAtCommit): the ids gathered per name. */
  signals: Map<string, Set<number>>;
}

/** A transaction opened by withEvents: appendEvents records into it what delivery must be woken for. */
export type EventTransaction = Transaction<DB> & { readonly [APPENDED]: Appended };

/** Called by appendEvents: what it recorded, announced once the transaction commits. */
export function noteAppended(trx: EventTransaction, deliverable: Iterable<number>, types: ReadonlyMap<string, number>): void {
  const appended = trx[APPENDED];
  for (const id of deliverable) appended.deliverable.add(id);
  for (const [type, n] of types) appended.types.set(type, (appended.types.get(type) ?? 0) + n);
}

/**
 * Leaves a statement for the commit: withEvents sends it after `work` returns, with the
 * notification and the commit, in one round trip on PostgreSQL, and `settle` gets its result
 * before withEvents returns. For the last writes of a unit (nothing in the transaction reads
 * what they write); `integrationId` is an integration that may get an event to send from it.
 */
export function atCommit(trx: EventTransaction, query: RawBuilder<unknown>, settle: (result: QueryResult<unknown>) => void, integrationId: number | null): void {
  trx[APPENDED].atCommit.push({ query, settle, integrationId });
}

/**
 * Tells this process's `deps.signals` listeners of `name` that `id` changed, once (and only if) the
 * transaction commits; calls on the same name gather their ids into one signal. Outside an event
 * transaction it does nothing: only withEvents knows when its transaction has committed.
 */
export function signalAtCommit(trx: Kysely<DB>, name: string, id: number): void {
  const appended = (trx as unknown as Partial<EventTransaction>)[APPENDED];
  if (!appended) return;
  let ids = appended.signals.get(name);
  if (!ids) appended.signals.set(name, (ids = new Set()));
  ids.add(id);
}

/** Identifies this process in its own notifications, so that its listener skips what it already knows. */
const PROCESS_TAG = randomBytes(6).toString('hex');

/**
 * Runs `work` in one transaction as an event producer. After the commit, delivery is woken for every
 * integration that got an event to send; a rollback wakes nothing.
 */
export async function withEvents<T>(deps: Pick<Deps, 'db' | 'signals' | 'engine'>, work: (trx: EventTransaction) => Promise<T>): Promise<T> {
  const appended: Appended = { deliverable: new Set(), types: new Map(), atCommit: [], signals: new Map() };
  const { deliverable } = appended;
  const result = await deps.db.transaction().execute(async (trx) => {
    Object.defineProperty(trx, APPENDED, { value: appended, enumerable: false });
    const out = await work(trx as EventTransaction);
    // Sent at commit, to every listening process (this one's listener skips its own tag). The
    // writes left for the commit are counted before their results are known: a notification
    // too many (an integration disabled meanwhile) only makes a listener look and find nothing.
    const notified = new Set(deliverable);
    for (const write of appended.atCommit) if (write.integrationId !== null) notified.add(write.integrationId);
    const notify = notified.size > 0 && deps.engine === 'postgres' ? [notifyEventsQuery([...notified], PROCESS_TAG)] : [];
    if (appended.atCommit.length > 0) {
      // One round trip for the last writes, the notification and the commit (booking creates:
      // see docs/performance.md, seventh round).
      const writes = appended.atCommit.splice(0);
      const results = await pipeline(trx, [...writes.map((w) => w.query), ...notify], { commit: true });
      writes.forEach((write, i) => write.settle(results[i]));
    } else if (notify.length > 0) await notify[0].execute(trx);
    return out;
  });
  if (appended.types.size > 0) deps.signals.emit('recorded', appended.types);
  if (deliverable.size > 0) deps.signals.emit('events', [...deliverable]);
  for (const [name, ids] of appended.signals) deps.signals.emit(name, [...ids]);
  return result;
}

/**
 * Wakes delivery for integrations whose sending changed outside an event write (a webhook URL
 * set, a resume), in this process and, on PostgreSQL, in every other.
 */
export async function wakeDelivery(deps: Pick<Deps, 'db' | 'signals' | 'engine'>, integrationIds: number[]): Promise<void> {
  if (integrationIds.length === 0) return;
  deps.signals.emit('events', integrationIds);
  if (deps.engine === 'postgres') await notifyEvents(deps.db, integrationIds, PROCESS_TAG);
}

/** The notification channel of a schema: processes on different schemas of one database do not hear each other. */
export function eventsChannel(schema: string): string {
  return `doorloom_events_${schema}`.slice(0, 63);
}

/** Decodes a notification payload (`<integration id>:<process tag>`); null for this process's own or a malformed one. */
export function notifiedIntegration(payload: string): number | null {
  const [id, tag] = payload.split(':');
  if (tag === PROCESS_TAG) return null;
  const n = Number(id);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The channel this database connection's producers notify on. */
export async function eventsChannelOf(deps: Pick<Deps, 'db'>): Promise<string> {
  return eventsChannel(await currentSchema(deps.db));
}

/**
 * PostgreSQL: hears other processes' event notifications on a connection of its own (see
 * src/db/listener.ts, which reconnects) and hands the integration ids to `wake`. `onState` tells
 * whether notifications are arriving (`up`) or may be lost (`down`): the caller scans often while
 * they may be lost, and scans once on each `up` for whatever was sent meanwhile.
 */
export function listenForEvents(
  deps: Pick<Deps, 'db' | 'log'>,
  databaseUrl: string,
  wake: (integrationIds: number[]) => void,
  onState: (state: ListenerState) => void,
): { stop(): Promise<void> } {
  let listener: Listener | null = null;
  let stopped = false;
  const started = eventsChannelOf(deps).then((channel) => {
    if (stopped) return;
    listener = listen({
      url: databaseUrl,
      channels: channel,
      applicationName: 'doorloom-events',
      log: deps.log,
      onMessage(_channel, payload) {
        const id = notifiedIntegration(payload);
        if (id !== null) wake([id]);
      },
      onState,
    });
  });
  started.catch((error) => deps.log.warn({ err: error }, 'events listener did not start; delivery relies on the scan'));
  return {
    async stop() {
      stopped = true;
      await started.catch(() => {});
      await listener?.stop();
    },
  };
}
