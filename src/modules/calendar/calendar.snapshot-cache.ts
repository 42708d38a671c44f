/**
 * Availability snapshots as sent, by what was asked (integration, property reference, window),
 * with the property and the calendar version they were built at. A snapshot is served again only
 * after a statement has read, in one database snapshot, the watermark and the version, and found
 * the same property at the same version: every writer of availability's inputs moves the version
 * in its own transaction (touchCalendar), so a cached payload is exactly what the database holds
 * at that watermark, whichever process wrote. Rates and restrictions also depend on prices, meal
 * plans, rules and settings, which no version covers: they are built on every read.
 *
 * One per runtime (Deps.state.snapshots), bounded by the bytes of the payloads it keeps; the
 * entry used least recently goes first.
 */
export interface CachedSnapshot {
  propertyId: number;
  version: string;
  /** The availability payload (a snapshot's `data.data`) as JSON. */
  json: string;
}

const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export class SnapshotCache {
  private readonly entries = new Map<string, CachedSnapshot>();
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
    if (entry.json.length > this.maxBytes) return;
    this.entries.set(key, entry);
    this.bytes += entry.json.length;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.json.length;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.json.length;
  }

  get size(): number {
    return this.entries.size;
  }
}
