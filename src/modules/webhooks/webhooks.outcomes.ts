import { dataClock } from '../../lib/clock.js';
import { unitOfWork, type UnitOfWork } from '../../db/unit-of-work.js';
import type { Deps } from '../../deps.js';
import { afterFailure, PING_INTERVAL_MS, type FailureOutcome, type PauseReason } from './webhooks.policy.js';
import type { SendResult } from './webhooks.send.js';
import {
  countEventFailure,
  countFailedPing,
  insertAttemptsQuery,
  lockFailureCounters,
  updateDeliveryState,
  writeOutcomes,
  type AttemptRow,
} from './webhooks.sql.js';
import { integrationStatus, setIntegrationStatus } from '../integrations/integrations.sql.js';
import { holdLease, type Lease } from '../leases/leases.sql.js';

/** One attempt as the attempt log keeps it. */
export interface Attempt {
  eventId: string;
  eventType: string;
  sequence: number | null;
  attempt: number | null;
  /** Service-clock milliseconds at the start of the attempt. */
  at: number;
  result: SendResult;
}

export function attemptRow(integrationId: number, worker: string, a: Attempt): AttemptRow {
  return {
    integration_id: integrationId,
    event_id: a.eventId,
    event_type: a.eventType,
    sequence: a.sequence,
    attempt: a.attempt,
    attempted_at: new Date(a.at),
    duration_ms: a.result.durationMs,
    status_code: a.result.status,
    error: a.result.error,
    success: a.result.ok,
    response_body: a.result.body,
    private_answer: a.result.privateAddress === true,
    worker,
  };
}

type Done = { kind: 'delivered'; sequence: number; attempt: Attempt } | { kind: 'skipped'; sequence: number };

/** Flush once this many outcomes wait, or once the oldest has waited this long. */
const FLUSH_AT = 256;
const FLUSH_AFTER_MS = 100;
/** Sending waits for the database when this many outcomes are unwritten. */
const MAX_UNWRITTEN = 4_000;
/** `last_success_at` is refreshed at most this often during a stream (and always at its end). */
const TOUCH_EVERY_MS = 1_000;

/**
 * The successful side of one integration's stream, written behind the sends: outcomes are buffered
 * and written in one transaction per flush (attempts logged, the cursor moved past the delivered
 * events, the integration's success counters touched), while the next deliveries are already on
 * the wire.
 *
 * Flushes run one at a time and in order, so the events recorded as delivered are always a prefix of
 * what was sent: a process killed before a flush re-sends the unflushed tail (a duplicate the
 * contract allows), never leaves a gap. After a failed flush nothing more is written or sent.
 */
export class OutcomeBuffer {
  private items: Done[] = [];
  private firstQueuedAt = 0;
  private inflight: Promise<void> | null = null;
  private failure: { error: unknown } | null = null;
  /** Latest success not yet written to the integration row. */
  private untouched: number | null = null;
  private lastTouch = 0;
  /** Whether this stream has had a success (the integration's failure counters are reset by it). */
  succeeded = false;

  constructor(
    private readonly deps: Deps,
    private readonly integrationId: number,
    private readonly worker: string,
    /** The integration had failures when the stream started: the first success must reset them at once. */
    private countersDirty: boolean,
    /** The delivery claim of the stream: a flush writes nothing once it is lost. */
    private readonly lease: Lease | null = null,
  ) {}

  delivered(sequence: number, attempt: Attempt): void {
    this.queue({ kind: 'delivered', sequence, attempt });
    this.untouched = attempt.at;
    this.succeeded = true;
  }

  /** A failure was recorded: the next success must reset the counters at once. */
  failed(): void {
    this.succeeded = false;
    this.countersDirty = true;
  }

  skipped(sequence: number): void {
    this.queue({ kind: 'skipped', sequence });
  }

  private queue(item: Done): void {
    if (this.items.length === 0) this.firstQueuedAt = performance.now();
    this.items.push(item);
  }

  /** Starts a flush when one is due; waits only when too much is unwritten. */
  async maybeFlush(): Promise<void> {
    this.throwFailure();
    if (!this.inflight && this.items.length > 0 && (this.items.length >= FLUSH_AT || performance.now() - this.firstQueuedAt >= FLUSH_AFTER_MS)) {
      this.start();
    }
    if (this.items.length >= MAX_UNWRITTEN && this.inflight) await this.inflight;
    this.throwFailure();
  }

