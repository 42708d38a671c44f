import { dataClock } from '../../lib/clock.js';
import os from 'node:os';
import type { Deps } from '../../deps.js';
import type { Claims, Lease } from '../leases/leases.claims.js';
import { OutcomeBuffer, pauseIntegration, recordAbandoned, recordEventFailure, recordPing, type Attempt } from './webhooks.outcomes.js';
import { pauseBeforeRetry } from './webhooks.policy.js';
import type { SendResult, Sender } from './webhooks.send.js';
import { StreamReader } from './webhooks.reader.js';
import type { DeliveryState, PendingEvent } from './webhooks.sql.js';
import { pingEvent, sendEvent, sendSigningNext, targetOf, type Signed, type Target } from './webhooks.target.js';

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

/**
 * One integration's delivery under its lease: the pending events strictly in sequence order, the
 * next only after a 2xx, until the queue is empty, the integration waits on its retry ladder or is
 * paused (then it pings when due), or the run is cut off. Outcomes are written behind the sends
 * (OutcomeBuffer), each write fenced by the lease.
 */
export class StreamDelivery {
  private readonly read: StreamReader;
  private readonly out: OutcomeBuffer;
  private readonly cancellable = (cancel: (() => void) | null) => (this.control.cancel = cancel);

  constructor(
    private readonly ctx: StreamContext,
    private readonly control: RunControl,
    private readonly lease: Lease,
    private readonly integrationId: number,
    private state: DeliveryState | undefined,
  ) {
    this.read = new StreamReader(ctx.deps.db, integrationId, ctx.batchSize);
    this.out = new OutcomeBuffer(ctx.deps, integrationId, WORKER_NAME, (state?.consecutive_failures ?? 0) > 0, lease);
  }

  async run(): Promise<RunEnd> {
    try {
      for (;;) {
        if (!this.live()) return 'stopped';
        const held = await this.holdBack();
        if (held === 'again') continue;
        if (held) return held;
        const batch = await this.read.batch();
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

  private clock() {
    return dataClock(this.ctx.deps.clock, 'deliveryRetries', { integrationId: this.integrationId });
  }

  /** Why the stream may not send now (null: it may); `again` after a ping that answered. */
  private async holdBack(): Promise<'idle' | 'waiting' | 'again' | null> {
    let state = this.state;
    if (!state || state.status === 'disabled' || !state.webhook_url) return 'idle';
    // a read taken while a flush was resetting the counters may still show them
    if (this.out.succeeded) state = this.state = { ...state, consecutive_failures: 0, next_attempt_at: null };
    // The retry ladder, the pause and the attempts' times run on the brand's clock; signatures on the service's.
    const now = this.clock().nowMs();
    if (state.next_attempt_at && state.next_attempt_at.getTime() > now) return 'waiting';
    if (state.status === 'paused') {
      if (!(await this.ping(state))) return 'waiting';
      this.read.restart();
      this.state = await this.read.state();
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
    const at = this.clock().nowMs();
    const { id, body } = pingEvent(state, at);
    const result = await sendEvent(deps, sender, await targetOf(deps, state), { id, body, cancellable: this.cancellable });
    if (this.control.aborted) return false;
    const attempt: Attempt = { eventId: id, eventType: 'ping', sequence: null, attempt: null, at, result };
    return recordPing(deps, { integrationId: state.id, slug: state.slug }, WORKER_NAME, attempt, this.lease);
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
        this.read.cursor = event.sequence;
        continue;
      }
      const at = this.clock().nowMs();
      const sent = await sendSigningNext(
        deps,
        this.ctx.sender,
        target,
        { id: event.id, body: event.body, presigned, cancellable: this.cancellable },
        batch[i + 1],
      );
      const result: SendResult = sent.result;
      presigned = sent.presigned;
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
      this.read.cursor = event.sequence;
      await this.out.maybeFlush();
    }
    return 'sent';
  }

  /** The state for the next round: read again after a failure, else the one read ahead with the next batch. */
  private async refresh(failed: boolean): Promise<void> {
    if (failed) {
      this.read.restart();
      this.state = await this.read.state();
      return;
    }
    const ahead = await this.read.stateAhead();
    if (ahead) {
      this.state = ahead.state;
    } else {
      await this.out.maybeFlush();
      this.state = await this.read.state();
    }
  }
}
