import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { backendPids, coresBetween, cpuSnapshot, type CpuSnapshot } from '../lib/clients.js';
import { monotonicMicros, type Window } from '../lib/profile.js';
import { onCleanup, type ServiceOptions } from '../lib/processes.js';

/** Measured seconds of each load run (BENCH_SECONDS), and the unmeasured warm-up before it. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 1);
/** BENCH_PROFILE=1: the PostgreSQL services of /me, booking creates and delivery run under --cpu-prof. */
export const PROFILING = ['1', 'true', 'yes'].includes((process.env.BENCH_PROFILE ?? '').toLowerCase());

/** The --cpu-prof profile of one service process and the measured windows to read from it. */
export interface ProfileSession {
  name: string;
  dir: string;
  windows: Window[];
}

/** Service options for a profiled run (or none), and the session to mark windows in. */
export function profiledService(name: string): { options: ServiceOptions; session: ProfileSession | null } {
  if (!PROFILING) return { options: {}, session: null };
  const dir = mkdtempSync(path.join(os.tmpdir(), `doorloom-bench-prof-${name}-`));
  if (!process.env.BENCH_KEEP_PROFILE) onCleanup(() => rm(dir, { recursive: true, force: true }));
  return { options: { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] }, session: { name, dir, windows: [] } };
}

/**
 * Start/end hooks of a measured part: CPU snapshots (service, PostgreSQL backends of the service's
 * database when `pgUrl` is given, load generator, machine) and, when profiling, the window of the
 * profile to read for this scenario.
 */
export function measureHooks(servicePid: number, session: ProfileSession | null, windowName: string, pgUrl?: string) {
  let cpuStart: CpuSnapshot | null = null;
  let pgPids: number[] | undefined;
  let cores: ReturnType<typeof coresBetween> | null = null;
  let from = 0;
  return {
    onMeasureStart: async () => {
      pgPids = pgUrl ? await backendPids(pgUrl) : [];
      cpuStart = cpuSnapshot(servicePid, pgPids);
      from = monotonicMicros();
    },
    onMeasureEnd: () => {
      session?.windows.push({ name: windowName, from, to: monotonicMicros() });
      if (cpuStart) cores = coresBetween(cpuStart, cpuSnapshot(servicePid, pgPids));
    },
    cores: () => cores,
  };
}

/** CPU milliseconds per request (or event) of the service and of its PostgreSQL backends. */
export function cpuPer(cores: ReturnType<typeof coresBetween> | null, count: number) {
  if (!cores || count <= 0) return {};
  return {
    service_cpu_ms_per_op: Math.round((cores.service_cpu_s * 100_000) / count) / 100,
    postgres_cpu_ms_per_op: Math.round((cores.postgres_cpu_s * 100_000) / count) / 100,
    service_write_syscalls_per_op: Math.round((cores.service_write_syscalls / count) * 10) / 10,
  };
}

/** "CPU/op: service 1.2 ms + PostgreSQL 0.8 ms" for the table's note. */
export function cpuNote(cores: ReturnType<typeof coresBetween> | null, count: number, op = 'request') {
  const per = cpuPer(cores, count);
  if (per.service_cpu_ms_per_op === undefined) return undefined;
  return `CPU per ${op}: service ${per.service_cpu_ms_per_op} ms${cores && cores.postgres_cpu_s > 0 ? ` + PostgreSQL ${per.postgres_cpu_ms_per_op} ms` : ''}`;
}

export const wallMs = () => performance.timeOrigin + performance.now();
