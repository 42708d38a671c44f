/**
 * Reading `node --cpu-prof` profiles of the service: the samples taken inside a time window (the
 * measured part of one scenario), by function (self time) and by the hot paths
 * (samples whose synchronous stack runs through a module: its own cost plus what it calls).
 *
 * Profile timestamps are V8's monotonic clock in microseconds, the same clock as
 * process.hrtime() on Linux, so a window marked in the bench process applies directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.js';
import { originalPosition } from './sourcemap.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the profile's clock (µs). */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

export interface Window {
  name: string;
  from: number;
  to: number;
}

const SERVICE_DIST = `${ROOT}/dist/`;
const service = (file: string) => new RegExp(`^${SERVICE_DIST.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${file}$`);

/** The hot paths (authentication, rate limits, idempotency, event append, delivery), by the compiled module that does the work. */
export const HOT_PATHS: Array<{ name: string; files: RegExp }> = [
  { name: 'authentication lookup', files: service('modules/integrations/integrations\\.auth\\.js') },
  { name: 'rate-limit counters', files: service('http/rate-limit\\.js') },
  { name: 'idempotency', files: service('http/idempotency\\.js') },
  { name: 'event append', files: service('modules/events/events\\.log\\.js') },
  { name: 'delivery claim and state (claims, sql, outcomes)', files: service('modules/webhooks/webhooks\\.(claims|sql|outcomes)\\.js') },
  { name: 'delivery send and signing', files: service('modules/webhooks/webhooks\\.(send|sign)\\.js') },
  { name: 'kysely (query building)', files: /\/node_modules\/kysely\// },
  { name: 'pg driver', files: /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\// },
  { name: 'fastify + ajv', files: /\/node_modules\/(fastify|find-my-way|ajv|light-my-request|avvio|@fastify)\// },
];

/** A frame's position, short: src/file.ts:line for the service (through its source maps), package/file:line otherwise. */
function position(frame: CallFrame): string {
  const u = frame.url.replace(/^file:\/\//, '');
  if (!u) return '';
  if (u.startsWith(SERVICE_DIST) && !u.includes('/node_modules/')) {
    const original = originalPosition(u, frame.lineNumber, frame.columnNumber);
    if (original) return `${path.relative(ROOT, original.source)}:${original.line}`;
  }
  return `${place(frame.url)}:${frame.lineNumber + 1}`;
}

/** Where a frame lives, short: src/… for the service, package/… for dependencies. */
function place(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + 14);
  if (u.startsWith(SERVICE_DIST)) return `src/${u.slice(SERVICE_DIST.length).replace(/\.js$/, '.ts')}`;
  return u;
}

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString', 'writeUcs2String']);

export interface ProfileSummary {
  window: string;
  /** Sampled milliseconds in the window. */
  sampled_ms: number;
  /** Share of the window the main thread was busy (not idle). */
  busy_share: number;
  /**
   * Top functions by self time: as a share of busy time, and as a share of busy time without the
   * socket writes (closer to the CPU the JavaScript itself spends).
   */
  top: Array<{ function: string; where: string; self_pct: number; self_pct_excl_writes: number | null }>;
  /** Self time by file or package, as a share of busy time. */
  by_place: Array<{ where: string; self_pct: number }>;
  /**
   * Share of busy time in native socket writes (writev, writeBuffer, write*String). The sampler
   * runs on wall-clock time: a thread descheduled inside the write (the process it woke, e.g. a
   * PostgreSQL backend, took the core) is charged there, so on a busy machine this stands for
   * round trips more than for CPU.
   */
  socket_write_pct: number;
  /** Share of busy time whose synchronous stack runs through each hot path. */
  hot_paths: Array<{ path: string; incl_pct: number }>;
}

export function loadProfiles(dir: string): CpuProfile[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile);
}

/** Summarises the samples of the profile(s) that fall inside the windows (one scenario's, maybe several rounds). */
export function summarise(profiles: CpuProfile[], windows: Window[], topN = 25): ProfileSummary | null {
  if (windows.length === 0) return null;
  const inside = (t: number) => windows.some((w) => t >= w.from && t <= w.to);
  const self = new Map<string, { fn: string; where: string; us: number }>();
  const byPlace = new Map<string, number>();
  const hot = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let socketWrites = 0;
  for (const profile of profiles) {
    const nodes = new Map<number, ProfileNode>();
    const parent = new Map<number, number>();
    for (const node of profile.nodes) {
      nodes.set(node.id, node);
      for (const child of node.children ?? []) parent.set(child, node.id);
    }
    // Hot paths each node's stack runs through (computed once per node).
    const pathsOf = new Map<number, Set<string>>();
    const stackPaths = (id: number): Set<string> => {
      let found = pathsOf.get(id);
      if (found) return found;
      const up = parent.get(id);
      found = new Set(up === undefined ? [] : stackPaths(up));
      const url = nodes.get(id)!.callFrame.url;
      for (const hp of HOT_PATHS) if (hp.files.test(url.replace(/^file:\/\//, ''))) found.add(hp.name);
      pathsOf.set(id, found);
      return found;
    };
    let t = profile.startTime;
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i];
      if (!inside(t)) continue;
      // A sample stands for the time until the next one.
      const us = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
      const node = nodes.get(profile.samples[i])!;
      const frame = node.callFrame;
      total += us;
      if (frame.functionName === '(idle)') {
        idle += us;
        continue;
      }
      const fn = frame.functionName || '(anonymous)';
      const where = place(frame.url);
      if (!where && SOCKET_WRITES.has(fn)) socketWrites += us;
      const key = `${fn}@${where}:${frame.lineNumber}`;
      const entry = self.get(key) ?? { fn, where: where ? position(frame) : '', us: 0 };
      entry.us += us;
      self.set(key, entry);
      const group = where
        ? where.startsWith('src/')
          ? where
          : where.startsWith('node:')
            ? 'node internals'
            : where.split('/')[0].startsWith('@')
              ? where.split('/').slice(0, 2).join('/')
              : where.split('/')[0]
        : fn;
      byPlace.set(group, (byPlace.get(group) ?? 0) + us);
      for (const name of stackPaths(node.id)) hot.set(name, (hot.get(name) ?? 0) + us);
    }
  }
  const busy = total - idle;
  if (total === 0 || busy <= 0) return null;
  const pct = (us: number) => Math.round((1000 * us) / busy) / 10;
  const pctExcl = (us: number) => (busy - socketWrites > 0 ? Math.round((1000 * us) / (busy - socketWrites)) / 10 : 0);
  return {
    window: windows.length > 1 ? `${windows[0].name} (${windows.length} rounds)` : windows[0].name,
    sampled_ms: Math.round(total / 1000),
    busy_share: Math.round((100 * busy) / total) / 100,
    socket_write_pct: pct(socketWrites),
    top: [...self.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, topN)
      .map((e) => ({ function: e.fn, where: e.where, self_pct: pct(e.us), self_pct_excl_writes: !e.where && SOCKET_WRITES.has(e.fn) ? null : pctExcl(e.us) })),
    by_place: [...byPlace]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([where, us]) => ({ where, self_pct: pct(us) })),
    hot_paths: HOT_PATHS.map((hp) => ({ path: hp.name, incl_pct: pct(hot.get(hp.name) ?? 0) })),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const lines = [`\n== profile: ${s.window} (${s.sampled_ms} ms sampled, main thread busy ${Math.round(s.busy_share * 100)}%; shares of busy time) ==`];
  lines.push(`socket writes (native writev & co, incl. time descheduled there): ${s.socket_write_pct}%`);
  lines.push('top self time (% of busy, % of busy without socket writes):');
  for (const t of s.top.slice(0, 18))
    lines.push(
      `  ${String(t.self_pct).padStart(5)}%  ${t.self_pct_excl_writes === null ? '     ' : `${String(t.self_pct_excl_writes).padStart(4)}%`}  ${t.function}  ${t.where}`,
    );
  lines.push('self time by file/package:');
  for (const p of s.by_place) lines.push(`  ${String(p.self_pct).padStart(5)}%  ${p.where}`);
  lines.push('hot paths (stack runs through it, incl. callees):');
  for (const h of s.hot_paths) lines.push(`  ${String(h.incl_pct).padStart(5)}%  ${h.path}`);
  return lines.join('\n') + '\n';
}