  /** Writes everything buffered, then the integration's last success if still unwritten. */
  async drain(): Promise<void> {
    for (;;) {
      this.throwFailure();
      if (this.inflight) await this.inflight;
      else if (this.items.length > 0) this.start();
      else break;
    }
    this.throwFailure();
    if (this.untouched !== null) await this.touch(this.untouched);
  }

  /** Once a write has failed, every later call fails with its error. */
  private throwFailure(): void {
    if (this.failure) throw this.failure.error;
  }

  private start(): void {
    const items = this.items;
    this.items = [];
    this.inflight = this.write(items)
      .catch((error) => {
        this.failure = { error };
      })
      .finally(() => {
        this.inflight = null;
      });
  }

  private async write(items: Done[]): Promise<void> {
    const delivered = items.filter((d): d is Extract<Done, { kind: 'delivered' }> => d.kind === 'delivered');
    // The integration row is shared with every writer recording events (they hold its lock to
    // allocate sequences), so it is touched only when needed, not on every flush.
    const successAt = this.untouched;
    const touch = successAt !== null && (this.countersDirty || performance.now() - this.lastTouch >= TOUCH_EVERY_MS);
    await writeOutcomes(this.deps.db, {
      integrationId: this.integrationId,
      delivered: delivered.map((d) => d.sequence),
      skipped: items.filter((d) => d.kind === 'skipped').map((d) => d.sequence),
      attempts: delivered.map((d) => attemptRow(this.integrationId, this.worker, d.attempt)),
      touchSuccessAt: touch ? new Date(successAt) : null,
      lease: this.lease,
    });
    this.deps.state.changes.wrote(['delivery_marks', 'webhook_delivery_state']);
    if (touch) this.touched(successAt);
  }

  private async touch(successAt: number): Promise<void> {
    await writeOutcomes(this.deps.db, {
      integrationId: this.integrationId,
      delivered: [],
      skipped: [],
      attempts: [],
      touchSuccessAt: new Date(successAt),
      lease: this.lease,
    });
    this.deps.state.changes.wrote(['webhook_delivery_state']);
    this.touched(successAt);
  }

  private touched(successAt: number): void {
    if (this.untouched === successAt) this.untouched = null;
    this.countersDirty = false;
    this.lastTouch = performance.now();
  }
}

/** Who an outcome is about, for the operator's log. */
export interface Subject {
  integrationId: number;
  slug: string;
}

/**
 * An attempt the worker stopped itself (shutdown, or its claim lost) before it knew the answer, or
 * whose answer came after it stopped. Its outcome does not count: the event stays pending, no
 * failure is counted, and it goes again. The attempt log still shows what happened to it.
 */
export async function recordAbandoned(deps: Deps, subject: Subject, worker: string, attempt: Attempt): Promise<void> {
  const error = attempt.result.ok
    ? `ABANDONED: answered ${attempt.result.status} after the worker had stopped; the event goes again`
    : `ABANDONED: ${attempt.result.error ?? 'stopped by the worker'}; the event goes again`;
  const row = attemptRow(subject.integrationId, worker, { ...attempt, result: { ...attempt.result, ok: false, error } });
  await insertAttemptsQuery([row]).execute(deps.db);
  deps.log.warn(
    { integrationId: subject.integrationId, slug: subject.slug, sequence: attempt.sequence, attempt: attempt.attempt, status: attempt.result.status, error },
    'webhook delivery attempt abandoned',
  );
}

/**
 * A failed attempt on the head event: counts it, logs it, and moves the integration along the
 * ladder or pauses it (decisions §7). Returns what was decided. Logged at warn, so that operators
 * see every failed attempt, pause and resumption.
 */
