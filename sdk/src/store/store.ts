/**
 * Where the sync engine keeps its mirror: a key-value map whose changes are committed in batches.
 * One batch holds everything one step of the engine produced (an event's state and the applied
 * sequence it advanced), so a batch is durable whole or not at all. Values are JSON and treated as
 * immutable once committed: the engine replaces a value, it never edits one in place.
 */
export interface SyncStore {
  /** Everything committed so far (empty on first use). Called once, before any commit. */
  load(): Promise<Map<string, unknown>>;
  /** Commits a batch atomically: `null` deletes the key. Resolves once the batch is durable. */
  commit(batch: Array<[key: string, value: unknown]>): Promise<void>;
  close(): Promise<void>;
}

export { MemoryStore } from './memory.js';
export { FileStore, type FileStoreOptions } from './file.js';
