import { createHash } from 'node:crypto';
import { chmod, mkdir, open, readFile, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { replaceFile } from './replace-file.js';
import type { SyncStore } from './store.js';

export interface FileStoreOptions {
  /** Compact the journal into a new checkpoint once it grows past this many bytes. Default 8 MiB. */
  compactBytes?: number;
}

const CHECKPOINT = 'state.json';
const JOURNAL = 'journal.log';

/** The store holds guest data: only its owner may list the directory or read the files, whatever the umask. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * A durable store in a directory: a checkpoint (`state.json`) plus a journal (`journal.log`).
 *
 * - A commit appends one line, `<digest> <json batch>`, and fsyncs the journal before resolving.
 *   A line is one batch, so a batch is all there or not: a line torn by kill -9 or power loss
 *   fails its digest, and it and anything after it are cut off on the next load.
 * - When the journal passes `compactBytes`, the whole map is written to `state.json.tmp`, fsynced,
 *   renamed over `state.json` (the directory fsynced too), and only then is the journal emptied.
 *   A crash between the rename and the truncation replays a journal the checkpoint already holds;
 *   a batch only sets or deletes whole keys, so replaying it in order ends in the same map.
 * - The directory is kept 0700 and its files 0600 whatever the umask: a new directory and every
 *   file are chmod-ed after creation, and an existing store is tightened on load (a directory
 *   that is not the current user's own, or is shared with the sticky bit, is left as it is).
 */
export class FileStore implements SyncStore {
  private readonly data = new Map<string, unknown>();
  private journal: FileHandle | null = null;
  private journalBytes = 0;
  private broken: Error | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly compactBytes: number;

  constructor(
    readonly dir: string,
    options: FileStoreOptions = {},
  ) {
    this.compactBytes = options.compactBytes ?? 8 * 1024 * 1024;
  }

  async load(): Promise<Map<string, unknown>> {
    await privateDirectory(this.dir);
    const checkpointPath = path.join(this.dir, CHECKPOINT);
    const checkpoint = await readFile(checkpointPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (checkpoint !== null) await chmod(checkpointPath, FILE_MODE);
    if (checkpoint !== null) {
      for (const [key, value] of (JSON.parse(checkpoint) as { entries: Array<[string, unknown]> }).entries) this.data.set(key, value);
    }

    const journalPath = path.join(this.dir, JOURNAL);
    this.journal = await open(journalPath, 'a+', FILE_MODE);
    await this.journal.chmod(FILE_MODE);
    const bytes = await readFile(journalPath);
    let valid = 0;
    for (let start = 0; start < bytes.length;) {
      const end = bytes.indexOf(10, start);
      if (end < 0) break; // a line without its newline was torn
      const line = bytes.subarray(start, end).toString('utf8');
      const body = line.slice(17);
      if (line[16] !== ' ' || digest(body) !== line.slice(0, 16)) break;
      this.apply(JSON.parse(body) as Array<[string, unknown]>);
      start = end + 1;
      valid = start;
    }
    if (valid < bytes.length) {
      await this.journal.truncate(valid);
      await this.journal.sync();
    }
    this.journalBytes = valid;
    return new Map(this.data);
  }

  /** Commits one after another, whoever calls: a line must never interleave with another. */
  commit(batch: Array<[string, unknown]>): Promise<void> {
    const run = this.queue.then(() => this.append(batch));
    this.queue = run.catch(() => {});
    return run;
  }

  private async append(batch: Array<[string, unknown]>): Promise<void> {
    if (!this.journal) throw new Error('FileStore: load() first');
    if (batch.length === 0) return;
    if (this.broken) throw this.broken;
    const body = JSON.stringify(batch);
    const line = `${digest(body)} ${body}\n`;
    try {
      await this.journal.write(line);
      await this.journal.datasync();
    } catch (error) {
      // A partly written line would hide every later batch behind its bad digest on the next
      // load: cut the journal back to the last whole batch, or refuse all further commits.
      try {
        await this.journal.truncate(this.journalBytes);
      } catch {
        this.broken = new Error(`FileStore: the journal in ${this.dir} could not be restored after a failed write; restart to recover`);
      }
      throw error;
    }
    this.journalBytes += Buffer.byteLength(line);
    this.apply(batch);
    if (this.journalBytes > this.compactBytes) await this.compact();
  }

  /** Writes the whole map as a new checkpoint and empties the journal. */
  async compact(): Promise<void> {
    if (!this.journal) return;
    await replaceFile(path.join(this.dir, CHECKPOINT), JSON.stringify({ version: 1, entries: [...this.data] }));
    await this.journal.truncate(0);
    await this.journal.sync();
    this.journalBytes = 0;
  }

  async close(): Promise<void> {
    await this.queue;
    await this.journal?.close();
    this.journal = null;
  }

  /** Bytes in the journal now (for tests and metrics). */
  async journalSize(): Promise<number> {
    return (await stat(path.join(this.dir, JOURNAL))).size;
  }

  private apply(batch: Array<[string, unknown]>): void {
    for (const [key, value] of batch) {
      if (value === null) this.data.delete(key);
      else this.data.set(key, value);
    }
  }
}

/** Creates the directory (and missing parents) 0700, or tightens an existing one the user owns to 0700. */
async function privateDirectory(dir: string): Promise<void> {
  const created = await mkdir(dir, { recursive: true, mode: DIR_MODE });
  if (created !== undefined) {
    // mkdir's mode passes through the umask; chmod does not
    await chmod(dir, DIR_MODE);
    return;
  }
  const info = await stat(dir);
  const own = typeof process.getuid !== 'function' || info.uid === process.getuid();
  const sticky = (info.mode & 0o1000) !== 0;
  if ((info.mode & 0o077) !== 0 && own && !sticky) await chmod(dir, DIR_MODE);
}
