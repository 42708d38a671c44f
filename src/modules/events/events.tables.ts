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
   * Whether the event is to be delivered, decided when it is recorded (`skipped`: its kind was not
   * subscribed). Never updated: what happened on its way is the webhooks module's (delivery
   * cursor, delivery_marks, attempts).
   */
  delivery_status: 'pending' | 'skipped';
}

export interface EventTables {
  events: EventsTable;
}
