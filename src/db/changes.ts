/**
 * Versions of the tables this process's caches read (GET /me reads integrations, brands, events,
 * coverage and webhook_delivery_state), moved by the writers of those tables themselves once their
 * write has committed and before they answer: whoever has heard of a write is never served a
 * cache entry that predates it. Writes of other processes sharing a PostgreSQL database are not
 * seen here (those caches expire on their own).
 */
export class TableChanges {
  private readonly counts = new Map<string, number>();

  /** The combined version of `tables`: changes whenever one of them is noted. */
  version(tables: readonly string[]): number {
    let sum = 0;
    for (const table of tables) sum += this.counts.get(table) ?? 0;
    return sum;
  }

  /** Called by a writer of `tables` after its commit. */
  wrote(tables: Iterable<string>): void {
    for (const table of tables) this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }
}
