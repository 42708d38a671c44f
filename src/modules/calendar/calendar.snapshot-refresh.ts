import type { Deps } from '../../deps.js';
import { INPUTS_SIGNAL } from '../properties/properties.lock.js';
import type { CachedSnapshot } from './calendar.snapshot-cache.js';
import { readSnapshot } from './calendar.snapshots.js';

/**
 * After a write of a property's availability inputs commits (INPUTS_SIGNAL: sent by unitOfWork for
 * touchInputsVersionQuery in the writing process, and heard by the others through PostgreSQL when the
 * commit notifies them of events anyway, see listenForSignals), the availability snapshots this
 * process keeps of that property and that were read since they were built are rebuilt at once,
 * instead of by the next read: a partner that reads again after the change (on its
 * availability.changed, or a re-sync) finds the new snapshot kept, or joins its rebuild under way.
 * An entry nobody read since its last build is left to the next read, so rebuilds after writes are
 * at most one per read (those nobody used are counted, as `rebuild_unread`): a property written
 * often and read rarely costs nothing more. A write no notification tells of (no integration with a
 * webhook gets its events, the LISTEN connection is down, another database client) is still found
 * by a read's version check and rebuilt by that read.
 *
 * On PostgreSQL only (createRuntime): there the rebuild's statement runs on a pooled connection of
 * its own, beside the read that joins it. PGlite runs statements one at a time on the service's
 * own thread, where a rebuild nobody reads would hold up every request behind it, for a gain of
 * 0.1–0.4 ms against 0.6–1.2 ms on PostgreSQL. Rebuilding after another process's write took the
 * first read after it from about 5.8 to 4.7 ms (p50).
 */
const MAX_PER_WRITE = 8;
const subscribed = new WeakSet<Deps['signals']>();

export function keepSnapshotsFresh(deps: Deps): void {
  if (subscribed.has(deps.signals)) return;
  subscribed.add(deps.signals);
  deps.signals.on(INPUTS_SIGNAL, (propertyIds: number[]) => {
    // After the writer's answer is on its way: the rebuild must not delay it.
    setImmediate(() => {
      const cache = deps.state.snapshots;
      for (const propertyId of propertyIds) {
        for (const [key, entry] of cache.readEntriesOf(propertyId, MAX_PER_WRITE)) cache.rebuild(key, () => rebuildKept(deps, key, entry));
      }
    });
  });
}

async function rebuildKept(deps: Deps, key: string, entry: CachedSnapshot): Promise<void> {
  const { integrationId, propertyRef, window } = entry.request;
  try {
    await readSnapshot(deps, integrationId, propertyRef, 'availability', window, { refresh: true });
  } catch (error) {
    // The property is gone from the integration, the window is past, the database is away: the
    // next read finds no entry and answers for itself.
    deps.state.snapshots.delete(key);
    deps.metrics?.availabilitySnapshot('rebuild_failed');
    deps.log.debug({ err: error, property_id: entry.propertyId }, 'availability snapshot not rebuilt after a write');
  }
}
