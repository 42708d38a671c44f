import type { Timestamp } from '../db/schema.js';

/** One Idempotency-Key of an integration (migration 0004). */
export interface IdempotencyKeysTable {
  integration_id: number;
  key: string;
  fingerprint: string;
  request_method: string;
  request_path: string;
  state: 'in_progress' | 'completed';
  claim_token: string;
  claimed_at: Timestamp;
  created_at: Timestamp;
  expires_at: Timestamp;
  response_status: number | null;
  response_content_type: string | null;
  response_body: string | null;
}

/** A fixed-window request counter (migration 0030, src/http/rate-limit.ts); PostgreSQL only. */
export interface RateLimitCountersTable {
  window_minute: number;
  bucket: string;
  hits: number;
}

/** A staff credential that verified from an address (migration 2026_11_29_0201, src/http/staff-lockout.ts). */
export interface StaffAuthKnownTable {
  address: string;
  credential_hash: string;
  verified_at: Timestamp;
}

/** Tables of the cross-cutting HTTP parts (idempotency, rate limits, the staff lockout). */
export interface HttpTables {
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_counters: RateLimitCountersTable;
  staff_auth_known: StaffAuthKnownTable;
}
