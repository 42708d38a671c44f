import { randomBytes } from 'node:crypto';
import type { CommitStep, UnitOfWork } from '../../db/unit-of-work.js';
import type { ListenerState, Subscription } from '../../db/listener.js';
import type { Deps } from '../../deps.js';
import type { IdSignal } from '../../signals.js';
import { currentSchema, notifyEvents, notifyEventsQuery, notifySignalQuery } from './events.sql.js';

/**
 * How event producers wake delivery, on top of the unit of work (src/db/unit-of-work.ts): appendEvents
 * notes the integrations to wake (UnitOfWork.wake) and to notify (notifyAtCommit).
 *
 * Waking is twofold. This process's worker is told through `deps.signals` (`events`, integration
 * ids) right after the commit. Other processes sharing a PostgreSQL database are told by a
 * `pg_notify` issued inside the transaction, which PostgreSQL delivers exactly when (and only if)
 * it commits; each process with a delivery worker LISTENs (listenForEvents). The worker's periodic
 * scan remains as a slow safety net.
 */

/**
 * Identifies a process (its `deps.signals`) in its own notifications, so that its listener skips
 * what it already knows. Per emitter rather than per module: two runtimes in one Node process
 * (the tests' "other process") hear each other as two processes would.
 */
const tags = new WeakMap<object, string>();
function tagOf(signals: object): string {
  let tag = tags.get(signals);
  if (!tag) tags.set(signals, (tag = randomBytes(6).toString('hex')));
  return tag;
}

/** Per unit of work, the integrations other processes are to be told of at its commit. */
const toNotify = new WeakMap<UnitOfWork, Set<number>>();

/**
 * Tells other processes, on PostgreSQL, that the integration has events to send once the unit of
 * work commits. Called as its events are sent, before their answer: one disabled meanwhile is
 * notified for nothing (this process's own wake, UnitOfWork.wake, waits for the answer).
 */
export function notifyAtCommit(uow: UnitOfWork, integrationId: number): void {
  let ids = toNotify.get(uow);
  if (!ids) {
    toNotify.set(uow, (ids = new Set()));
    uow.beforeCommit(sendNotifications);
  }
  ids.add(integrationId);
}

/**
 * The unit of work's last step when it recorded events: the notifications, inside the transaction
 * so that PostgreSQL delivers them exactly when it commits (this process's listener skips its own
 * tag), sent ahead so that they go out with the COMMIT.
 */
const sendNotifications: CommitStep = (uow, deps) => {
  const ids = toNotify.get(uow);
  if (deps.engine !== 'postgres' || !ids || ids.size === 0) return;
  uow.send(notifyEventsQuery([...ids], tagOf(deps.signals)));
  // Shared signals ride only on a commit that notifies anyway: notifying transactions commit
  // one at a time (one database-wide lock), 20 clients measured 3,100–3,500 one-row commits a
  // second without a pg_notify and 2,100–2,500 with one.
  const { shared, signals } = uow.effects;
  for (const name of shared) uow.send(notifySignalQuery(name, [...signals.get(name)!], tagOf(deps.signals)));
};

/**
 * Wakes delivery for integrations whose sending changed outside an event write (a webhook URL
 * set, a resume), in this process and, on PostgreSQL, in every other.
 */
export async function wakeDelivery(deps: Pick<Deps, 'db' | 'signals' | 'engine'>, integrationIds: number[]): Promise<void> {
  if (integrationIds.length === 0) return;
  deps.signals.emit('events', integrationIds);
  if (deps.engine === 'postgres') await notifyEvents(deps.db, integrationIds, tagOf(deps.signals));
}

/** The notification channel of a schema: processes on different schemas of one database do not hear each other. */
export function eventsChannel(schema: string): string {
  return signalChannel('events', schema);
}

/** Decodes a notification payload (`<id>:<process tag>`); null for the process's own (`signals`) or a malformed one. */
export function notifiedId(payload: string, signals: object): number | null {
  const [id, tag] = payload.split(':');
  if (tag === tagOf(signals)) return null;
  const n = Number(id);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The channel of a signal shared with other processes (UnitOfWork.signal's `otherProcesses`), per schema as eventsChannel. */
export function signalChannel(name: string, schema: string): string {
  return `doorloom_${name}_${schema}`.slice(0, 63);
}

/**
 * PostgreSQL: what other processes signal with `otherProcesses` under these names, emitted on this
 * process's `deps.signals` as if its own commit had sent it; for a LISTEN connection the process
 * already keeps (src/db/listener.ts). A notification lost while the connection is down is not
 * made up for: these signals may only start work that a later read would otherwise do itself.
 */
export async function listenForSignals(deps: Pick<Deps, 'db' | 'signals'>, names: IdSignal[]): Promise<Subscription> {
  const schema = await currentSchema(deps.db);
  const nameOf = new Map(names.map((name) => [signalChannel(name, schema), name]));
  return {
    channels: [...nameOf.keys()],
    onMessage(channel, payload) {
      const name = nameOf.get(channel);
      const id = notifiedId(payload, deps.signals);
      if (name && id !== null) deps.signals.emit(name, [id]);
    },
  };
}

/** The channel this database connection's producers notify on. */
export async function eventsChannelOf(deps: Pick<Deps, 'db'>): Promise<string> {
  return eventsChannel(await currentSchema(deps.db));
}

/**
 * PostgreSQL: the subscription to other processes' event notifications, for the process's one
 * LISTEN connection (see src/db/listener.ts, which reconnects); `wake` gets the integration ids.
 * `onState` tells whether notifications are arriving (`up`) or may be lost (`down`).
 */
export async function listenForEvents(
  deps: Pick<Deps, 'db' | 'signals'>,
  wake: (integrationIds: number[]) => void,
  onState: (state: ListenerState) => void,
): Promise<Subscription> {
  return {
    channels: [await eventsChannelOf(deps)],
    onMessage(_channel, payload) {
      const id = notifiedId(payload, deps.signals);
      if (id !== null) wake([id]);
    },
    onState,
  };
}
