import type { SyncStore } from './store.js';

/**
 * A store in process memory. Its contents outlive the engine that used it, so a test can stop one
 * engine and start another on the same store to play a restart.
 */
export class MemoryStore implements SyncStore {
  private readonly data = new Map<string, unknown>();

  async load(): Promise<Map<string, unknown>> {
    return new Map(this.data);
  }

  async commit(batch: Array<[string, unknown]>): Promise<void> {
    for (const [key, value] of batch) {
      if (value === null) this.data.delete(key);
      else this.data.set(key, value);
    }
  }

  async close(): Promise<void> {}
}
