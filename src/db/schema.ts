import type { ColumnType } from 'kysely';
import type { BookingTables } from '../modules/bookings/bookings.tables.js';
import type { CalendarTables } from '../modules/calendar/calendar.tables.js';
import type { ClockTables } from '../modules/clock/clock.tables.js';
import type { EventTables } from '../modules/events/events.tables.js';
import type { IntegrationTables } from '../modules/integrations/integrations.tables.js';
import type { LeaseTables } from '../modules/leases/leases.tables.js';
import type { JobTables } from '../modules/jobs/jobs.tables.js';
import type { PropertyTables } from '../modules/properties/properties.tables.js';
import type { SyncTables } from '../modules/sync/sync.tables.js';
import type { WebhookTables } from '../modules/webhooks/webhooks.tables.js';
import type { HttpTables } from '../http/http.tables.js';
import type { AlertTables } from '../modules/alerts/alerts.tables.js';

/** Timestamps are written as Date and read back as Date. */
export type Timestamp = ColumnType<Date, Date, Date>;

/**
 * Every table. Each module declares its own tables in `<module>.tables.ts` and its own dated
 * migrations; `properties` starts in the foundation (the event log needs it) and is widened there.
 */
export type DB = IntegrationTables &
  PropertyTables &
  CalendarTables &
  BookingTables &
  EventTables &
  WebhookTables &
  LeaseTables &
  SyncTables &
  JobTables &
  ClockTables &
  HttpTables &
  AlertTables;

/**
 * The one module that owns each table: only its code names the table in SQL, others call its
 * functions (docs/modules.md; test/architecture/boundaries.test.ts checks it). Typed over `DB`, so a
 * new table does not compile until it has an owner.
 */
export const TABLE_OWNERS = {
  brands: 'integrations',
  integrations: 'integrations',
  staff_tokens: 'integrations',
  properties: 'properties',
  units: 'properties',
  unit_aliases: 'properties',
  coverage: 'properties',
  calendar_versions: 'properties',
  calendar_nights: 'calendar',
  unit_blocks: 'calendar',
  unit_nights: 'calendar',
  meal_plans: 'calendar',
  booking_rules: 'calendar',
  horizon_marks: 'calendar',
  unit_hold_versions: 'calendar',
  bookings: 'bookings',
  host_booking_names: 'bookings',
  events: 'events',
  webhook_delivery_state: 'webhooks',
  delivery_attempts: 'webhooks',
  delivery_marks: 'webhooks',
  work_leases: 'leases',
  sync_quota: 'sync',
  sync_jobs: 'sync',
  job_runs: 'jobs',
  service_clock: 'clock',
  idempotency_keys: 'http',
  rate_limit_counters: 'http',
  staff_auth_known: 'http',
  alert_notices: 'alerts',
} as const satisfies Record<keyof DB, string>;
