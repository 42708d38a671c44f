import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { coresBetween, cpuSnapshot, type CpuSnapshot } from '../lib/clients.js';
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
  onCleanup(() => rm(dir, { recursive: true, force: true }));
  return { options: { execArgv: ['--cpu-prof', `--cpu-prof-dir=${dir}`] }, session: { name, dir, windows: [] } };
}

/**
 * Start/end hooks of a measured part: CPU snapshots (service, PostgreSQL, load generator, machine)
 * and, when profiling, the window of the profile to read for this scenario.
 */
export function measureHooks(servicePid: number, session: ProfileSession | null, windowName: string) {
  let cpuStart: CpuSnapshot | null = null;
  let cores: ReturnType<typeof coresBetween> | null = null;
  let from = 0;
  return {
    onMeasureStart: () => {
      cpuStart = cpuSnapshot(servicePid);
      from = monotonicMicros();
    },
    onMeasureEnd: () => {
      session?.windows.push({ name: windowName, from, to: monotonicMicros() });
      if (cpuStart) cores = coresBetween(cpuStart, cpuSnapshot(servicePid));
    },
    cores: () => cores,
  };
}

export const wallMs = () => performance.timeOrigin + performance.now();