export async function recordEventFailure(
  deps: Deps,
  subject: Subject,
  worker: string,
  sequence: number,
  attempt: Attempt,
  lease: Lease | null = null,
): Promise<FailureOutcome> {
  const { integrationId } = subject;
  const outcome = await unitOfWork(deps, async (trx) => {
    if (lease) await holdLease(trx, lease);
    const status = await integrationStatus(trx, integrationId, true);
    const row = await lockFailureCounters(trx, integrationId);
    const eventFailures = await countEventFailure(trx, integrationId, sequence);
    const now = dataClock(deps.clock, 'deliveryRetries', { integrationId }).nowMs();
    const failures = row.consecutive_failures + 1;
    const firstFailureAt = row.first_failure_at?.getTime() ?? now;
    const decided = afterFailure({ failures, eventFailures, firstFailureAt, lastSuccessAt: row.last_success_at?.getTime() ?? null }, now);
    const pause = decided.pause !== null && status === 'active';
    if (pause) await setIntegrationStatus(trx, integrationId, 'paused', ['active'], new Date(now));
    updateDeliveryState(trx, integrationId, {
      consecutive_failures: failures,
      first_failure_at: new Date(firstFailureAt),
      last_failure_at: new Date(now),
      next_attempt_at: new Date(decided.nextAttemptAt),
      ...(pause ? { paused_at: new Date(now), paused_reason: decided.pause } : {}),
    });
    trx.send(insertAttemptsQuery([attemptRow(integrationId, worker, attempt)]));
    return { ...decided, paused: pause, failures };
  });
  deps.log.warn(
    {
      integrationId,
      slug: subject.slug,
      sequence,
      attempt: attempt.attempt,
      status: attempt.result.status,
      error: attempt.result.error,
      consecutiveFailures: outcome.failures,
      nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString(),
    },
    'webhook delivery failed',
  );
  if (outcome.paused) deps.log.warn({ integrationId, slug: subject.slug, reason: outcome.pause }, 'webhook delivery paused');
  return outcome;
}

/** Pauses an active integration now; its first ping is due in 15 minutes. */
export async function pauseIntegration(deps: Deps, subject: Subject, reason: PauseReason, lease: Lease | null = null): Promise<void> {
  const now = dataClock(deps.clock, 'deliveryRetries', { integrationId: subject.integrationId }).nowMs();
  const paused = await unitOfWork(deps, async (trx) => {
    if (lease) await holdLease(trx, lease);
    if (!(await setIntegrationStatus(trx, subject.integrationId, 'paused', ['active'], new Date(now)))) return false;
    updateDeliveryState(trx, subject.integrationId, { paused_at: new Date(now), paused_reason: reason, next_attempt_at: new Date(now + PING_INTERVAL_MS) });
    return true;
  });
  if (paused) deps.log.warn({ integrationId: subject.integrationId, slug: subject.slug, reason }, 'webhook delivery paused');
}

/**
 * Delivery resumes: status active, the pause and the failure counters cleared, nothing scheduled,
 * so the blocked event goes at once with a fresh ladder. The one way back from a pause or a
 * back-off: a successful ping (`from: ['paused']`, recording the success), staff resume
 * (`['active', 'paused']`) and staff re-enabling (`['active', 'paused', 'disabled']`). Returns
 * whether the integration was in one of `from`; in the caller's unit of work.
 */
export async function resumeDelivery(
  trx: UnitOfWork,
  integrationId: number,
  options: { at: Date; from: Array<'active' | 'paused' | 'disabled'>; succeededAt?: Date },
): Promise<boolean> {
  if (!(await setIntegrationStatus(trx, integrationId, 'active', options.from, options.at))) return false;
  updateDeliveryState(trx, integrationId, {
    paused_at: null,
    paused_reason: null,
    consecutive_failures: 0,
    first_failure_at: null,
    next_attempt_at: null,
    ...(options.succeededAt ? { last_success_at: options.succeededAt } : {}),
  });
  return true;
}

/**
 * The outcome of a ping to a paused integration. A 2xx resumes it (resumeDelivery). Returns
 * whether it resumed.
 */
export async function recordPing(deps: Deps, subject: Subject, worker: string, attempt: Attempt, lease: Lease | null = null): Promise<boolean> {
  const { integrationId } = subject;
  const resumed = await unitOfWork(deps, async (trx) => {
    if (lease) await holdLease(trx, lease);
    const now = dataClock(deps.clock, 'deliveryRetries', { integrationId }).nowMs();
    let resumed = false;
    if (attempt.result.ok) {
      resumed = await resumeDelivery(trx, integrationId, { at: new Date(now), from: ['paused'], succeededAt: new Date(now) });
    } else {
      const status = await integrationStatus(trx, integrationId);
      if (status === 'paused') countFailedPing(trx, integrationId, new Date(now), new Date(now + PING_INTERVAL_MS));
    }
    trx.send(insertAttemptsQuery([attemptRow(integrationId, worker, attempt)]));
    return resumed;
  });
  if (resumed) deps.log.warn({ integrationId, slug: subject.slug }, 'webhook delivery resumed: the ping succeeded');
  else
    deps.log.warn(
      { integrationId, slug: subject.slug, status: attempt.result.status, error: attempt.result.error },
      'webhook ping failed; delivery stays paused',
    );
  return resumed;
}
