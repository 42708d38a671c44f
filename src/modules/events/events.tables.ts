import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

export interface EventsTable {
  integration_id: number;
  sequence: number;
  id: string;
  type: string;
  origin: 'partner' | 'doorloom';
  property_id: number | null;
  window_from: string | null;
  window_to: string | null;
  body: string;
  created_at: Timestamp;
  /**
   * As recorded, and `skipped` when a send finds the kind unsubscribed. A delivered event keeps
   * `pending`: at or below its integration's delivery cursor it was delivered (webhooks.sql.ts,
   * eventDeliveryColumns); `delivered` and `delivered_at` are set only on events delivered before
   * the delivery_cursor migration.
   */
  delivery_status: 'pending' | 'delivered' | 'skipped';
  /** Failed attempts while pending (a delivered event's count adds its successful one). */
  attempts: Generated<number>;
  delivered_at: Timestamp | null;
}

export interface EventTables {
  events: EventsTable;
}
