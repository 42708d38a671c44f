import type { Booking, EventEnvelope, PropertyBlock, Unit, WindowedKind } from './api.js';
import type { components } from '../generated/api.js';
import { eachDate } from './dates.js';

/**
 * The mirror: what the partner knows of the service, as a key-value map, and the rules that move
 * it forward. Every piece of state remembers the sequence (or revision) that last set it, and a
 * newer piece never yields to an older one, so events, snapshots and listings can be applied in
 * any order, more than once, and the result is the same.
 *
 * Keys:
 * - `meta`                          applied_through and the engine's cursors
 * - `p:<id>`                        a property: its block (property scope) and units (inventory scope)
 * - `h:<kind>:<id>`                 the property-wide part of a windowed kind (rates: currency, GST
 *                                   flags, meal plans; restrictions: rules)
 * - `n:<kind>:<id>:<YYYY-MM>`       one month of nights of a windowed kind, each night with the
 *                                   sequence that last set it (the per-night rule)
 * - `b:<id>`                        a booking, by revision
 */

export interface Meta {
  /** Highest sequence such that every event at or below it is applied (or included by a snapshot). */
  applied_through: number;
  /** Sequences above applied_through + 1 already applied (seen out of order). */
  above: number[];
  /** created_at of the newest event applied. */
  last_event_at: string | null;
  /** Highest booking updated_at processed (the polling cursor). */
  bookings_since: string | null;
  /** The cold start (or the rebuild after CURSOR_EXPIRED) finished. */
  backfilled: boolean;
  /** POST /sync is refused until this instant (epoch ms), from its last 429. */
  sync_not_before: number | null;
}

export const EMPTY_META: Meta = { applied_through: 0, above: [], last_event_at: null, bookings_since: null, backfilled: false, sync_not_before: null };

/** A Property block without its units (kept per unit beside it). */
export type BlockFields = Omit<components['schemas']['PropertyBlock'], 'units'>;

export interface PropertyRecord {
  id: number;
  /** Sequence that last set `block` (property.changed, GET /properties); 0 = never. */
  seq: number;
  block: BlockFields | null;
  /** Sequence that last set `units` (inventory.changed, property.changed, GET /properties). */
  units_seq: number;
  /** Active units in the service's order (what the Property block shows). */
  units: Unit[];
  /** Every unit's alias known, active or not (bookings name inactive units too). */
  aliases: Record<string, string | null>;
}

export interface HeaderRecord {
  seq: number;
  data: Record<string, unknown>;
}

export interface NightEntry {
  /** The sequence (event) or watermark (snapshot) that set this night. */
  s: number;
  /** The night's row of the payload's `dates`. */
  r: Record<string, unknown>;
  /** Availability: the units unavailable that night. */
  u?: number[];
}
export type MonthBucket = Record<string, NightEntry>;

export interface BookingRecord {
  booking: Booking;
}

/** What changed, for the application's handlers. */
export interface Change {
  kind: WindowedKind | 'property' | 'inventory' | 'booking' | 'removed';
  propertyId: number | null;
  /** Windowed kinds: the nights whose content changed, sorted. */
  nights?: string[];
  bookingId?: number;
  /** The sequence (or snapshot watermark) that made the change, when there is one. */
  sequence?: number;
}

const HEADER_FIELDS: Record<WindowedKind, string[]> = {
  availability: [],
  rates: ['currency', 'gst_applicable', 'price_includes_gst', 'meal_plans'],
  restrictions: ['rules'],
};

const BLOCK_KEYS = ['doorloom_id', 'external_id', 'coverage', 'name', 'property_type', 'status', 'is_master', 'master_property_id'] as const;

