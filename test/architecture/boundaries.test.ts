import { describe, expect, it } from 'vitest';
import { TABLE_OWNERS } from '../../src/db/schema.js';
import { cycleEdges, moduleGraph, moduleOf, readSources, reaches, tablesIn, type SourceFile } from './graph.js';

/**
 * Module boundaries (docs/modules.md): no two modules import each other, directly or through
 * others, and only a table's owner (TABLE_OWNERS in src/db/schema.ts) names it in SQL.
 */

/**
 * Files that wire modules together rather than belong to one: their own imports are not edges of
 * the graph. Only the two type files among them may be imported by a module.
 */
const WIRING: Record<string, { importable: boolean; reason: string }> = {
  'src/db/schema.ts': { importable: true, reason: 'composes every module’s table types into DB' },
  'src/deps.ts': { importable: true, reason: 'the type of what the wiring hands every module' },
  'src/app.ts': { importable: false, reason: 'registers every module’s routes' },
  'src/background.ts': { importable: false, reason: 'starts every module’s background work' },
  'src/runtime.ts': { importable: false, reason: 'builds the process’s dependencies' },
  'src/server.ts': { importable: false, reason: 'starts the process' },
  'src/main.ts': { importable: false, reason: 'the entry point' },
};

/** Migrations are the schema's dated history: they create and alter every module's tables. */
const NOT_SCANNED = (file: string) => file.startsWith('src/db/migrations/');

/**
 * Import edges left out of the cycle check, each with the reason and what removes it. The test
 * fails when one is no longer on a cycle (or no longer exists), so the list only shrinks.
 */
const IMPORT_EXCEPTIONS: Array<{ file: string; imports: string; reason: string }> = [];

/**
 * Files allowed to name a table they do not own, with the reason, and a check that the reason
 * still holds on the import graph. The test fails when one no longer names the table, or when its
 * reason no longer holds.
 */
const SQL_EXCEPTIONS: Array<{ file: string; table: string; reason: string; holds: (graph: Map<string, Set<string>>) => boolean }> = [
  {
    file: 'src/modules/events/events.sql.ts',
    table: 'webhook_delivery_state',
    reason:
      'webhooks’ undelivered count is kept in the statement that inserts the events (GET /me reads it); webhooks imports events, so the fragment cannot come from there, and every producer passing it in could forget it',
    holds: (graph) => reaches(graph, 'webhooks', 'events'),
  },
];

/**
 * What `Deps` may be built from: configuration, the database, the clock, logging and signals. A
 * module's own types on it (its caches, statements) close a circle, since the module imports
 * deps.ts back. Those still on it are listed with what removes them; the test fails when one is
 * gone, so the list only shrinks.
 */
const DEPS_MAY_IMPORT = new Set(['config', 'db', 'lib', 'signals']);
const DEPS_STILL_CARRIES: Array<{ spec: string; reason: string }> = [
  { spec: './http/idempotency.js', reason: 'the batched Idempotency-Key statements (state.idempotency): to be made where the API scope installs idempotency' },
  { spec: './http/rate-limit.store.js', reason: 'the rate counters (state.rateCounters): to be made where app.ts installs the limiter' },
  { spec: './http/rate-limit.staff.js', reason: 'the known staff credentials (state.knownStaffCredentials): to be made where app.ts installs the limiter' },
  { spec: './http/staff-lockout.js', reason: "the staff lockout's verified addresses (state.staffVerifiedFrom): to be made with the limiter" },
  {
    spec: './modules/integrations/integrations.auth.js',
    reason: 'the API-key cache (state.authCache), which the LISTEN subscription of background.ts also reaches',
  },
  { spec: './modules/integrations/staff-tokens.service.js', reason: "when a staff token's use was last recorded (state.staffTokenUses)" },
  { spec: './modules/calendar/calendar.snapshot-cache.js', reason: 'the availability snapshots (state.snapshots), which the refresh of runtime.ts also keeps' },
];

const owners: Record<string, string> = TABLE_OWNERS;
const tables = new Set(Object.keys(owners));

function analyse(extra: SourceFile[] = []) {
  const files = [...readSources(tables, NOT_SCANNED), ...extra];
  const excepted = (file: string, target: string) => IMPORT_EXCEPTIONS.some((e) => e.file === file && e.imports === target);
  const full = moduleGraph(files, (file) => file in WIRING);
  const checked = moduleGraph(files, (file, target) => file in WIRING || excepted(file, target));
  return { files, full, checked };
}

function cycleReport(files: SourceFile[], checked: ReturnType<typeof moduleGraph>): string[] {
  const onCycle = new Set(cycleEdges(checked));
  const out: string[] = [];
  for (const f of files) {
    if (f.file in WIRING) continue;
    for (const i of f.imports) {
      const edge = `${f.module}→${i.module}`;
      if (onCycle.has(edge) && !IMPORT_EXCEPTIONS.some((e) => e.file === f.file && e.imports === i.module)) out.push(`${edge}: ${f.file} imports ${i.spec}`);
    }
  }
  return [...new Set(out)].sort();
}

function sqlReport(files: SourceFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    for (const t of f.tables) {
      if (owners[t] === f.module) continue;
      if (SQL_EXCEPTIONS.some((e) => e.file === f.file && e.table === t)) continue;
      out.push(`${f.file} names ${t} (owned by ${owners[t]})`);
    }
  }
  return out.sort();
}

