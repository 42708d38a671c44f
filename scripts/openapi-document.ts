import { randomBytes } from 'node:crypto';
import pino from 'pino';
import type { Kysely } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { TableChanges } from '../src/db/changes.js';
import type { DB } from '../src/db/schema.js';
import { createClock } from '../src/lib/clock.js';
import { createSecretBox } from '../src/lib/secrets.js';
import { createRuntimeState } from '../src/runtime.js';
import { Signals } from '../src/signals.js';

/** The OpenAPI document as the code describes it; building the app needs no database. */
export async function generateOpenApi(): Promise<string> {
  const db = null as unknown as Kysely<DB>;
  const log = pino({ level: 'silent' });
  const app = await buildApp({
    config: loadConfig({ DATABASE_URL: 'memory:', LOG_LEVEL: 'silent' }),
    db,
    engine: 'pglite',
    clock: createClock(0),
    secrets: createSecretBox(randomBytes(32)),
    log,
    signals: new Signals(),
    // Nothing here is used: no request is served.
    state: createRuntimeState({ db, engine: 'pglite', changes: new TableChanges() }, log),
  });
  await app.ready();
  const document = JSON.stringify(app.swagger(), null, 2) + '\n';
  await app.close();
  return document;
}
