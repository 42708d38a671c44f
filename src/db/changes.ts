import type { DB } from './schema.js';

/**
 * Versions of the tables this process's caches read (GET /me reads integrations, brands, events,
 * coverage and webhook_delivery_state), moved once a write of them has committed and before the
 * writer answers (a unit of work's `touched`, or the writer of a single statement): whoever has
 * heard of a write is never served a cache entry that predates it. Writes of other processes
 * sharing a PostgreSQL database are not seen here (those caches expire on their own).
 */
export class TableChanges {
  private readonly counts = new Map<keyof DB, number>();

  /** The combined version of `tables`: changes whenever one of them is noted. */
  version(tables: readonly (keyof DB)[]): number {
    let sum = 0;
    for (const table of tables) sum += this.counts.get(table) ?? 0;
    return sum;
  }

  /** Called after the commit of a write of `tables`. */
  wrote(tables: Iterable<keyof DB>): void {
    for (const table of tables) this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }
}
