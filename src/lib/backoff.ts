/**
 * Capped exponential backoff with jitter, for work that retries against a resource that may be
 * down (the database): the first retry comes quickly, later ones no more often than `maxMs`.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly baseMs = 250,
    private readonly maxMs = 10_000,
  ) {}

  /** Records a failure; answers how long to wait before the next try. */
  failed(): number {
    this.failures++;
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures - 1, 20));
    // ±20 %: processes that lost the database together do not all come back in the same instant
    return Math.round(ceiling * (0.8 + Math.random() * 0.4));
  }

  succeeded(): void {
    this.failures = 0;
  }

  get failing(): boolean {
    return this.failures > 0;
  }

  get failureCount(): number {
    return this.failures;
  }
}

interface GateLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * The guard of a background loop that ticks on a timer: after a failure the ticks are skipped
 * until the backoff delay has passed (wall time, not the service clock), so a database outage
 * costs one try (and one log line) per delay instead of one per tick. The first failure, every
 * tenth after it and the recovery are logged.
 */
export class FailureGate {
  private until = 0;
  private readonly backoff: Backoff;

  constructor(
    private readonly what: string,
    private readonly log: GateLog,
    baseMs = 500,
    maxMs = 30_000,
  ) {
    this.backoff = new Backoff(baseMs, maxMs);
  }

  /** False while backing off: skip this tick. */
  get open(): boolean {
    return Date.now() >= this.until;
  }

  failed(error: unknown): void {
    const delay = this.backoff.failed();
    this.until = Date.now() + delay;
    const n = this.backoff.failureCount;
    if (n === 1 || n % 10 === 0) this.log.warn({ err: error, failures: n, retryInMs: delay }, `${this.what} failed; backing off`);
  }

  succeeded(): void {
    if (this.backoff.failing) this.log.info({ failures: this.backoff.failureCount }, `${this.what} resumed`);
    this.backoff.succeeded();
    this.until = 0;
  }
}
