import os from 'node:os';
import type { Deps } from '../../deps.js';
import type { Claims, Lease } from '../leases/leases.claims.js';
import { OutcomeBuffer, pauseIntegration, recordAbandoned, recordEventFailure, recordPing, type Attempt } from './webhooks.outcomes.js';
import { pauseBeforeRetry } from './webhooks.policy.js';
import type { SendResult, Sender } from './webhooks.send.js';
import { loadDeliveryState, pendingEvents, type DeliveryState, type PendingEvent } from './webhooks.sql.js';
import { pingEvent, sendEvent, signEvent, targetOf, type Signed, type Target } from './webhooks.target.js';

/** Identifies this process in the attempt log. */
export const WORKER_NAME = `${os.hostname()}:${process.pid}`;

/** How a stream's run ended: claimed elsewhere, nothing to send, on its retry ladder or paused, queue empty, cut off. */
export type RunEnd = 'busy' | 'idle' | 'waiting' | 'drained' | 'stopped';

/** Stops a run from outside (shutdown, claim lost): the attempt in flight is cut off. */
export class RunControl {
  aborted = false;
  /** Cuts off the request in flight, when there is one. */
  cancel: (() => void) | null = null;

  abort(): void {
    this.aborted = true;
    this.cancel?.();
  }
}

/** What every stream of one worker shares. */
export interface StreamContext {
  deps: Deps;
  claims: Claims;
  sender: Sender;
  /** Events read per query; the next batch is read while this one is sent. */
  batchSize: number;
  stopping(): boolean;
}

type Ahead = Promise<[DeliveryState | undefined, PendingEvent[]]>;

/**
 * One integration's delivery under its lease: the pending events strictly in sequence order, the
 * next only after a 2xx, until the queue is empty, the integration waits on its retry ladder or is
 * paused (then it pings when due), or the run is cut off. Outcomes are written behind the sends
 * (OutcomeBuffer), each write fenced by the lease.
 */
export class StreamDelivery {
  private cursor = 0;
  /** The next batch and state, read while this batch is on the wire. */
  private ahead: Ahead | null = null;
  private readonly out: OutcomeBuffer;

  constructor(
    private readonly ctx: StreamContext,
    private readonly control: RunControl,
    private readonly lease: Lease,
    private readonly integrationId: number,
    private state: DeliveryState | undefined,
  ) {
    this.out = new OutcomeBuffer(ctx.deps, integrationId, WORKER_NAME, (state?.consecutive_failures ?? 0) > 0, lease);
  }

  async run(): Promise<RunEnd> {
    try {
      for (;;) {
        if (!this.live()) return 'stopped';
        const held = await this.holdBack();
        if (held === 'again') continue;
        if (held) return held;
        const batch = await this.nextBatch();
        if (batch.length === 0) return 'drained';
        const sent = await this.sendBatch(await targetOf(this.ctx.deps, this.state!), batch);
        if (sent === 'stopped') return 'stopped';
        await this.refresh(sent === 'failed');
      }
    } finally {
      await this.out.drain();
    }
  }

  private live(): boolean {
    return !this.ctx.stopping() && !this.control.aborted && this.ctx.claims.holds(this.lease);
  }

  private reload(): Promise<DeliveryState | undefined> {
    return loadDeliveryState(this.ctx.deps.db, this.integrationId);
  }

  /** Why the stream may not send now (null: it may); `again` after a ping that answered. */
  private async holdBack(): Promise<'idle' | 'waiting' | 'again' | null> {
    let state = this.state;
    if (!state || state.status === 'disabled' || !state.webhook_url) return 'idle';
    // a read taken while a flush was resetting the counters may still show them
    if (this.out.succeeded) state = this.state = { ...state, consecutive_failures: 0, next_attempt_at: null };
    const now = this.ctx.deps.clock.nowMs();
    if (state.next_attempt_at && state.next_attempt_at.getTime() > now) return 'waiting';
    if (state.status === 'paused') {
      if (!(await this.ping(state))) return 'waiting';
      this.state = await this.reload();
      this.cursor = 0;
      return 'again';
    }
    const history = {
      failures: state.consecutive_failures,
      firstFailureAt: state.first_failure_at?.getTime() ?? null,
      lastSuccessAt: state.last_success_at?.getTime() ?? null,
      lastFailureAt: state.last_failure_at?.getTime() ?? null,
    };
    if (!pauseBeforeRetry(history, now)) return null;
    await pauseIntegration(this.ctx.deps, { integrationId: this.integrationId, slug: state.slug }, 'delivery_failures', this.lease);
    return 'waiting';
  }

