import type { SyncStore } from '../store/store.js';
import { failureOf, type Booking, type EventEnvelope, type PropertyBlock, type SyncApi, type SyncRequest, type WindowedKind } from './api.js';
import { applyBookings, BOOKINGS_PAGE, max, reconcileProperties, runBackfill, serviceToday, snapshotProperties, type EngineState } from './backfill.js';
import { addDays, lastOfMonth } from './dates.js';
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

const EVENTS_PAGE = 200;
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
  private readonly state: EngineState;

  constructor(private readonly options: SyncEngineOptions) {
    this.now = options.now ?? Date.now;
    this.state = {
      options,
      committed: () => this.committed,
      stopped: () => this.stopped,
      now: () => this.now(),
      step: (build) => this.step(build),
    };
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
  // Backfill (cold start, CURSOR_EXPIRED): the flow itself is in backfill.ts

  /**
   * Rebuilds the mirror from the listings and snapshots. Safe beside webhooks: each piece only
   * replaces older state. Everything at or below the sequence read first counts as applied after.
   */
  backfill(): Promise<void> {
    this.backfillRun ??= runBackfill(this.state).finally(() => {
      this.backfillRun = null;
    });
    return this.backfillRun;
  }

  /**
   * GET /properties, every page: each block replaces an older one, and a held property the listing
   * no longer has (its coverage ended, which sends no event) is dropped with its calendar and with
   * the bookings of it that GET /bookings no longer shows (the host's, seen only through coverage).
   */
  reconcileProperties(): Promise<{ ids: number[] }> {
    return reconcileProperties(this.state);
  }

  /**
   * "One property looks wrong": snapshots of its window (default: today to the horizon's end)
   * replace whatever is older than their watermarks.
   */
  async refreshProperty(propertyId: number, from?: string, to?: string): Promise<void> {
    const me = await this.options.api.me();
    const today = from ?? (await serviceToday(this.state, me.lastSequence));
    await snapshotProperties(this.state, [propertyId], today, to ?? lastOfMonth(addDays(today, (this.options.horizonDays ?? me.horizonDays) - 1)));
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
      highest = await applyBookings(this.state, res.bookings, highest);
      if (page >= res.lastPage) break;
    }
    const found = highest;
    if (found) await this.step((step) => step.setMeta({ bookings_since: max(step.meta.bookings_since, found) }));
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
