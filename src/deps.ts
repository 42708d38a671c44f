import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { TableChanges } from './db/changes.js';
import type { Engine } from './db/database.js';
import type { DB } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secrets.js';
import type { AuthCache } from './modules/integrations/integrations.auth.js';
import type { IdempotencyStatements } from './http/idempotency.js';
import type { CounterStore } from './http/rate-limit.store.js';
import type { KnownCredentials } from './http/rate-limit.staff.js';
import type { VerifiedFrom } from './http/staff-lockout.js';
import type { SnapshotCache } from './modules/calendar/calendar.snapshot-cache.js';
import type { StaffTokenUses } from './modules/integrations/staff-tokens.service.js';
import type { Metrics } from './lib/metrics.js';
import type { Signals } from './signals.js';

/** What the service's parts are given: plain parameters, no container. */
export interface Deps {
  config: Config;
  db: Kysely<DB>;
  engine: Engine;
  clock: Clock;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  /** Wakes background work in this process (names and payloads: src/signals.ts). */
  signals: Signals;
  /** Prometheus metrics (GET /metrics); absent where nothing is measured. */
  metrics?: Metrics;
  /** This runtime's process state, built once by createRuntime. */
  state: RuntimeState;
}

/**
 * Caches and counters that live as long as a runtime (one database handle in one process). Every
 * app built on the same Deps shares them; another runtime (a test's second "process") has its own.
 */
export interface RuntimeState {
  /** Versions of the tables GET /me reads, moved by their writers after each commit. */
  changes: TableChanges;
  /** API keys verified a moment ago. */
  authCache: AuthCache;
  /** Batched claim and completion statements of Idempotency-Keys. */
  idempotency: IdempotencyStatements;
  /** Request rate counters (a shared table on PostgreSQL). */
  rateCounters: CounterStore;
  /** When a staff token's use was last recorded. */
  staffTokenUses: StaffTokenUses;
  /** Staff credentials authenticated a moment ago: exempt from the lockout's advance count. */
  knownStaffCredentials: KnownCredentials;
  /** Staff credentials that verified from an address lately (exempt from that address's lockout). */
  staffVerifiedFrom: VerifiedFrom;
  /** Availability snapshots as sent, with the calendar version they were built at. */
  snapshots: SnapshotCache;
}
