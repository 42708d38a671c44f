import type { ColumnType, Generated } from 'kysely';
import type { BookingTables } from '../modules/bookings/bookings.tables.js';
import type { CalendarTables } from '../modules/calendar/calendar.tables.js';
import type { PropertyTables } from '../modules/properties/properties.tables.js';
import type { WebhookTables } from '../modules/webhooks/webhooks.tables.js';
import type { HttpTables } from '../http/http.tables.js';
import type { SyncTables } from '../modules/sync/sync.tables.js';

/** Timestamps are written as Date and read back as Date. */
export type Timestamp = ColumnType<Date, Date, Date>;

export interface ServiceClockTable {
  id: number;
  offset_seconds: number;
}

export interface StaffTokensTable {
  id: Generated<number>;
  token_hash: string;
  name: string;
  kind: 'bootstrap' | 'named';
  /** admin: everything, minting and revoking staff tokens included; operator: everything else. */
  scope: 'admin' | 'operator';
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** Authenticates no more from then on; null: never expires. */
  expires_at: Timestamp | null;
}

export interface BrandsTable {
  id: Generated<number>;
  name: string;
  plan_active: Generated<boolean>;
  /** Its integrations may call the sandbox test-helper routes. */
  sandbox: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IntegrationsTable {
  id: Generated<number>;
  brand_id: number;
  slug: string;
  name: string;
  status: Generated<'active' | 'paused' | 'disabled'>;
  api_key_hash: string;
  webhook_url: string | null;
  webhook_event_types: string[];
  webhook_timeout_seconds: Generated<number>;
  webhook_secret_enc: string;
  webhook_secret_prev_enc: string | null;
  webhook_secret_prev_expires_at: Timestamp | null;
  horizon_days: Generated<number>;
  last_sequence: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PropertiesBaseTable {
  id: Generated<number>;
  brand_id: number;
  name: string;
  status: Generated<'active' | 'inactive' | 'archived'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CoverageTable {
  integration_id: number;
  property_id: number;
  external_id: string | null;
  created_at: Timestamp;
}

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

export interface JobRunsTable {
  name: string;
  day: string;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface CoreTables {
  job_runs: JobRunsTable;
  service_clock: ServiceClockTable;
  staff_tokens: StaffTokensTable;
  brands: BrandsTable;
  integrations: IntegrationsTable;
  coverage: CoverageTable;
  events: EventsTable;
}

/**
 * Every table. Each module declares its own tables in `<module>.tables.ts` and its own dated
 * migrations; `properties` starts in the foundation (the event log needs it) and is widened there.
 */
export type DB = CoreTables & PropertyTables & CalendarTables & BookingTables & WebhookTables & HttpTables & SyncTables;
