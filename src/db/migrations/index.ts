import type { Migration } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.js';
import * as properties from './2026_11_22_0002_properties.js';
import * as jobRuns from './2026_11_22_0003_job_runs.js';
import * as idempotency from './2026_11_22_0004_idempotency.js';
import * as calendar from './2026_11_22_0010_calendar.js';
import * as webhookDelivery from './2026_11_22_0020_webhook_delivery.js';
import * as sync from './2026_11_22_0021_sync.js';
import * as rateLimits from './2026_11_22_0030_rate_limits.js';
import * as bookings from './2026_11_22_0040_bookings.js';
import * as staffTokens from './2026_11_24_0201_staff_tokens.js';
import * as webhookDeliveryState from './2026_11_24_0301_webhook_delivery_state.js';
import * as eventsTypeIndex from './2026_11_24_0601_events_type_index.js';
import * as calendarVersions from './2026_11_25_0101_calendar_versions.js';
import * as unitHoldVersions from './2026_11_25_0201_unit_hold_versions.js';
import * as deliveryCursor from './2026_11_25_0301_delivery_cursor.js';
import * as unitAliasesUnitIndex from './2026_11_27_0101_unit_aliases_unit_index.js';
import * as brandSandbox from './2026_11_28_0401_brand_sandbox.js';

import * as staffTokenScopes from './2026_11_28_0301_staff_token_scopes.js';

import * as workLeases from './2026_11_28_0201_work_leases.js';
import * as deliveryMarks from './2026_11_28_0501_delivery_marks.js';
import * as alertNotices from './2026_11_29_0101_alert_notices.js';
import * as hostIdsPerBrand from './2026_11_29_0101_host_ids_per_brand.js';
import * as staffAuthKnown from './2026_11_29_0201_staff_auth_known.js';
import * as brandClocks from './2026_11_29_0301_brand_clocks.js';
import * as attemptPrivateAnswer from './2026_11_29_0401_attempt_private_answer.js';

/**
 * Every migration, by dated name (applied in name order). Listed here rather than read from the
 * folder so that the same list works from source (tests, tsx) and from the compiled build.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_properties': properties,
  '2026_11_22_0003_job_runs': jobRuns,
  '2026_11_22_0004_idempotency': idempotency,
  '2026_11_22_0010_calendar': calendar,
  '2026_11_22_0020_webhook_delivery': webhookDelivery,
  '2026_11_22_0021_sync': sync,
  '2026_11_22_0030_rate_limits': rateLimits,
  '2026_11_22_0040_bookings': bookings,
  '2026_11_24_0201_staff_tokens': staffTokens,
  '2026_11_24_0301_webhook_delivery_state': webhookDeliveryState,
  '2026_11_24_0601_events_type_index': eventsTypeIndex,
  '2026_11_25_0101_calendar_versions': calendarVersions,
  '2026_11_25_0201_unit_hold_versions': unitHoldVersions,
  '2026_11_25_0301_delivery_cursor': deliveryCursor,
  '2026_11_27_0101_unit_aliases_unit_index': unitAliasesUnitIndex,
  '2026_11_28_0201_work_leases': workLeases,
  '2026_11_28_0301_staff_token_scopes': staffTokenScopes,
  '2026_11_28_0401_brand_sandbox': brandSandbox,
  '2026_11_28_0501_delivery_marks': deliveryMarks,
  '2026_11_29_0101_alert_notices': alertNotices,
  '2026_11_29_0101_host_ids_per_brand': hostIdsPerBrand,
  '2026_11_29_0201_staff_auth_known': staffAuthKnown,
  '2026_11_29_0301_brand_clocks': brandClocks,
  '2026_11_29_0401_attempt_private_answer': attemptPrivateAnswer,
};
