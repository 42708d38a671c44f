import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Answers by status class (autocannon counts 1xx…5xx). */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Unmeasured seconds first (JIT, connection pools, caches). */
  warmupSeconds?: number;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  /** Per-request bodies (autocannon cycles through them), with their own headers. */
  requests?: autocannon.Request[];
  /** Called as the measured run starts and ends (CPU snapshots, profile windows). */
  onMeasureStart?: () => unknown;
  onMeasureEnd?: () => unknown;
}

function run(options: LoadOptions, duration: number) {
  return autocannon({
    url: options.url,
    connections: options.connections,
    duration,
    method: options.method ?? 'GET',
    headers: options.headers,
    requests: options.requests,
  });
}

/** A bounded load run (autocannon): fixed duration, fixed connection count, loopback only. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSeconds) await run(options, options.warmupSeconds);
  await options.onMeasureStart?.();
  const result = await run(options, options.durationSeconds);
  await options.onMeasureEnd?.();
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'] },
  };
}
