import type { Timestamp } from '../../db/schema.js';

/**
 * A claim on background work (migration 2026_11_28_0201_work_leases), see leases.claims.ts.
 * `holder` names the process, and the session lock that proves it alive when it has one
 * (`host:pid:tag@lock:<key>`, see holderName).
 */
export interface WorkLeasesTable {
  kind: string;
  id: number;
  holder: string;
  token: string;
  expires_at: Timestamp;
}

/** Tables owned by the leases module. */
export interface LeaseTables {
  work_leases: WorkLeasesTable;
}
