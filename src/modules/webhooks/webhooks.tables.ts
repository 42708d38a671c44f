import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

/** One delivery attempt, event or ping (migration 2026_11_22_0020_webhook_delivery). */
export interface DeliveryAttemptsTable {
  id: Generated<number>;
  integration_id: number;
  event_id: string;
  event_type: string;
  sequence: number | null;
  attempt: number | null;
  attempted_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  success: boolean;
  response_body: string | null;
  /** Answered from a non-public address: partners see the status only (migration 2026_11_29_0401). */
  private_answer: Generated<boolean>;
  worker: string;
}

/**
 * An integration's delivery state (migration 2026_11_24_0301_webhook_delivery_state); its
 * configuration and status stay on `integrations`. One row per integration, made with it.
 */
export interface WebhookDeliveryStateTable {
  integration_id: number;
  /**
   * The highest sequence that left pending (delivered or skipped): every event at or below it has,
   * and a delivered event's status is this cursor's, not its row's.
   */
  cursor: Generated<number>;
  consecutive_failures: Generated<number>;
  first_failure_at: Timestamp | null;
  last_failure_at: Timestamp | null;
  last_success_at: Timestamp | null;
  paused_at: Timestamp | null;
  paused_reason: string | null;
  next_attempt_at: Timestamp | null;
  /** The integration's pending events, counted in the transactions that add or settle them. */
  undelivered: Generated<number>;
}

/**
 * What happened to one event on its way (migration 2026_11_28_0501_delivery_marks): its failed
 * attempts, and whether it was found unsubscribed when its turn came. Most events never get one.
 */
export interface DeliveryMarksTable {
  integration_id: number;
  sequence: number;
  skipped: Generated<boolean>;
  failures: Generated<number>;
  marked_at: ColumnType<Date, Date | undefined, Date>;
}

/** Tables owned by the webhooks module. */
export interface WebhookTables {
  delivery_attempts: DeliveryAttemptsTable;
  delivery_marks: DeliveryMarksTable;
  webhook_delivery_state: WebhookDeliveryStateTable;
}
