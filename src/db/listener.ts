import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../config.js';
import { Backoff } from '../lib/backoff.js';

/**
 * Where a process LISTENs: DATABASE_DIRECT_URL when set, else DATABASE_URL unless it is a
 * transaction pooler (a LISTEN there would sit on a server connection other clients reuse).
 * Null: no LISTEN (the embedded engine, or a transaction pooler without a direct URL).
 */
export function listenUrl(config: Pick<Config, 'databaseUrl' | 'databasePoolMode' | 'databaseDirectUrl'>): string | null {
  if (!config.databaseUrl?.startsWith('postgres')) return null;
  if (config.databaseDirectUrl) return config.databaseDirectUrl;
  return config.databasePoolMode === 'session' ? config.databaseUrl : null;
}

/** How far the service trusts a LISTEN connection: `up` once LISTEN succeeded, `down` otherwise. */
export type ListenerState = 'up' | 'down';

export interface ListenOptions {
  url: string;
  /** One or more channels on the same connection. */
  channels: string | string[];
  onMessage(channel: string, payload: string): void;
  /**
   * Told each time the connection comes up (LISTEN active: notifications sent from now on arrive)
   * or goes down (they may be lost until the next `up`). Starts down; the first `up` comes after
   * the first successful LISTEN. Whatever was cached on the strength of notifications must be
   * dropped on `down`, and not rebuilt before `up`.
   */
  onState?(state: ListenerState): void;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  applicationName?: string;
  /**
   * Told of a session advisory lock held on this connection while it is up, on a fresh random key
   * each time it connects (`key`), and told when it may have ended (null), before the connection
   * is dropped. Whoever can take that lock knows this process's session is gone.
   */
  onSessionLock?(key: string | null): void;
  /** A silent network (no reset, no close) is noticed by a `select 1` this often. */
  heartbeatMs?: number;
  backoff?: Backoff;
}

export interface Listener {
  readonly state: ListenerState;
  stop(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;

/**
 * A PostgreSQL LISTEN on a connection of its own that survives the database: on any loss (error,
 * end, a heartbeat that does not come back) it reports `down`, drops the connection and connects
 * again with capped exponential backoff, then reports `up`.
 */
export function listen(options: ListenOptions): Listener {
  const channels = Array.isArray(options.channels) ? options.channels : [options.channels];
  const backoff = options.backoff ?? new Backoff(250, 10_000);
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  let state: ListenerState = 'down';
  let client: pg.Client | null = null;
  /** The connection the session lock is held on, while it is up. */
  let locked: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const setState = (next: ListenerState) => {
    if (state === next) return;
    state = next;
    options.onState?.(next);
  };

  const drop = (c: pg.Client, error: unknown) => {
    if (client !== c && client !== null) return;
    const wasUp = client === c;
    client = null;
    clearInterval(heartbeat);
    if (locked === c) {
      locked = null;
      options.onSessionLock?.(null);
    }
    c.removeAllListeners('notification');
    c.on('error', () => {}); // late errors of a connection already given up
    c.end().catch(() => {});
    setState('down');
    if (stopped) return;
    const delay = backoff.failed();
    if (wasUp || backoff.failureCount === 1 || backoff.failureCount % 10 === 0) {
      options.log?.warn({ err: error, channels, retryInMs: delay }, 'LISTEN connection lost; reconnecting');
    }
    retry = setTimeout(connect, delay);
    retry.unref();
  };

  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({
      connectionString: options.url,
      application_name: options.applicationName ?? 'doorloom-listen',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
      keepAlive: true,
    });
    let settled = false;
    const fail = (error: unknown) => {
      if (settled && client !== c) return;
      settled = true;
      drop(c, error);
    };
    c.on('error', fail);
    c.on('end', () => fail(new Error('LISTEN connection ended')));
    c.on('notification', (message) => {
      if (client === c) options.onMessage(message.channel, message.payload ?? '');
    });
    (async () => {
      await c.connect();
      for (const channel of channels) await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      const lockKey = options.onSessionLock ? await sessionLock(c) : null;
      if (stopped || settled) {
        await c.end().catch(() => {});
        return;
      }
      settled = true;
      client = c;
      const recovered = backoff.failing;
      backoff.succeeded();
      if (recovered) options.log?.info({ channels }, 'LISTEN connection restored');
      heartbeat = setInterval(() => {
        c.query('select 1').catch((error) => drop(c, error));
      }, heartbeatMs);
      heartbeat.unref();
      if (lockKey !== null) {
        locked = c;
        options.onSessionLock?.(lockKey);
      }
      setState('up');
    })().catch(fail);
  };

  connect();
  return {
    get state() {
      return state;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const c = client;
      client = null;
      state = 'down';
      if (locked) {
        locked = null;
        options.onSessionLock?.(null);
      }
      if (c) {
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}

/**
 * Takes a session advisory lock on a random 64-bit key (another key when that one is taken, which
 * no live process's is) and returns the key; it lasts as long as the connection's session.
 */
async function sessionLock(c: pg.Client): Promise<string> {
  for (;;) {
    const key = randomBytes(8).readBigInt64BE().toString();
    const { rows } = await c.query<{ locked: boolean }>('select pg_try_advisory_lock($1::bigint) as locked', [key]);
    if (rows[0]?.locked) return key;
  }
}

/** What one module hears on a shared LISTEN connection (see `subscriptions`). */
export interface Subscription {
  channels: string[];
  onMessage(channel: string, payload: string): void;
  onState?(state: ListenerState): void;
}

/**
 * Several modules' channels on one LISTEN connection (a process keeps one, not one per module):
 * the options for `listen`, each notification handed to the subscription of its channel, each
 * change of state to all of them.
 */
export function subscriptions(subs: Subscription[]): Pick<ListenOptions, 'channels' | 'onMessage' | 'onState'> {
  const byChannel = new Map<string, Subscription>();
  for (const sub of subs) for (const channel of sub.channels) byChannel.set(channel, sub);
  return {
    channels: [...byChannel.keys()],
    onMessage: (channel, payload) => byChannel.get(channel)?.onMessage(channel, payload),
    onState: (state) => {
      for (const sub of subs) sub.onState?.(state);
    },
  };
}
