import type { SyncStore } from '../store/store.js';
import { failureOf, WINDOWED_KINDS, type Booking, type EventEnvelope, type PropertyBlock, type SyncApi, type SyncRequest, type WindowedKind } from './api.js';
import { addDays, chunkWindow, kolkataDate, lastOfMonth } from './dates.js';
import { readBookings, readProperties, readWindow, Step, type Change, type Meta, metaKey, EMPTY_META, type PropertyRecord } from './mirror.js';

export type { Change } from './mirror.js';

export interface SyncEngineOptions {
  api: SyncApi;
  store: SyncStore;
  /** Told about every change once it is durable, in the order the changes were made. */
  onChange?: (change: Change) => void | Promise<void>;
  /**
   * Replay and booking reconciliation run on their own every this many milliseconds (besides
   * on start and whenever a gap is seen): webhooks can be late, blocked behind a failing one, or
   * not subscribed. 0 turns the timer off. Default 60 000.
   */
  pollIntervalMs?: number;
  /** Nights ahead to backfill on a cold start; default the integration's horizon (GET /me). */
  horizonDays?: number;
  /** The local clock (epoch ms); tests may move it. */
  now?: () => number;
  /** Where the engine reports failures of its background work. Default: silent. */
  onError?: (error: unknown, during: string) => void;
}

export type ReceiveResult = 'applied' | 'duplicate' | 'ignored';

export type SyncOutcome =
  { status: 'queued'; queued_properties: number; horizon_days: number; types: string[] } | { status: 'deferred'; retry_at: number; code: string };

const SNAPSHOT_NIGHTS = 92;
/** Snapshot calls in flight at once during a backfill. */
const SNAPSHOT_CONCURRENCY = 4;
const EVENTS_PAGE = 200;
const BOOKINGS_PAGE = 200;
const PROPERTIES_PAGE = 200;
const SYNC_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Keeps a partner's mirror of the service converged, following the contract's "Staying in sync":
 *
 * - Webhooks are handed to `receive()` (verify them first); they apply at once in any order, since
 *   every piece of state keeps the sequence that set it: per night for availability, rates and
 *   restrictions; per property for the property block and for its units; per booking by revision.
 * - `applied_through` is the highest sequence below which every event is applied. A sequence above
 *   the next expected one is a gap: GET /events replays from applied_through.
 * - A cold start lists the properties, takes snapshots of the horizon in windows of at most 92
 *   nights and lists the bookings; the receiver may already be running. Then everything at or below
 *   the sequence read before the backfill counts as applied, and replay continues from there.
 * - A replay cursor past retention (410 CURSOR_EXPIRED) rebuilds the same way.
 * - Bookings are also reconciled by polling GET /bookings?updated_since, comparing revisions.
 * - `requestSync()` sends POST /sync, remembering its 24-hour window and its 429s.
 */
