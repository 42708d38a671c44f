// Where an embedded engine's memory goes. Opens PGlite on the DATA_DIR given as
// the first argument (a stopped service's), runs a read of every table, and prints one JSON line:
// the process's RSS, V8's JS heap, the bytes V8 reports outside it (external: array buffers,
// the engine's WebAssembly linear memory among them, its files when in memory), the size of the
// WebAssembly linear memory itself, and the engine's memory settings that live inside it.

const mib = (n) => Math.round((n / 2 ** 20) * 10) / 10;
const usage = (db) => {
  const m = process.memoryUsage();
  return {
    rss: mib(m.rss),
    js_heap_used: mib(m.heapUsed),
    js_heap_total: mib(m.heapTotal),
    external: mib(m.external),
    array_buffers: mib(m.arrayBuffers),
    wasm_linear_memory: db ? mib(db.mod.HEAPU8.byteLength) : null,
  };
};
const before = usage(null);
// opened as the service opens it (its settings); imported after `before`, which is node alone
const { openPGlite } = await import('../../dist/db/database.js');
const db = await openPGlite(process.argv[2]);
const opened = usage(db);
const tables = (await db.query(`select relname from pg_stat_user_tables order by relname`)).rows.map((r) => r.relname);
for (const t of tables) await db.query(`select count(*) from "${t}"`);
const read = usage(db);
const settings = Object.fromEntries(
  (
    await db.query(
      `select name, current_setting(name) as v from pg_settings where name in ('shared_buffers', 'work_mem', 'maintenance_work_mem', 'wal_buffers', 'temp_buffers')`,
    )
  ).rows.map((r) => [r.name, r.v]),
);
const size = (await db.query(`select pg_database_size(current_database())::bigint as n`)).rows[0].n;
await db.close();
process.stdout.write(`${JSON.stringify({ before, opened, after_reading_every_table: read, settings, database_mib: mib(Number(size)) })}\n`);
