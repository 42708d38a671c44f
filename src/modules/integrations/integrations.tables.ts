import type { Generated } from 'kysely';
import type { Timestamp } from '../../db/schema.js';

export interface BrandsTable {
  id: Generated<number>;
  name: string;
  plan_active: Generated<boolean>;
  /** Its integrations may call the sandbox test-helper routes. */
  sandbox: Generated<boolean>;
  /** Seconds the brand's clock runs ahead of the service clock (sandbox only; src/lib/clock.ts). */
  clock_offset_seconds: Generated<number>;
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

export interface IntegrationTables {
  brands: BrandsTable;
  integrations: IntegrationsTable;
  staff_tokens: StaffTokensTable;
}