  /** A paused integration's ping; a 2xx resumes it. */
  private async ping(state: DeliveryState): Promise<boolean> {
    const { deps, sender } = this.ctx;
    const at = deps.clock.nowMs();
    const { id, body } = pingEvent(state, at);
    const result = await sendEvent(deps, sender, await targetOf(deps, state), { id, body, cancellable: (cancel) => (this.control.cancel = cancel) });
    if (this.control.aborted) return false;
    const attempt: Attempt = { eventId: id, eventType: 'ping', sequence: null, attempt: null, at, result };
    return recordPing(deps, { integrationId: state.id, slug: state.slug }, WORKER_NAME, attempt, this.lease);
  }

  private async nextBatch(): Promise<PendingEvent[]> {
    const { deps, batchSize } = this.ctx;
    const batch = this.ahead ? (await this.ahead)[1] : await pendingEvents(deps.db, this.integrationId, this.cursor, batchSize);
    this.ahead = null;
    if (batch.length === batchSize) {
      const after = batch[batch.length - 1].sequence;
      this.ahead = Promise.all([this.reload(), pendingEvents(deps.db, this.integrationId, after, batchSize)]);
      this.ahead.catch(() => {}); // awaited later, or dropped after a failure
    }
    return batch;
  }

  /** Sends the batch in order: `failed` at the first failure (recorded), `stopped` when cut off. */
  private async sendBatch(target: Target, batch: PendingEvent[]): Promise<'sent' | 'failed' | 'stopped'> {
    const { deps } = this.ctx;
    const where = { integrationId: this.integrationId, slug: target.slug };
    let presigned: Signed | null = null;
    for (let i = 0; i < batch.length; i++) {
      const event = batch[i];
      if (!this.live()) return 'stopped';
      if (!target.types.has(event.type)) {
        // the subscription changed after it was recorded: not delivered any more
        this.out.skipped(event.sequence);
        this.cursor = event.sequence;
        continue;
      }
      const at = deps.clock.nowMs();
      const sending = sendEvent(deps, this.ctx.sender, target, { id: event.id, body: event.body, presigned, cancellable: (cancel) => (this.control.cancel = cancel) });
      presigned = null;
      // The next event is signed while this one is on the wire (the two HMACs of a 3.7 KB body
      // were ~10 % of the stream's CPU): in the loop's check phase, once this request has been
      // written. It goes only once this one is answered 2xx; an answer that comes first leaves
      // it to be signed as it is sent.
      const following = batch[i + 1];
      const signing =
        following && target.url && target.types.has(following.type)
          ? setImmediate(() => (presigned = signEvent(deps, target, following.id, following.body)))
          : null;
      const result: SendResult = await sending;
      if (signing) clearImmediate(signing);
      const attempt: Attempt = { eventId: event.id, eventType: event.type, sequence: event.sequence, attempt: event.attempts + 1, at, result };
      if (this.control.aborted) {
        // outcome unknown: it stays pending and goes again; the attempt log says so
        await recordAbandoned(deps, where, WORKER_NAME, attempt).catch(() => {});
        return 'stopped';
      }
      if (!result.ok) {
        await this.out.drain();
        await recordEventFailure(deps, where, WORKER_NAME, event.sequence, attempt, this.lease);
        this.out.failed();
        return 'failed';
      }
      this.out.delivered(event.sequence, attempt);
      this.cursor = event.sequence;
      await this.out.maybeFlush();
    }
    return 'sent';
  }

  /** The state for the next round: read again after a failure, else the one read ahead with the next batch. */
  private async refresh(failed: boolean): Promise<void> {
    if (failed) {
      this.ahead = null;
      this.state = await this.reload();
      this.cursor = 0;
    } else if (this.ahead) {
      this.state = (await this.ahead)[0];
    } else {
      await this.out.maybeFlush();
      this.state = await this.reload();
    }
  }
}
