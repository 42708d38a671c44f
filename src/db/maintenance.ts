import { sql, type Kysely } from 'kysely';
import type { Deps } from '../deps.js';
import type { DB } from './schema.js';

/**
 * Housekeeping the embedded engine does not do by itself. PGlite is a single PostgreSQL backend in
 * this process: no autovacuum worker, and no checkpointer, so
 * - tables that are updated in place (integrations, rate-limit counters, idempotency records, the
 *   events' delivery state) keep every dead row version: a 1,000-row table grew from 1.7 to 3.2 MB
 *   over 50 full updates, and stayed flat with a VACUUM between them;
 * - a checkpoint only happens when max_wal_size (1 GB) of WAL has piled up in DATA_DIR/pg_wal, and
 *   then writes every dirty buffer (up to shared_buffers, 128 MB) while every query waits. Between
 *   two such checkpoints DATA_DIR grows with the WAL, about 35 MiB a minute under a 105 req/s mixed
 *   load, which is most of the growth the soak measured against PostgreSQL.
 *
 * Every `intervalMs` this loop reads the table statistics (flushed on demand: a single backend only
 * reports them when asked) and
 * - VACUUMs (never FULL: that rewrites the table under an exclusive lock) each table whose dead rows
 *   passed DEAD_ROWS + DEAD_SHARE × live rows (a smaller share than autovacuum's 50 + 0.2 ×, since
 *   nothing else will run it: a table vacuumed often has few pages to visit each time, so each
 *   VACUUM stays short);
 * - ANALYZEs (with the VACUUM when both are due) each table in which enough rows changed since the
 *   last one. Under SMALL_TABLE live rows that is autovacuum's rule (more than 50 + 10 %), so small
 *   tables get statistics: without them the planner guesses their sizes, and the availability
 *   rebuild's statement on the 50-unit bench property planned a nested loop over every unit and
 *   alias pair (the first read after a host edit took 1.33 ms in-process on PGlite, 1.20 once the
 *   tables were analyzed). Larger tables wait for 5,000 + 20 %: ANALYZE samples up to 30,000 rows
 *   and holds the only connection meanwhile (80–125 ms for 100k events-like rows); with
 *   autovacuum's rule for every table, the soak's 15 s windows had a p99 of up to 108 ms (max 212)
 *   against 24 ms;
 * - and every WAL_CHECK_MS (more often: the WAL fills faster than tables bloat) it CHECKPOINTs once
 *   CHECKPOINT_WAL bytes of WAL were written since the last one, so each one writes a few MB
 *   instead of up to 128 MB, and pg_wal stays at min_wal_size (two segments, see openPGlite).
 *
 * Each table and the checkpoint are separate statements: requests queued on the single connection
 * run between them. Nothing runs on PostgreSQL, whose autovacuum and checkpointer do this.
 */
const DEAD_ROWS = 1_000;
const DEAD_SHARE = 0.1;
const SMALL_TABLE = 10_000;
const analyzeThreshold = (liveRows: number) => (liveRows < SMALL_TABLE ? 50 + 0.1 * liveRows : 5_000 + 0.2 * liveRows);
/** Half of max_wal_size (32 MB): the next segment is one recycled from before the last checkpoint. */
const CHECKPOINT_WAL = 16 * 2 ** 20;
export const MAINTENANCE_INTERVAL_MS = 30_000;
const WAL_CHECK_MS = 5_000;

export interface MaintenanceStep {
  action: 'vacuum' | 'vacuum analyze' | 'analyze' | 'checkpoint';
  table?: string;
  /** Dead rows (vacuum) or WAL bytes since the last checkpoint (checkpoint) that triggered it. */
  trigger: number;
  ms: number;
}

interface TableStats {
  relname: string;
  n_live_tup: number;
  n_dead_tup: number;
  n_mod_since_analyze: number;
}

/** One round (without `tables`, only the checkpoint check): the steps it took (empty when nothing was due). */
export async function maintainOnce(db: Kysely<DB>, options: { tables?: boolean } = {}): Promise<MaintenanceStep[]> {
  const steps = options.tables === false ? [] : await maintainTables(db);
  const checkpoint = await checkpointIfDue(db);
  if (checkpoint) steps.push(checkpoint);
  return steps;
}

async function maintainTables(db: Kysely<DB>): Promise<MaintenanceStep[]> {
  const steps: MaintenanceStep[] = [];
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const { rows } = await sql<TableStats>`
    select relname, n_live_tup::int, n_dead_tup::int, n_mod_since_analyze::int
    from pg_stat_user_tables where schemaname = current_schema()
    order by n_dead_tup desc
  `.execute(db);
  for (const t of rows) {
    const vacuum = t.n_dead_tup >= DEAD_ROWS + DEAD_SHARE * t.n_live_tup;
    const analyze = t.n_mod_since_analyze > analyzeThreshold(t.n_live_tup);
    if (!vacuum && !analyze) continue;
    const started = performance.now();
    if (vacuum) await sql`vacuum ${sql.raw(analyze ? '(analyze) ' : '')}${sql.table(t.relname)}`.execute(db);
    else await sql`analyze ${sql.table(t.relname)}`.execute(db);
    steps.push({
      action: vacuum ? (analyze ? 'vacuum analyze' : 'vacuum') : 'analyze',
      table: t.relname,
      trigger: t.n_dead_tup,
      ms: Math.round(performance.now() - started),
    });
  }
  return steps;
}

async function checkpointIfDue(db: Kysely<DB>): Promise<MaintenanceStep | null> {
  const wal = await sql<{ bytes: string }>`
    select (pg_current_wal_lsn() - (select redo_lsn from pg_control_checkpoint()))::text as bytes
  `.execute(db);
  const since = Number(wal.rows[0]?.bytes ?? 0);
  if (since < CHECKPOINT_WAL) return null;
  const started = performance.now();
  await sql`checkpoint`.execute(db);
  return { action: 'checkpoint', trigger: since, ms: Math.round(performance.now() - started) };
}

export interface Maintenance {
  stop(): Promise<void>;
}

/** Starts the loop on the embedded engine; on PostgreSQL there is nothing to start. */
export function startMaintenance(deps: Deps, intervalMs = MAINTENANCE_INTERVAL_MS): Maintenance {
  if (deps.engine !== 'pglite') return { stop: async () => {} };
  let running: Promise<void> | null = null;
  const checkMs = Math.min(intervalMs, WAL_CHECK_MS);
  const tablesEvery = Math.max(1, Math.round(intervalMs / checkMs));
  let ticks = 0;
  const tick = () => {
    if (running) return;
    running = maintainOnce(deps.db, { tables: ++ticks % tablesEvery === 0 })
      .then((steps) => {
        for (const step of steps) {
          const line = `maintenance: ${step.action}${step.table ? ` ${step.table}` : ''} in ${step.ms} ms`;
          if (step.ms >= 500) deps.log.warn(step, line);
          else deps.log.debug(step, line);
        }
      })
      .catch((error) => deps.log.warn({ err: error }, 'maintenance failed'))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, checkMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
