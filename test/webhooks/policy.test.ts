import { describe, expect, it } from 'vitest';
import { afterFailure, pauseBeforeRetry, retryDelayMs } from '../../src/modules/webhooks/webhooks.policy.js';

const M = 60_000;
const H = 60 * M;

describe('delivery rules (decisions §7)', () => {
  it('retries after 1m, 5m, 15m, 30m, 1h, then every 2h', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 11].map(retryDelayMs)).toEqual([M, 5 * M, 15 * M, 30 * M, H, 2 * H, 2 * H, 2 * H]);
  });

  it('walks a never-successful event to the 6-hour pause', () => {
    const t0 = 1_000_000;
    let now = t0;
    const times: number[] = [];
    for (let failures = 1; failures <= 8; failures++) {
      times.push(now - t0);
      const outcome = afterFailure({ failures, eventFailures: failures, firstFailureAt: t0, lastSuccessAt: null }, now);
      expect(outcome.pause).toBeNull();
      now = outcome.nextAttemptAt;
    }
    // attempts at 0, 1m, 6m, 21m, 51m, 1h51m, 3h51m, 5h51m; the next wake is the 6-hour mark
    expect(times).toEqual([0, M, 6 * M, 21 * M, 51 * M, H + 51 * M, 3 * H + 51 * M, 5 * H + 51 * M]);
    expect(now - t0).toBe(6 * H);
    expect(pauseBeforeRetry({ failures: 8, firstFailureAt: t0, lastSuccessAt: null, lastFailureAt: t0 + 5 * H + 51 * M }, now)).toBe(true);
    expect(pauseBeforeRetry({ failures: 8, firstFailureAt: t0, lastSuccessAt: null, lastFailureAt: t0 + 5 * H + 51 * M }, now - 1)).toBe(false);
  });

  it('counts "no success for 6 hours" from the last success when there was one', () => {
    const lastSuccess = 0;
    const now = 10 * H;
    // five failures in a row, the last success long ago: pause at once
    expect(afterFailure({ failures: 5, eventFailures: 5, firstFailureAt: now - 51 * M, lastSuccessAt: lastSuccess }, now).pause).toBe('delivery_failures');
    // four failures are not enough, whatever the time
    expect(afterFailure({ failures: 4, eventFailures: 4, firstFailureAt: now - 21 * M, lastSuccessAt: lastSuccess }, now).pause).toBeNull();
    // a recent success (a ping) holds it off
    expect(afterFailure({ failures: 5, eventFailures: 13, firstFailureAt: now - H, lastSuccessAt: now - 2 * H }, now)).toEqual({
      pause: null,
      nextAttemptAt: now + H,
    });
  });

  it('pauses with attempts_exhausted at the 12th failure of one event, once', () => {
    expect(afterFailure({ failures: 4, eventFailures: 12, firstFailureAt: 0, lastSuccessAt: 0 }, H).pause).toBe('attempts_exhausted');
    expect(afterFailure({ failures: 4, eventFailures: 12, firstFailureAt: 0, lastSuccessAt: 0 }, H).nextAttemptAt).toBe(H + 15 * M);
    expect(afterFailure({ failures: 1, eventFailures: 13, firstFailureAt: H, lastSuccessAt: H }, H).pause).toBeNull();
  });
});
