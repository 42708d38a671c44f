import type { DateWindow } from '../../lib/time.js';
import type { UnitHolds } from './calendar.sql.js';

/**
 * Availability snapshots as sent, by what was asked (integration, property reference, window),
 * with the property and its inputs version (properties.lock.ts) they were built at. A snapshot is
 * served again only after a statement has read, in one database snapshot, the watermark and the
 * version, and found the same property at the same version: every writer of availability's inputs
 * moves the version in its own transaction (touchInputsVersion), so a cached payload is exactly
 * what the database holds at that watermark, whichever process wrote. Rates and restrictions also
 * depend on prices, meal plans, rules and settings, which no version covers: they are built on
 * every read.
 *
 * One per runtime (Deps.state.snapshots), bounded by the bytes of what it keeps; the entry used
 * least recently goes first.
 */
export interface CachedSnapshot {
  /** What was asked, so that the entry can be rebuilt without a request (calendar.snapshot-refresh.ts). */
  request: { integrationId: number; propertyRef: string; window: DateWindow };
  propertyId: number;
  version: string;
  /** The last noted write of the property's calendar when the entry was read (SnapshotCache.noteTouch), -1 if one came meanwhile. */
  touch: number;
  /** The availability payload (a snapshot's `data.data`) as JSON. */
  json: string;
  /** The holds it was built from, per unit with the unit's hold version: a rebuild reads only the moved ones. */
  holds: UnitHolds | null;
  /** Read since it was built: a read built it or was served it (a rebuild after a write has not been read yet). */
  read: boolean;
}

/** A rebuild of one entry under way; `again` asks for one more once it ends (a write committed meanwhile). */
export interface Rebuild {
  done: Promise<void>;
  again: boolean;
}

/** What an entry keeps, about: the payload's characters and 8 bytes per unit and night held. */
function sizeOf(entry: CachedSnapshot): number {
  let size = entry.json.length;
  if (entry.holds) for (const { nights } of entry.holds.values()) size += 32 + 8 * (nights?.length ?? 0);
  return size;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const MAX_TOUCHED_PROPERTIES = 100_000;

export class SnapshotCache {
  private readonly entries = new Map<string, CachedSnapshot>();
  /** Each entry's size as counted when it was set (its holds map may be shared with a later entry). */
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  /** The keys of each property's entries. */
  private readonly byProperty = new Map<number, Set<string>>();
  private readonly rebuilds = new Map<string, Rebuild>();
  /** Told when an entry leaves (replaced, dropped or evicted) without having been read: a rebuild after a write that nobody used. */
  onUnreadDropped: (() => void) | null = null;

  /**
   * The calendar writes this process knows of, per property (its own once committed, others' as
   * notified): a hint, never a proof. A read whose entry is older than the last such write knows
   * the version moved, and goes straight to the rebuild (which reads the watermark and version
   * itself) without first asking the database; any other read still asks (writes nobody told of).
   * A stale mark or a lost mark only changes which of two correct paths a read takes. Measured
   * on the bench property (92 nights, 50 units), the first availability read after a host edit
   * through the same process: see docs/performance.md.
   */
  private readonly touches = new Map<number, number>();
  private touchCount = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  /** A committed move of the property's inputs version (INPUTS_SIGNAL, wired by createRuntime). */
  noteTouch(propertyId: number): void {
    if (this.touches.size >= MAX_TOUCHED_PROPERTIES) this.touches.clear();
    this.touches.set(propertyId, ++this.touchCount);
  }

  /** A mark to take before a read, for touchSince. */
  touchMark(): number {
    return this.touchCount;
  }

  /** The property's last touch, or -1 when it was touched after `mark` (while the read ran). */
  touchSince(propertyId: number, mark: number): number {
    const touch = this.touches.get(propertyId) ?? 0;
    return touch > mark ? -1 : touch;
  }

  /** Whether a write of the property's calendar was noted after the entry was read. */
  touchedSince(entry: CachedSnapshot): boolean {
    return (this.touches.get(entry.propertyId) ?? 0) !== entry.touch;
  }

  static key(integrationId: number, propertyRef: string, from: string, to: string): string {
    return `${integrationId}\u0000${propertyRef}\u0000${from}\u0000${to}`;
  }

  get(key: string): CachedSnapshot | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Map order is the eviction order: a hit moves to the back.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedSnapshot): void {
    this.delete(key);
    const size = sizeOf(entry);
    if (size > this.maxBytes) return;
    this.entries.set(key, entry);
    this.sizes.set(key, size);
    this.bytes += size;
    let keys = this.byProperty.get(entry.propertyId);
    if (!keys) this.byProperty.set(entry.propertyId, (keys = new Set()));
    keys.add(key);
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (!entry.read) this.onUnreadDropped?.();
    this.entries.delete(key);
    this.bytes -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
    const keys = this.byProperty.get(entry.propertyId);
    keys?.delete(key);
    if (keys?.size === 0) this.byProperty.delete(entry.propertyId);
  }

  /** Up to `max` of the property's entries that were read since they were built, with their keys. */
  readEntriesOf(propertyId: number, max: number): Array<[string, CachedSnapshot]> {
    const found: Array<[string, CachedSnapshot]> = [];
    for (const key of this.byProperty.get(propertyId) ?? []) {
      const entry = this.entries.get(key);
      if (entry?.read) found.push([key, entry]);
      if (found.length >= max) break;
    }
    return found;
  }

  /** The rebuild of `key` under way, if any. */
  rebuilding(key: string): Rebuild | undefined {
    return this.rebuilds.get(key);
  }

  /**
   * Runs `work` as the rebuild of `key` (a call made meanwhile asks for one more run instead of a
   * second rebuild beside it). `work` handles its own failures; `done` never rejects.
   */
  rebuild(key: string, work: () => Promise<void>): Rebuild {
    const running = this.rebuilds.get(key);
    if (running) {
      running.again = true;
      return running;
    }
    const rebuild: Rebuild = { done: Promise.resolve(), again: false };
    this.rebuilds.set(key, rebuild);
    rebuild.done = (async () => {
      try {
        do {
          rebuild.again = false;
          await work();
        } while (rebuild.again);
      } catch {
        // work's own failure, already handled by it
      } finally {
        this.rebuilds.delete(key);
      }
    })();
    return rebuild;
  }

  get size(): number {
    return this.entries.size;
  }
}
