import { sql } from 'kysely';
import pg from 'pg';
import type { Deps } from '../../deps.js';

/** What a claim is for: an integration's delivery stream, or one sync job. */
export type ClaimKind = 'delivery' | 'sync';

/**
 * Exclusive claims on background work, so that however many processes share the database, one
 * integration never has two deliveries in flight and one sync job has one runner.
 *
 * - In this process: a set of held keys.
 * - Across processes (PostgreSQL): a session-level advisory lock taken on one dedicated connection.
 *   The lock is the lease: it lives exactly as long as the holder's session, so when a worker
 *   dies (even by SIGKILL) PostgreSQL ends its session and a successor can take the claim at once,
 *   with no expiry to wait out and no clock to trust. Should that connection fail while the process
 *   lives, every claim is dropped and `onLost` listeners abort their in-flight work.
 * - PGlite lives inside one process, so the in-process set is the whole story there.
 */
export interface Claims {
  tryClaim(kind: ClaimKind, id: number): Promise<boolean>;
  release(kind: ClaimKind, id: number): Promise<void>;
  /** False once the claim was released or lost. */
  holds(kind: ClaimKind, id: number): boolean;
  onLost(listener: () => void): () => void;
  close(): Promise<void>;
}

export function createClaims(deps: Deps): Claims {
  return deps.engine === 'postgres' && deps.config.databaseUrl ? new AdvisoryClaims(deps, deps.config.databaseUrl) : new LocalClaims();
}

class LocalClaims implements Claims {
  protected readonly held = new Set<string>();
  protected readonly listeners = new Set<() => void>();

  async tryClaim(kind: ClaimKind, id: number): Promise<boolean> {
    const key = `${kind}:${id}`;
    if (this.held.has(key)) return false;
    this.held.add(key);
    return true;
  }
  async release(kind: ClaimKind, id: number): Promise<void> {
    this.held.delete(`${kind}:${id}`);
  }
  holds(kind: ClaimKind, id: number): boolean {
    return this.held.has(`${kind}:${id}`);
  }
  onLost(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async close(): Promise<void> {
    this.held.clear();
  }
}

class AdvisoryClaims extends LocalClaims {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private closed = false;
  /** Queries on the claims connection go one after another (pg wants one in flight per client). */
  private queue: Promise<unknown> = Promise.resolve();
  /** Advisory locks are database-wide; the schema is part of the key so schemas never collide. */
  private readonly namespace: Promise<string>;

  constructor(
    private readonly deps: Deps,
    private readonly url: string,
  ) {
    super();
    this.namespace = sql<{ schema: string }>`select current_schema() as schema`
      .execute(deps.db)
      .then((r) => r.rows[0]?.schema ?? 'public');
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, keepAlive: true, application_name: 'doorloom-claims' });
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, new Error('claims connection ended')));
      try {
        await client.connect();
      } catch (error) {
        this.connecting = null;
        throw error;
      }
      this.client = client;
      this.connecting = null;
      return client;
    })();
    return this.connecting;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.closed) return;
    this.deps.log.warn({ err: error }, 'claims connection lost; dropping every claim of this process');
    this.held.clear();
    for (const listener of this.listeners) listener();
    client.end().catch(() => {});
  }

  private query<R extends pg.QueryResultRow>(client: pg.Client, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const result = this.queue.then(() => client.query<R>(text, values));
    this.queue = result.catch(() => {});
    return result;
  }

  override async tryClaim(kind: ClaimKind, id: number): Promise<boolean> {
    if (this.closed || !(await super.tryClaim(kind, id))) return false;
    try {
      const client = await this.connection();
      const result = await this.query<{ ok: boolean }>(client, 'select pg_try_advisory_lock(hashtext($1), $2) as ok', [`${await this.namespace}:${kind}`, id]);
      if (result.rows[0]?.ok && this.client === client) return true;
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not take a claim');
    }
    this.held.delete(`${kind}:${id}`);
    return false;
  }

  override async release(kind: ClaimKind, id: number): Promise<void> {
    const key = `${kind}:${id}`;
    if (!this.held.delete(key)) return;
    const client = this.client;
    if (!client) return; // the session is gone, and its locks with it
    try {
      await this.query(client, 'select pg_advisory_unlock(hashtext($1), $2)', [`${await this.namespace}:${kind}`, id]);
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not release a claim');
    }
  }

  override async close(): Promise<void> {
    this.closed = true;
    this.held.clear();
    const client = this.client ?? (this.connecting ? await this.connecting.catch(() => null) : null);
    this.client = null;
    await client?.end().catch(() => {});
  }
}
