/**
 * `npm run bench`: measures the service against baselines run in the same run on the same
 * machine, prints a table and writes bench/results.json. Loopback only; every load run is bounded
 * in time; every process and database it starts is stopped at the end.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import os from 'node:os';
import { setupIntegration } from './lib/api.js';
import { load } from './lib/load.js';
import { cleanupAll, createBenchDatabase, freePort, ROOT, startScript, startService, type Service } from './lib/processes.js';

export interface Row {
  scenario: string;
  engine: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  p50?: number;
  p99?: number;
  note?: string;
}

const rows: Row[] = [];
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);

async function baselineMe() {
  const port = await freePort();
  const server = await startScript(path.join(ROOT, 'bench/lib/baseline-server.mjs'), { PORT: String(port) }, /listening/);
  try {
    return await load({ url: `http://127.0.0.1:${port}/me`, connections: 20, durationSeconds: DURATION });
  } finally {
    await server.stop();
  }
}

async function meScenario(service: Service, engine: string, baselineRps: number) {
  const integration = await setupIntegration(service.base);
  const result = await load({
    url: `${service.base}/api/integrations/v1/me`,
    connections: 20,
    durationSeconds: DURATION,
    headers: { authorization: `Bearer ${integration.apiKey}`, accept: 'application/json' },
  });
  rows.push({
    scenario: 'GET /me',
    engine,
    value: result.rps,
    unit: 'req/s',
    baseline: baselineRps,
    ratio: round(result.rps / baselineRps),
    target: engine === 'postgres' ? '>= 0.5' : undefined,
    p50: result.p50,
    p99: result.p99,
    note: result.non2xx ? `${result.non2xx} non-2xx` : undefined,
  });
}

const round = (n: number) => Math.round(n * 100) / 100;

function printTable() {
  const header = ['scenario', 'engine', 'value', 'unit', 'baseline', 'ratio', 'target', 'p50 ms', 'p99 ms', 'note'];
  const lines = rows.map((r) => [r.scenario, r.engine, r.value, r.unit, r.baseline ?? '', r.ratio ?? '', r.target ?? '', r.p50 ?? '', r.p99 ?? '', r.note ?? ''].map(String));
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  process.stdout.write(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${lines.map(fmt).join('\n')}\n`);
}

async function main() {
  const started = Date.now();
  process.stdout.write('building…\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });

  const baseline = await baselineMe();
  rows.push({ scenario: 'bare Fastify JSON route (baseline)', engine: '-', value: baseline.rps, unit: 'req/s', p50: baseline.p50, p99: baseline.p99 });

  if (wanted('me')) {
    const pgUrl = await createBenchDatabase();
    const onPg = await startService({ DATABASE_URL: pgUrl });
    await meScenario(onPg, 'postgres', baseline.rps);
    rows.push({ scenario: 'server RSS after runs', engine: 'postgres', value: await onPg.rssMb(), unit: 'MiB' });
    await onPg.stop();

    const embedded = await startService({});
    await meScenario(embedded, 'pglite', baseline.rps);
    rows.push({ scenario: 'server RSS after runs', engine: 'pglite', value: await embedded.rssMb(), unit: 'MiB' });
    await embedded.stop();
  }

  printTable();
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    seconds_per_load_run: DURATION,
    total_seconds: Math.round((Date.now() - started) / 1000),
    rows,
  };
  await writeFile(path.join(ROOT, 'bench/results.json'), JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nwritten bench/results.json (${report.total_seconds} s)\n`);
}

main()
  .catch((error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