describe('module boundaries', () => {
  const { files, full, checked } = analyse();

  it('reads the source: every module, and the imports and tables it is known to have', () => {
    const modules = new Set(files.map((f) => f.module));
    for (const m of ['bookings', 'calendar', 'events', 'webhooks', 'leases', 'integrations', 'properties', 'sync', 'jobs', 'http', 'db', 'lib'])
      expect(modules).toContain(m);
    for (const owner of new Set(Object.values(owners))) expect(modules).toContain(owner);
    // the scanner sees both spellings of SQL
    const webhooksSql = files.find((f) => f.file === 'src/modules/webhooks/webhooks.sql.ts')!;
    expect(webhooksSql.tables).toEqual(expect.arrayContaining(['webhook_delivery_state', 'delivery_attempts']));
    expect(files.find((f) => f.file === 'src/modules/sync/sync.runner.ts')!.imports.map((i) => i.module)).toContain('events');
  });

  it('leases sit below webhooks and sync: both use them, and they import no module of either', () => {
    expect(files.find((f) => f.file === 'src/modules/sync/sync.runner.ts')!.imports.map((i) => i.module)).toContain('leases');
    expect(files.find((f) => f.file === 'src/modules/webhooks/webhooks.worker.ts')!.imports.map((i) => i.module)).toContain('leases');
    const below = files.filter((f) => f.module === 'leases').flatMap((f) => f.imports.map((i) => i.module));
    expect(below.filter((m) => m !== 'leases' && !['lib', 'db', 'deps', 'db/schema'].includes(m))).toEqual([]);
  });

  it('no module imports another in a cycle', () => {
    expect(cycleReport(files, checked)).toEqual([]);
  });

  it('only the wiring imports the wiring (deps.ts and db/schema.ts are types every module may use)', () => {
    const bad = files
      .filter((f) => !(f.file in WIRING))
      .flatMap((f) =>
        f.imports
          .filter((i) => Object.entries(WIRING).some(([w, { importable }]) => !importable && i.module === w.replace(/^src\//, '').replace(/\.ts$/, '')))
          .map((i) => `${f.file} imports ${i.spec}`),
      );
    expect(bad).toEqual([]);
  });

  it('only a table’s owner names it in SQL', () => {
    expect(sqlReport(files)).toEqual([]);
  });

  it("deps.ts carries no module's types beyond the listed ones (each closes a circle through deps.ts)", () => {
    const deps = files.find((f) => f.file === 'src/deps.ts')!;
    const carried = deps.imports.filter((i) => !DEPS_MAY_IMPORT.has(i.module)).map((i) => i.spec);
    expect(carried.sort()).toEqual(DEPS_STILL_CARRIES.map((e) => e.spec).sort());
  });

  it('every exception is still needed', () => {
    const stale: string[] = [];
    for (const e of IMPORT_EXCEPTIONS) {
      const f = files.find((x) => x.file === e.file);
      const edge = f?.imports.some((i) => i.module === e.imports);
      if (!f || !edge || !reaches(full, e.imports, f.module)) stale.push(`${e.file} → ${e.imports}`);
    }
    for (const e of SQL_EXCEPTIONS) {
      if (!files.find((x) => x.file === e.file)?.tables.includes(e.table)) stale.push(`${e.file} names ${e.table}`);
      else if (!e.holds(full)) stale.push(`${e.file} names ${e.table}, but its reason no longer holds: ${e.reason}`);
    }
    expect(stale).toEqual([]);
  });

  it('fails on a violation: an import that closes a cycle, and SQL on a table the file does not own', () => {
    const planted: SourceFile = {
      file: 'src/lib/planted.ts',
      module: 'lib',
      imports: [{ module: 'webhooks', spec: '../modules/webhooks/webhooks.sql.js' }],
      tables: tablesIn(
        [
          "await db.selectFrom('work_leases').innerJoin('coverage as c', 'c.property_id', 'p.id').selectAll();",
          "await sql`update events set type = ${t} where id in (select id from ${sql.table('sync_quota')})`.execute(db);",
        ].join('\n'),
        tables,
      ),
    };
    expect(planted.tables).toEqual(['coverage', 'events', 'sync_quota', 'work_leases']);
    const withPlant = analyse([planted]);
    expect(cycleReport(withPlant.files, withPlant.checked)).toContain('lib→webhooks: src/lib/planted.ts imports ../modules/webhooks/webhooks.sql.js');
    expect(sqlReport(withPlant.files).filter((line) => line.startsWith('src/lib/planted.ts'))).toEqual([
      'src/lib/planted.ts names coverage (owned by properties)',
      'src/lib/planted.ts names events (owned by events)',
      'src/lib/planted.ts names sync_quota (owned by sync)',
      'src/lib/planted.ts names work_leases (owned by leases)',
    ]);
    expect(sqlReport(withPlant.files)).toHaveLength(4);
    // an exception's reason is read off the graph: without webhooks' import of events it is gone
    const cut = moduleGraph(files, (file, target) => file in WIRING || (moduleOf(file) === 'webhooks' && target === 'events'));
    expect(SQL_EXCEPTIONS.filter((e) => e.holds(cut))).toEqual([]);
  });
});