export class SyncEngine {
  private committed = new Map<string, unknown>();
  private chain: Promise<unknown> = Promise.resolve();
  private loaded = false;
  private timer: NodeJS.Timeout | null = null;
  private catchUpRun: Promise<void> | null = null;
  private catchUpAgain = false;
  private backfillRun: Promise<void> | null = null;
  private stopped = false;
  private pollRun: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly options: SyncEngineOptions) {
    this.now = options.now ?? Date.now;
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /** Loads the store (once), backfills when the mirror is new, replays what was missed, polls. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.load();
    if (!this.meta.backfilled) await this.backfill();
    await this.catchUp();
    await this.reconcileBookings();
    const every = this.options.pollIntervalMs ?? 60_000;
    if (every > 0 && !this.timer) {
      let ticks = 0;
      this.timer = setInterval(() => {
        // the property listing is the only news of a coverage ending; it is read every fifth poll
        const listing = ++ticks % 5 === 0;
        if (this.pollRun) return;
        this.pollRun = this.catchUp()
          .then(() => this.reconcileBookings())
          .then(async () => {
            if (listing && !this.stopped) await this.reconcileProperties();
          })
          .catch((error) => this.report(error, 'poll'))
          .finally(() => (this.pollRun = null));
      }, every);
      this.timer.unref();
    }
  }

  /** Loads the store without contacting the service (reads and `receive` work after this). */
  async load(): Promise<void> {
    if (this.loaded) return;
    this.committed = await this.options.store.load();
    this.loaded = true;
  }

  /** Stops polling and waits for work under way; the store stays open (the caller owns it). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([this.catchUpRun, this.backfillRun, this.pollRun]);
    await this.chain.catch(() => {});
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  get meta(): Meta {
    return (this.committed.get(metaKey) as Meta | undefined) ?? EMPTY_META;
  }

  status(): { applied_through: number; last_event_at: string | null } {
    const meta = this.meta;
    return { applied_through: meta.applied_through, last_event_at: meta.last_event_at };
  }

  properties(): PropertyBlock[] {
    return readProperties(this.committed);
  }

  property(id: number): PropertyBlock | null {
    const record = this.committed.get(`p:${id}`) as PropertyRecord | undefined;
    return record?.block ? { ...record.block, units: record.units } : null;
  }

  /** The snapshot `data.data` shape of a window; null for a property not held. */
  window(kind: WindowedKind, propertyId: number, from: string, to: string): Record<string, unknown> | null {
    return readWindow(this.committed, kind, propertyId, from, to);
  }

  bookings(): Booking[] {
    return readBookings(this.committed);
  }

  // ---------------------------------------------------------------------------------------------
  // Webhooks

  /**
   * Applies one verified webhook event. Resolves once its state is durable: answer the delivery
   * with a 2xx only then (a rejection means nothing was stored; answer 5xx and it comes again).
   */
  async receive(event: EventEnvelope): Promise<ReceiveResult> {
    if (!this.loaded) throw new Error('SyncEngine: load() or start() first');
    const seq = event.sequence;
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < 1) return 'ignored';
    const result = await this.step((step) => {
      if (step.isApplied(seq)) return 'duplicate' as const;
      step.applyEvent(event);
      step.markApplied(seq, event.created_at);
      return 'applied' as const;
    });
    if (this.meta.above.length > 0) this.scheduleCatchUp();
    return result;
  }

  // ---------------------------------------------------------------------------------------------
  // Replay

  /** Replays GET /events from applied_through until the log is exhausted (rebuilding on 410). */
  catchUp(): Promise<void> {
    if (this.catchUpRun) {
      this.catchUpAgain = true;
      return this.catchUpRun;
    }
    this.catchUpRun = (async () => {
      try {
        do {
          this.catchUpAgain = false;
          if (this.backfillRun) await this.backfillRun;
          await this.replayOnce();
        } while (this.catchUpAgain && !this.stopped);
      } finally {
        this.catchUpRun = null;
      }
    })();
    return this.catchUpRun;
  }

  private scheduleCatchUp(): void {
    if (this.stopped || !this.meta.backfilled) return;
    this.catchUp().catch((error) => this.report(error, 'replay'));
  }

  private async replayOnce(): Promise<void> {
    let after = this.meta.applied_through;
    for (;;) {
      if (this.stopped) return;
      let page;
      try {
        page = await this.options.api.events(after, EVENTS_PAGE);
      } catch (error) {
        if (failureOf(error)?.code !== 'CURSOR_EXPIRED') throw error;
        await this.backfill();
        after = this.meta.applied_through;
        continue;
      }
      if (page.events.length > 0) {
        await this.step((step) => {
          for (const event of page.events) {
            if (typeof event.sequence !== 'number' || step.isApplied(event.sequence)) continue;
            step.applyEvent(event);
            step.markApplied(event.sequence, event.created_at);
          }
        });
      }
      if (!page.hasMore || page.nextAfterSequence <= after) return;
      after = page.nextAfterSequence;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Backfill (cold start, CURSOR_EXPIRED)

  /**
   * Rebuilds the mirror from the listings and snapshots. Safe beside webhooks: each piece only
   * replaces older state. Everything at or below the sequence read first counts as applied after.
   */
  backfill(): Promise<void> {
    this.backfillRun ??= this.runBackfill().finally(() => {
      this.backfillRun = null;
    });
    return this.backfillRun;
  }

  private async runBackfill(): Promise<void> {
    const { api } = this.options;
    const me = await api.me();
    const watermark = me.lastSequence;
    const horizonDays = this.options.horizonDays ?? me.horizonDays;
    const today = await this.serviceToday(watermark);
    const end = lastOfMonth(addDays(today, horizonDays - 1));

    const listed = await this.reconcileProperties();
    await this.snapshotProperties(listed.ids, today, end);
    // stopped halfway: some snapshots were never taken, so the backfill is not done
    if (this.stopped) throw new Error('SyncEngine stopped during the backfill');

    let since: string | null = null;
    for (let page = 1; ; page++) {
      const res = await api.listBookings({ page, perPage: BOOKINGS_PAGE });
      since = await this.applyBookings(res.bookings, since);
      if (page >= res.lastPage) break;
    }
    const bookingsSince = since;
    await this.step((step) => {
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
  async reconcileProperties(): Promise<{ ids: number[] }> {
    const ids: number[] = [];
    let first: number | null = null;
    for (let page = 1; ; page++) {
      const res = await this.options.api.listProperties(page, PROPERTIES_PAGE);
      first ??= res.sequence;
      await this.step((step) => {
        for (const block of res.properties) step.applyBlock(block, res.sequence, true);
      });
      ids.push(...res.properties.map((p) => p.doorloom_id));
      if (page >= res.lastPage) break;
    }
    const listed = new Set(ids);
    const watermark = first ?? 0;
    const gone: number[] = [];
    for (const [key, value] of this.committed) {
      if (!key.startsWith('p:')) continue;
      const record = value as PropertyRecord;
      // not listed, and nothing newer than the listing says it exists
      if (!listed.has(record.id) && record.seq <= watermark && record.units_seq <= watermark) gone.push(record.id);
    }
    if (gone.length > 0) {
      const visible = new Set<number>();
      for (let page = 1; ; page++) {
        const res = await this.options.api.listBookings({ page, perPage: BOOKINGS_PAGE });
        for (const b of res.bookings) visible.add(b.id);
        if (page >= res.lastPage) break;
      }
      await this.step((step) => {
        for (const id of gone) step.removeProperty(id, this.committed.keys());
        for (const [key, value] of this.committed) {
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
  private async snapshotProperties(ids: number[], from: string, to: string): Promise<void> {
    const tasks = ids.flatMap((id) => WINDOWED_KINDS.flatMap((kind) => chunkWindow(from, to, SNAPSHOT_NIGHTS).map((w) => ({ id, kind, ...w }))));
    const gone = new Set<number>();
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < tasks.length && !this.stopped && !failed) {
        const task = tasks[next++];
        if (gone.has(task.id)) continue;
        let snapshot;
        try {
          snapshot = await this.options.api.snapshot(task.kind, task.id, task.from, task.to);
        } catch (error) {
          if (failureOf(error)?.status === 404) {
            gone.add(task.id);
            continue;
          }
          failed = true; // the others stop taking tasks
          throw error;
        }
        await this.step((step) => step.applyWindowed(task.kind, task.id, snapshot.sequence, snapshot.data as Record<string, unknown>, true));
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: SNAPSHOT_CONCURRENCY }, worker));
    const rejected = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (rejected) throw rejected.reason;
  }

  /**
   * "One property looks wrong": snapshots of its window (default: today to the horizon's end)
   * replace whatever is older than their watermarks.
   */
  async refreshProperty(propertyId: number, from?: string, to?: string): Promise<void> {
    const me = await this.options.api.me();
    const today = from ?? (await this.serviceToday(me.lastSequence));
    await this.snapshotProperties([propertyId], today, to ?? lastOfMonth(addDays(today, (this.options.horizonDays ?? me.horizonDays) - 1)));
  }

  /**
   * The service's today: its clock can differ from ours (a test clock), and the newest event's
   * created_at tells its time. Whichever date is later wins.
   */
  private async serviceToday(lastSequence: number): Promise<string> {
    const local = kolkataDate(this.now());
    if (lastSequence < 1) return local;
    try {
      const page = await this.options.api.events(lastSequence - 1, 1);
      const stamp = page.events[0]?.created_at;
      // timestamps are written in +05:30, so their date part is the Asia/Kolkata date
      const remote = typeof stamp === 'string' ? stamp.slice(0, 10) : local;
      return remote > local ? remote : local;
    } catch {
      return local;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Bookings

  /** Polls GET /bookings?updated_since=<highest updated_at processed>, keeping newer revisions. */
  async reconcileBookings(): Promise<void> {
    if (!this.meta.backfilled) return;
    const since = this.meta.bookings_since ?? undefined;
    let highest: string | null = null;
    for (let page = 1; ; page++) {
      if (this.stopped) return;
      const res = await this.options.api.listBookings({ updatedSince: since, page, perPage: BOOKINGS_PAGE });
      highest = await this.applyBookings(res.bookings, highest);
      if (page >= res.lastPage) break;
    }
    const found = highest;
    if (found) await this.step((step) => step.setMeta({ bookings_since: max(step.meta.bookings_since, found) }));
  }

  private async applyBookings(bookings: Booking[], highest: string | null): Promise<string | null> {
    if (bookings.length === 0) return highest;
    await this.step((step) => {
      for (const booking of bookings) step.applyBooking(booking);
    });
    return bookings.reduce<string | null>((m, b) => max(m, b.updated_at), highest);
  }

  // ---------------------------------------------------------------------------------------------
  // POST /sync (last resort)

  /**
   * Asks the service to regenerate its events (they arrive as webhooks and through replay).
   * Allowed once per 24 hours and six calls a day: a refusal's retry_after is kept in the store and
   * no call is made before it passes, so a caller cannot burn the day's quota by retrying.
   */
  async requestSync(body?: SyncRequest): Promise<SyncOutcome> {
    await this.load();
    const notBefore = this.meta.sync_not_before;
    if (notBefore !== null && notBefore > this.now()) return { status: 'deferred', retry_at: notBefore, code: 'SYNC_TOO_SOON' };
    try {
      const accepted = await this.options.api.sync(body);
      await this.step((step) => step.setMeta({ sync_not_before: this.now() + SYNC_WINDOW_MS }));
      return { status: 'queued', ...accepted };
    } catch (error) {
      const failure = failureOf(error);
      if (failure?.status !== 429) throw error;
      const seconds = Number(failure.errors.retry_after);
      const retryAt = this.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000;
      await this.step((step) => step.setMeta({ sync_not_before: retryAt }));
      return { status: 'deferred', retry_at: retryAt, code: failure.code };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Steps: build, commit, publish, tell

  /**
   * Runs one step at a time: builds the changes over the committed map, commits them to the store
   * (sequence and state in one batch), then makes them visible and tells the application.
   */
  private step<T>(build: (step: Step) => T): Promise<T> {
    const run = this.chain.then(async () => {
      const step = new Step(this.committed);
      const result = build(step);
      const batch = step.batch();
      if (batch.length > 0) {
        await this.options.store.commit(batch);
        for (const [key, value] of batch) {
          if (value === null) this.committed.delete(key);
          else this.committed.set(key, value);
        }
      }
      if (this.options.onChange) {
        for (const change of step.changes) {
          try {
            await this.options.onChange(change);
          } catch (error) {
            this.report(error, 'onChange');
          }
        }
      }
      return result;
    });
    this.chain = run.catch(() => {});
    return run;
  }

  private report(error: unknown, during: string): void {
    this.options.onError?.(error, during);
  }
}

function max(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}
