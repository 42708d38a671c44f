import type { UnitHolds } from './calendar.sql.js';

/**
 * Availability snapshots as sent, by what was asked (integration, property reference, window),
 * with the property and the calendar version they were built at. A snapshot is served again only
 * after a statement has read, in one database snapshot, the watermark and the version, and found
 * the same property at the same version: every writer of availability's inputs moves the version
 * in its own transaction (touchCalendar), so a cached payload is exactly what the database holds
 * at that watermark, whichever process wrote. Rates and restrictions also depend on prices, meal
 * plans, rules and settings, which no version covers: they are built on every read.
 *
 * One per runtime (Deps.state.snapshots), bounded by the bytes of what it keeps; the entry used
 * least recently goes first.
 */
export interface CachedSnapshot {
  propertyId: number;
  version: string;
  /** This process's last write to the property's calendar when the entry was read (noteLocalCalendarTouch), -1 if one ran meanwhile. */
  touch: number;
  /** The availability payload (a snapshot's `data.data`) as JSON. */
  json: string;
  /** The holds it was built from, per unit with the unit's hold version: a rebuild reads only the moved ones. */
  holds: UnitHolds | null;
}

/** What an entry keeps, about: the payload's characters and 8 bytes per unit and night held. */
function sizeOf(entry: CachedSnapshot): number {
  let size = entry.json.length;
  if (entry.holds) for (const { nights } of entry.holds.values()) size += 32 + 8 * (nights?.length ?? 0);
  return size;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export class SnapshotCache {
  private readonly entries = new Map<string, CachedSnapshot>();
  /** Each entry's size as counted when it was set (its holds map may be shared with a later entry). */
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

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
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    if (!this.entries.delete(key)) return;
    this.bytes -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * The calendar writes this process has made, per property: a hint, never a proof. A read whose
 * entry is older than this process's last write to the property knows the version moved, and goes
 * straight to the rebuild (which reads the watermark and version itself) without first asking the
 * database; any other read still asks (writes of other processes). A stale mark, a lost mark or a
 * write rolled back only change which of two correct paths a read takes. Measured on the bench
 * property (92 nights, 50 units), the first availability read after a host edit through the same
 * process: see docs/performance.md, eighth round.
 */
const touches = new Map<number, number>();
let touchCount = 0;
const MAX_TOUCHED_PROPERTIES = 100_000;

/** Called as a writer builds its calendar version bump (touchCalendarQuery), before it commits. */
export function noteLocalCalendarTouch(propertyId: number): void {
  if (touches.size >= MAX_TOUCHED_PROPERTIES) touches.clear();
  touches.set(propertyId, ++touchCount);
}

/** A mark to take before a read, for localTouchSince. */
export function localTouchMark(): number {
  return touchCount;
}

/** The property's last local touch, or -1 when it was touched after `mark` (while the read ran). */
export function localTouchSince(propertyId: number, mark: number): number {
  const touch = touches.get(propertyId) ?? 0;
  return touch > mark ? -1 : touch;
}

/** Whether this process wrote the property's calendar after the entry was read. */
export function touchedLocallySince(entry: CachedSnapshot): boolean {
  return (touches.get(entry.propertyId) ?? 0) !== entry.touch;
}
