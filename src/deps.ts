import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Engine } from './db/database.js';
import type { DB } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secrets.js';
import type { Metrics } from './modules/metrics/metrics.js';

/**
 * What the service's parts are given: plain parameters, no container.
 * `signals` wakes background work in this process: `events` after a commit that recorded events to send
 * (payload: integration ids), `recorded` after a commit that recorded events (payload: counts by kind),
 * `clock` after the test clock moved.
 */
export interface Deps {
  config: Config;
  db: Kysely<DB>;
  engine: Engine;
  clock: Clock;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  signals: EventEmitter;
  /** Prometheus metrics (GET /metrics); absent where nothing is measured. */
  metrics?: Metrics;
}