export const metaKey = 'meta';
export const propertyKey = (id: number) => `p:${id}`;
export const headerKey = (kind: WindowedKind, id: number) => `h:${kind}:${id}`;
export const monthKey = (kind: WindowedKind, id: number, month: string) => `n:${kind}:${id}:${month}`;
export const bookingKey = (id: number) => `b:${id}`;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function unitOf(raw: Record<string, unknown>): Unit {
  return {
    inventory_id: raw.inventory_id as number,
    external_unit_id: (raw.external_unit_id ?? null) as string | null,
    name: raw.name as string,
    code: (raw.code ?? null) as string | null,
    is_active: raw.is_active as boolean,
    is_default: raw.is_default as boolean,
    max_occupancy: (raw.max_occupancy ?? null) as number | null,
    deleted: false,
  };
}

/**
 * One step of changes over the committed map: reads see the step's own writes; `batch()` is what
 * to commit, `changes` what to tell the application afterwards.
 */
export class Step {
  readonly staged = new Map<string, unknown>();
  readonly changes: Change[] = [];

  constructor(private readonly committed: Map<string, unknown>) {}

  get<T>(key: string): T | undefined {
    return (this.staged.has(key) ? this.staged.get(key) : this.committed.get(key)) as T | undefined;
  }

  set(key: string, value: unknown): void {
    this.staged.set(key, value);
  }

  delete(key: string): void {
    this.staged.set(key, null);
  }

  get meta(): Meta {
    return this.get<Meta>(metaKey) ?? EMPTY_META;
  }

  setMeta(patch: Partial<Meta>): void {
    this.set(metaKey, { ...this.meta, ...patch });
  }

  batch(): Array<[string, unknown]> {
    return [...this.staged];
  }

  // ---------------------------------------------------------------------------------------------
  // Applied sequences

  /** True when the sequence is at or below applied_through or was applied out of order. */
  isApplied(sequence: number): boolean {
    const meta = this.meta;
    return sequence <= meta.applied_through || meta.above.includes(sequence);
  }

  /** Records a sequence as applied and moves applied_through over every run now complete. */
  markApplied(sequence: number, createdAt?: string): void {
    const meta = this.meta;
    let through = meta.applied_through;
    const above = new Set(meta.above);
    if (sequence > through) above.add(sequence);
    while (above.has(through + 1)) above.delete(++through);
    const last = createdAt && (!meta.last_event_at || createdAt > meta.last_event_at) ? createdAt : meta.last_event_at;
    this.setMeta({ applied_through: through, above: [...above].filter((s) => s > through).sort((a, b) => a - b), last_event_at: last });
  }

