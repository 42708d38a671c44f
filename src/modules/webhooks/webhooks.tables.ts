import type { Generated } from 'kysely';
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
  worker: string;
}

/** Tables owned by the webhooks module. */
export interface WebhookTables {
  delivery_attempts: DeliveryAttemptsTable;
}
