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
