import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  /** Per-request bodies (autocannon cycles through them), with their own headers. */
  requests?: autocannon.Request[];
}

/** A bounded load run (autocannon): fixed duration, fixed connection count, loopback only. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    method: options.method ?? 'GET',
    headers: options.headers,
    requests: options.requests,
  });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
