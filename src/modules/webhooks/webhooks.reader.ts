import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { loadDeliveryState, pendingEvents, type DeliveryState, type PendingEvent } from './webhooks.sql.js';

type Ahead = Promise<[DeliveryState | undefined, PendingEvent[]]>;

/**
 * What one stream reads: the integration's delivery state, and its pending events in batches from
 * the cursor, the next batch (with the state) read while this one is on the wire.
 */
export class StreamReader {
  /** The last sequence this stream is done with (delivered or skipped); 0: from the delivery cursor. */
  cursor = 0;
  private ahead: Ahead | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly integrationId: number,
    private readonly batchSize: number,
  ) {}

  state(): Promise<DeliveryState | undefined> {
    return loadDeliveryState(this.db, this.integrationId);
  }

  /** The next pending events after the cursor; a full batch starts reading the one after it. */
  async batch(): Promise<PendingEvent[]> {
    const batch = this.ahead ? (await this.ahead)[1] : await pendingEvents(this.db, this.integrationId, this.cursor, this.batchSize);
    this.ahead = null;
    if (batch.length === this.batchSize) {
      const after = batch[batch.length - 1].sequence;
      this.ahead = Promise.all([this.state(), pendingEvents(this.db, this.integrationId, after, this.batchSize)]);
      this.ahead.catch(() => {}); // awaited later, or dropped after a failure
    }
    return batch;
  }

  /** The state read with the next batch, when one was read ahead. */
  async stateAhead(): Promise<{ state: DeliveryState | undefined } | null> {
    return this.ahead ? { state: (await this.ahead)[0] } : null;
  }

  /** After a failure or a ping: read again from the delivery cursor, nothing read ahead. */
  restart(): void {
    this.ahead = null;
    this.cursor = 0;
  }
}