  /** Everything at or below `watermark` is included (a backfill read after it). */
  markIncludedThrough(watermark: number): void {
    const meta = this.meta;
    if (watermark <= meta.applied_through) return;
    const above = new Set(meta.above.filter((s) => s > watermark));
    let through = watermark;
    while (above.has(through + 1)) above.delete(++through);
    this.setMeta({ applied_through: through, above: [...above].sort((a, b) => a - b) });
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  /** Applies one recorded event's state by the sequence rules. */
  applyEvent(event: EventEnvelope): void {
    const seq = event.sequence;
    if (typeof seq !== 'number') return;
    const propertyId = event.property?.doorloom_id ?? null;
    // The payload's shape depends on the type.
    const data = event.data as { units?: Array<Record<string, unknown>>; property?: PropertyBlock; booking?: Booking } | null | undefined;
    switch (event.type) {
      case 'availability.changed':
      case 'rates.changed':
      case 'restrictions.changed':
        if (propertyId !== null)
          this.applyWindowed(event.type.slice(0, -'.changed'.length) as WindowedKind, propertyId, seq, event.data as Record<string, unknown>);
        break;
      case 'inventory.changed':
        if (propertyId !== null) this.applyUnits(propertyId, seq, data?.units ?? [], true);
        break;
      case 'property.changed':
        if (propertyId !== null && data?.property) this.applyBlock(data.property, seq);
        break;
      case 'booking.changed':
        if (data?.booking) this.applyBooking(data.booking, seq);
        break;
      default:
        // kinds this engine does not know yet are recorded as applied and otherwise passed over
        break;
    }
  }

  /**
   * A windowed payload whose nights carry `seq`: each night only if newer. `read` marks a snapshot:
   * read after its watermark, it is at least as new as the event of that very sequence, so it also
   * replaces a night set by that sequence (an event never replaces its own sequence's state).
   */
  applyWindowed(kind: WindowedKind, propertyId: number, seq: number, data: Record<string, unknown>, read = false): void {
    const fields = HEADER_FIELDS[kind];
    if (fields.length > 0) {
      const key = headerKey(kind, propertyId);
      const header = this.get<HeaderRecord>(key);
      if (!header || seq > header.seq || (read && seq === header.seq)) {
        const next: Record<string, unknown> = {};
        for (const f of fields) next[f] = data[f];
        this.set(key, { seq, data: next });
        if (header && !same(header.data, next)) this.changes.push({ kind, propertyId, sequence: seq });
      }
    }

    const rows = (data.dates ?? []) as Array<Record<string, unknown> & { date: string }>;
    let unavailable: Map<string, number[]> | null = null;
    if (kind === 'availability') {
      unavailable = new Map();
      for (const unit of (data.units ?? []) as Array<{ inventory_id: number; unavailable: string[] }>) {
        for (const night of unit.unavailable ?? []) {
          const list = unavailable.get(night) ?? [];
          list.push(unit.inventory_id);
          unavailable.set(night, list);
        }
      }
    }

    const changedNights: string[] = [];
    let bucketKey = '';
    let bucket: MonthBucket | null = null;
    let copied = false;
    const flush = () => {
      if (bucket && copied) this.set(bucketKey, bucket);
    };
    for (const row of rows) {
      const key = monthKey(kind, propertyId, row.date.slice(0, 7));
      if (key !== bucketKey) {
        flush();
        bucketKey = key;
        bucket = this.get<MonthBucket>(key) ?? {};
        copied = false;
      }
      const current = bucket![row.date];
      if (current && (current.s > seq || (current.s === seq && !read))) continue;
      const entry: NightEntry = unavailable ? { s: seq, r: row, u: (unavailable.get(row.date) ?? []).sort((a, b) => a - b) } : { s: seq, r: row };
      if (!copied) {
        bucket = { ...bucket };
        copied = true;
      }
      bucket![row.date] = entry;
      if (!current || !same(current.r, entry.r) || !same(current.u, entry.u)) changedNights.push(row.date);
    }
    flush();
    if (changedNights.length > 0) this.changes.push({ kind, propertyId, nights: changedNights.sort(), sequence: seq });
  }

  private property(id: number): PropertyRecord {
    return this.get<PropertyRecord>(propertyKey(id)) ?? { id, seq: 0, block: null, units_seq: 0, units: [], aliases: {} };
  }

  /** Units of a property: `all` lists inactive and retired ones too (inventory.changed). */
  applyUnits(propertyId: number, seq: number, raw: Array<Record<string, unknown>>, all: boolean, read = false): void {
    const record = this.property(propertyId);
    if (seq < record.units_seq || (seq === record.units_seq && !read)) return;
    const aliases = { ...record.aliases };
    for (const u of raw) {
      if (!u.deleted) aliases[String(u.inventory_id)] = (u.external_unit_id ?? null) as string | null;
      else if (aliases[String(u.inventory_id)] === u.external_unit_id) aliases[String(u.inventory_id)] = null;
    }
    const units = raw.filter((u) => !u.deleted && (!all || u.is_active)).map(unitOf);
    this.set(propertyKey(propertyId), { ...record, units_seq: seq, units, aliases });
    if (!same(units, record.units)) this.changes.push({ kind: 'inventory', propertyId, sequence: seq });
  }

  /**
   * A Property block (or property.changed's detail, which holds one) set at `seq`; `read` marks a
   * listing, which also replaces its watermark's own state (a status flip to inactive sends no event).
   */
  applyBlock(raw: PropertyBlock, seq: number, read = false): void {
    const id = raw.doorloom_id;
    this.applyUnits(id, seq, raw.units ?? [], false, read);
    const record = this.property(id);
    if (seq < record.seq || (seq === record.seq && !read)) return;
    const block = {} as Record<string, unknown>;
    for (const k of BLOCK_KEYS) block[k] = raw[k] ?? null;
    this.set(propertyKey(id), { ...record, seq, block });
    if (!same(block, record.block)) this.changes.push({ kind: 'property', propertyId: id, sequence: seq });
  }

  /** A booking: kept when its revision is newer than the one held. */
  applyBooking(booking: Booking, seq?: number): void {
    const key = bookingKey(booking.id);
    const held = this.get<BookingRecord>(key);
    if (held && held.booking.revision >= booking.revision) return;
    this.set(key, { booking });
    this.changes.push({ kind: 'booking', propertyId: booking.property?.doorloom_id ?? null, bookingId: booking.id, ...(seq ? { sequence: seq } : {}) });
  }

  /** Drops a property the service no longer lists, with its calendar. */
  removeProperty(id: number, keys: Iterable<string>): void {
    for (const key of keys) {
      const parts = key.split(':');
      if (key === propertyKey(id) || ((parts[0] === 'h' || parts[0] === 'n') && parts[2] === String(id))) this.delete(key);
    }
    this.changes.push({ kind: 'removed', propertyId: id });
  }
}

// -----------------------------------------------------------------------------------------------
// Reads: the mirror in the service's shapes

export function readProperties(map: Map<string, unknown>): PropertyBlock[] {
  const out: PropertyBlock[] = [];
  for (const [key, value] of map) {
    if (!key.startsWith('p:')) continue;
    const record = value as PropertyRecord;
    if (record.block) out.push({ ...record.block, units: record.units });
  }
  return out.sort((a, b) => a.doorloom_id - b.doorloom_id);
}

/** The snapshot `data.data` of a window, from the nights held (nights never seen are left out). */
export function readWindow(map: Map<string, unknown>, kind: WindowedKind, propertyId: number, from: string, to: string): Record<string, unknown> | null {
  const record = map.get(propertyKey(propertyId)) as PropertyRecord | undefined;
  if (!record?.block) return null;
  const entries: NightEntry[] = [];
  let bucketKey = '';
  let bucket: MonthBucket | undefined;
  for (const date of eachDate(from, to)) {
    const key = monthKey(kind, propertyId, date.slice(0, 7));
    if (key !== bucketKey) {
      bucketKey = key;
      bucket = map.get(key) as MonthBucket | undefined;
    }
    const entry = bucket?.[date];
    if (entry) entries.push(entry);
  }
  const dates = entries.map((e) => e.r);
  if (kind === 'availability') {
    return {
      total_units: record.units.length,
      units: record.units.map((u) => ({
        inventory_id: u.inventory_id,
        external_unit_id: u.external_unit_id,
        name: u.name,
        unavailable: entries.filter((e) => e.u?.includes(u.inventory_id)).map((e) => e.r.date as string),
      })),
      dates,
    };
  }
  const header = (map.get(headerKey(kind, propertyId)) as HeaderRecord | undefined)?.data ?? {};
  return { ...header, dates };
}

/**
 * Bookings ordered as GET /bookings orders them (last update, then id). A booking names the
 * partner's ids as they are now, which a remap changes without a booking event: the property's
 * external_id and the unit aliases are read from the property's record when it is held.
 */
export function readBookings(map: Map<string, unknown>): Booking[] {
  const out: Booking[] = [];
  for (const [key, value] of map) {
    if (!key.startsWith('b:')) continue;
    const booking = (value as BookingRecord).booking;
    const record = booking.property ? (map.get(propertyKey(booking.property.doorloom_id)) as PropertyRecord | undefined) : undefined;
    if (!record?.block) {
      out.push(booking);
      continue;
    }
    out.push({
      ...booking,
      property: { ...booking.property!, external_id: record.block.external_id },
      ...(booking.units
        ? {
            units: booking.units.map((u) =>
              String(u.inventory_id) in record.aliases ? { ...u, external_unit_id: record.aliases[String(u.inventory_id)] } : u,
            ),
          }
        : {}),
    });
  }
  return out.sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id - b.id));
}
