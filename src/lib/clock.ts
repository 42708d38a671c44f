/**
 * The service clock. Every time rule (retry ladder, pauses, 24 h windows, retention, rate-limit
 * windows, signature timestamps) reads this object, never the system time directly, so that the
 * test clock can move the whole service forward.
 */
export interface Clock {
  /** Current service time. */
  now(): Date;
  /** Milliseconds since the epoch, on the service clock. */
  nowMs(): number;
  /** Seconds the service clock runs ahead of real time. */
  offsetSeconds(): number;
  /** Replace the offset (test clock only; the caller persists it). */
  setOffsetSeconds(seconds: number): void;
}

export function createClock(initialOffsetSeconds = 0): Clock {
  let offsetMs = initialOffsetSeconds * 1000;
  const nowMs = () => Date.now() + offsetMs;
  return {
    now: () => new Date(nowMs()),
    nowMs,
    offsetSeconds: () => offsetMs / 1000,
    setOffsetSeconds(seconds: number) {
      offsetMs = seconds * 1000;
    },
  };
}
