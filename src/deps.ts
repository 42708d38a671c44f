import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Engine } from './db/database.js';
import type { DB } from './db/schema.js';
import type { Clock } from './lib/clock.js';
import type { SecretBox } from './lib/secrets.js';

/**
 * What the service's parts are given: plain parameters, no container.
 * `signals` wakes background work in this process: `events` after a commit that recorded events to send
 * (payload: integration ids), `clock` after the test clock moved.
 */
export interface Deps {
  config: Config;
  db: Kysely<DB>;
  engine: Engine;
  clock: Clock;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  signals: EventEmitter;
}
