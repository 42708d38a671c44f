/**
 * The delivery rules of decisions §7 as plain functions of the integration's counters, so the
 * worker and the tests share one reading of them. All times are service-clock milliseconds.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Waits after the 1st, 2nd, … consecutive failure; every further one waits 2 h. */
export const RETRY_LADDER_MS = [1 * MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, 1 * HOUR];
export const LATE_RETRY_MS = 2 * HOUR;
/** Attempts an event gets before the integration pauses with `attempts_exhausted`. */
export const MAX_ATTEMPTS = 12;
export const PAUSE_AFTER_FAILURES = 5;
export const PAUSE_AFTER_MS = 6 * HOUR;
export const PING_INTERVAL_MS = 15 * MINUTE;

export type PauseReason = 'delivery_failures' | 'attempts_exhausted';

/** The wait after the `failures`-th consecutive failure (1-based). */
export function retryDelayMs(failures: number): number {
  return failures >= 1 && failures <= RETRY_LADDER_MS.length ? RETRY_LADDER_MS[failures - 1] : LATE_RETRY_MS;
}

export interface FailureCounters {
  /** Consecutive failures, this one included. */
  failures: number;
  /** Failed attempts of the event at the head of the queue, this one included. */
  eventFailures: number;
  /** First failure of the current run of failures (this one when it is the first). */
  firstFailureAt: number;
  lastSuccessAt: number | null;
}

/**
 * "No success for 6 hours" counts from the last success, or from the first failure when there never
 * was one. Only meaningful once PAUSE_AFTER_FAILURES failures in a row have happened.
 */
export function pauseDeadline(c: Pick<FailureCounters, 'failures' | 'firstFailureAt' | 'lastSuccessAt'>): number | null {
  if (c.failures < PAUSE_AFTER_FAILURES) return null;
  return (c.lastSuccessAt ?? c.firstFailureAt) + PAUSE_AFTER_MS;
}

export interface FailureOutcome {
  pause: PauseReason | null;
  /** Paused: the first ping. Otherwise the retry, or the pause deadline when that comes first. */
  nextAttemptAt: number;
}

/** What follows a failed event attempt made at `now`. */
export function afterFailure(c: FailureCounters, now: number): FailureOutcome {
  // The 12th failure of one event; an event that keeps failing after a resume does not re-trigger
  // this (it was its 12th once), the 6-hour rule covers it from then on.
  if (c.eventFailures === MAX_ATTEMPTS) return { pause: 'attempts_exhausted', nextAttemptAt: now + PING_INTERVAL_MS };
  const deadline = pauseDeadline(c);
  if (deadline !== null && now >= deadline) return { pause: 'delivery_failures', nextAttemptAt: now + PING_INTERVAL_MS };
  const retryAt = now + retryDelayMs(c.failures);
  return { pause: null, nextAttemptAt: deadline !== null && deadline < retryAt ? deadline : retryAt };
}

/**
 * At a due wake-up of a failing integration: true when the 6-hour deadline has passed and the
 * retry itself is not due yet (the wake-up was the deadline), so the integration pauses without
 * another attempt. When the retry is due it is made first; its failure then pauses.
 */
export function pauseBeforeRetry(
  c: { failures: number; firstFailureAt: number | null; lastSuccessAt: number | null; lastFailureAt: number | null },
  now: number,
): boolean {
  if (c.failures < PAUSE_AFTER_FAILURES || c.firstFailureAt === null || c.lastFailureAt === null) return false;
  const deadline = pauseDeadline({ failures: c.failures, firstFailureAt: c.firstFailureAt, lastSuccessAt: c.lastSuccessAt });
  const retryAt = c.lastFailureAt + retryDelayMs(c.failures);
  return deadline !== null && now >= deadline && now < retryAt;
}
