import type { AliasableExpression, Kysely, Transaction } from 'kysely';
import type { Config } from '../../config.js';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';

type Q = Kysely<DB> | Transaction<DB>;

/** An integration's delivery figures as GET /me shows them, one row per integration. */
export interface DeliveryFigures {
  integration_id: number;
  undelivered: number;
  cursor: number;
  consecutive_failures: number;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  paused_at: Date | null;
  paused_reason: string | null;
  next_attempt_at: Date | null;
}

/**
 * What integrations uses of the modules above it (events, webhooks, properties), which it may not import:
 * the wiring (`src/runtime.ts`) fills `Deps.integrationPorts` with their functions.
 */
export interface IntegrationPorts {
  /** webhooks: why a webhook URL staff set is refused (its SSRF policy under this configuration), or null. */
  webhookUrlProblem(url: string, config: Pick<Config, 'webhookAllowInsecure' | 'webhookAllowPrivate'>): string | null;
  /** webhooks: a new integration's delivery state, in the transaction that creates the integration. */
  insertDeliveryState(trx: Transaction<DB>, integrationId: number): Promise<void>;
  /** webhooks: makes the integration active and restarts delivery from the queue's head; false when it was not in `from`. */
  resumeDelivery(trx: UnitOfWork, integrationId: number, options: { at: Date; from: Array<'active' | 'paused' | 'disabled'> }): Promise<boolean>;
  /** webhooks: every integration's delivery figures, as a derived table GET /me joins. */
  deliveryStateSource(db: Q): AliasableExpression<DeliveryFigures>;
  /** webhooks: the first pending event above the delivery cursor and its failed attempts (the staff view). */
  pendingHead(db: Q, integrationId: number, cursor: number): Promise<{ sequence: number; attempts: number } | undefined>;
  /** events: wakes delivery for integrations whose sending changed (a webhook URL set, a resume), in every process. */
  wakeDelivery(deps: Pick<Deps, 'db' | 'signals' | 'engine'>, integrationIds: number[]): Promise<void>;
  /** properties: the coverage rows, as a derived table GET /me counts. */
  coverageSource(db: Q): AliasableExpression<{ integration_id: number }>;
}
