import { isDatabaseUnavailable } from './database.js';

/**
 * Runs one kind of small statement one at a time per process, merging the calls that queue while
 * one runs into the next. Under load many round trips become few; a call that finds nothing
 * running waits for nothing but its own statement. `write` answers one output per input, in
 * order; when it throws, every call of that batch fails with the error, and when the error says
 * the database is unavailable, so do the calls that queued meanwhile (they would wait out the
 * same time limits again).
 */
export class StatementBatcher<In, Out> {
  private pending: Array<{ input: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly write: (inputs: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
  ) {}

  run(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (!this.writing) void this.writeAll();
    });
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.maxBatch);
        try {
          const outs = await this.write(batch.map((p) => p.input));
          batch.forEach((p, i) => p.resolve(outs[i]));
        } catch (error) {
          const failed = isDatabaseUnavailable(error) ? [...batch, ...this.pending.splice(0)] : batch;
          for (const p of failed) p.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
