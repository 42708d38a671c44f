import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

/** Per-integration POST /sync quota (migration 2026_11_22_0021_sync). */
export interface SyncQuotaTable {
  integration_id: number;
  /** Asia/Kolkata day that `calls` counts, `YYYY-MM-DD`. */
  day: string;
  calls: number;
  last_accepted_at: Timestamp | null;
}

/** An accepted sync, worked through in the background property by property. */
export interface SyncJobsTable {
  id: Generated<number>;
  integration_id: number;
  property_ids: number[];
  /** Normalised kinds (`availability.changed`, …). */
  types: string[];
  next_index: Generated<number>;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** Tables owned by the sync module. */
export interface SyncTables {
  sync_quota: SyncQuotaTable;
  sync_jobs: SyncJobsTable;
}
