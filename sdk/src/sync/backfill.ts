import { failureOf, WINDOWED_KINDS, type Booking } from './api.js';
import { addDays, chunkWindow, kolkataDate, lastOfMonth } from './dates.js';
import type { PropertyRecord, Step } from './mirror.js';
import type { SyncEngineOptions } from './engine.js';

const SNAPSHOT_NIGHTS = 92;
/** Snapshot calls in flight at once during a backfill. */
const SNAPSHOT_CONCURRENCY = 4;
export const BOOKINGS_PAGE = 200;
const PROPERTIES_PAGE = 200;

/** What the backfill flow reads and runs of its engine. */
export interface EngineState {
  readonly options: SyncEngineOptions;
  committed(): Map<string, unknown>;
  stopped(): boolean;
  now(): number;
  step<T>(build: (step: Step) => T): Promise<T>;
}

/** The backfill itself: listings and snapshots, then the bookings; applied through the sequence read first. */
export async function runBackfill(ctx: EngineState): Promise<void> {
  const { api } = ctx.options;
  const me = await api.me();
  const watermark = me.lastSequence;
  const horizonDays = ctx.options.horizonDays ?? me.horizonDays;
  const today = await serviceToday(ctx, watermark);
  const end = lastOfMonth(addDays(today, horizonDays - 1));

  const listed = await reconcileProperties(ctx);
  await snapshotProperties(ctx, listed.ids, today, end);
  // stopped halfway: some snapshots were never taken, so the backfill is not done
  if (ctx.stopped()) throw new Error('SyncEngine stopped during the backfill');

  let since: string | null = null;
  for (let page = 1; ; page++) {
    const res = await api.listBookings({ page, perPage: BOOKINGS_PAGE });
    since = await applyBookings(ctx, res.bookings, since);
    if (page >= res.lastPage) break;
  }
  const bookingsSince = since;
  await ctx.step((step) => {
    step.markIncludedThrough(watermark);
    const meta = step.meta;
    step.setMeta({ backfilled: true, bookings_since: max(meta.bookings_since, bookingsSince) });
  });
}

/**
 * GET /properties, every page: each block replaces an older one, and a held property the listing
 * no longer has (its coverage ended, which sends no event) is dropped with its calendar and with
 * the bookings of it that GET /bookings no longer shows (the host's, seen only through coverage).
 */
export async function reconcileProperties(ctx: EngineState): Promise<{ ids: number[] }> {
  const ids: number[] = [];
  let first: number | null = null;
  for (let page = 1; ; page++) {
    const res = await ctx.options.api.listProperties(page, PROPERTIES_PAGE);
    first ??= res.sequence;
    await ctx.step((step) => {
      for (const block of res.properties) step.applyBlock(block, res.sequence, true);
    });
    ids.push(...res.properties.map((p) => p.doorloom_id));
    if (page >= res.lastPage) break;
  }
  const listed = new Set(ids);
  const watermark = first ?? 0;
  const gone: number[] = [];
  for (const [key, value] of ctx.committed()) {
    if (!key.startsWith('p:')) continue;
    const record = value as PropertyRecord;
    // not listed, and nothing newer than the listing says it exists
    if (!listed.has(record.id) && record.seq <= watermark && record.units_seq <= watermark) gone.push(record.id);
  }
  if (gone.length > 0) {
    const visible = new Set<number>();
    for (let page = 1; ; page++) {
      const res = await ctx.options.api.listBookings({ page, perPage: BOOKINGS_PAGE });
      for (const b of res.bookings) visible.add(b.id);
      if (page >= res.lastPage) break;
    }
    await ctx.step((step) => {
      for (const id of gone) step.removeProperty(id, ctx.committed().keys());
      for (const [key, value] of ctx.committed()) {
        if (!key.startsWith('b:')) continue;
        const booking = (value as { booking: Booking }).booking;
        if (!visible.has(booking.id) && booking.property && gone.includes(booking.property.doorloom_id)) step.delete(key);
      }
    });
  }
  return { ids };
}

/**
 * Snapshots of every windowed kind of the properties over [from, to], 92 nights a call, a few
 * calls at a time. A property answering 404 is no longer covered and is skipped.
 */
export async function snapshotProperties(ctx: EngineState, ids: number[], from: string, to: string): Promise<void> {
  const tasks = ids.flatMap((id) => WINDOWED_KINDS.flatMap((kind) => chunkWindow(from, to, SNAPSHOT_NIGHTS).map((w) => ({ id, kind, ...w }))));
  const gone = new Set<number>();
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < tasks.length && !ctx.stopped() && !failed) {
      const task = tasks[next++];
      if (gone.has(task.id)) continue;
      let snapshot;
      try {
        snapshot = await ctx.options.api.snapshot(task.kind, task.id, task.from, task.to);
      } catch (error) {
        if (failureOf(error)?.status === 404) {
          gone.add(task.id);
          continue;
        }
        failed = true; // the others stop taking tasks
        throw error;
      }
      await ctx.step((step) => step.applyWindowed(task.kind, task.id, snapshot.sequence, snapshot.data as Record<string, unknown>, true));
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: SNAPSHOT_CONCURRENCY }, worker));
  const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/**
 * The service's today: its clock can differ from ours (a test clock), and the newest event's
 * created_at tells its time. Whichever date is later wins.
 */
export async function serviceToday(ctx: EngineState, lastSequence: number): Promise<string> {
  const local = kolkataDate(ctx.now());
  if (lastSequence < 1) return local;
  try {
    const page = await ctx.options.api.events(lastSequence - 1, 1);
    const stamp = page.events[0]?.created_at;
    // timestamps are written in +05:30, so their date part is the Asia/Kolkata date
    const remote = typeof stamp === 'string' ? stamp.slice(0, 10) : local;
    return remote > local ? remote : local;
  } catch {
    return local;
  }
}

export async function applyBookings(ctx: EngineState, bookings: Booking[], highest: string | null): Promise<string | null> {
  if (bookings.length === 0) return highest;
  await ctx.step((step) => {
    for (const booking of bookings) step.applyBooking(booking);
  });
  return bookings.reduce<string | null>((m, b) => max(m, b.updated_at), highest);
}

export function max(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
