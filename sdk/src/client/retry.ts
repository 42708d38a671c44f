import { DoorloomNetworkError, retryAfterSeconds } from './errors.js';

/**
 * How the client follows the contract's retry guidance. Every attempt of one logical call sends the
 * identical request, headers included, so a create's Idempotency-Key is the same on every retry.
 */
export interface RetryOptions {
  /** Requests sent at most for one call, the first included (1 disables retries). Default 5. */
  maxAttempts?: number;
  /** First backoff step in ms; it doubles per retry up to `maxDelayMs`, with jitter. Default 250. */
  baseDelayMs?: number;
  /** Cap of one backoff step in ms. Default 8000. */
  maxDelayMs?: number;
  /** Least wait before retrying 409 IN_PROGRESS ("retry after a few seconds"). Default 1000. */
  inProgressDelayMs?: number;
  /** Per-attempt timeout in ms; an attempt that takes longer is abandoned and retried. Default 30000. */
  timeoutMs?: number;
  /**
   * Longest Retry-After (ms) the client waits out by itself; a longer one (SYNC_TOO_SOON's hours,
   * say) is handed to the caller as the DoorloomApiError. Default 60000.
   */
  maxRetryAfterMs?: number;
  /** Jitter source in [0, 1); replaceable for tests. */
  random?: () => number;
  /** Waits; replaceable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Told before every retry: why, after which attempt, and how long the client waits. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed (1-based). */
  attempt: number;
  /** `status 503`, `409 IN_PROGRESS`, `429 RATE_LIMITED`, `timeout` or `network error`. */
  reason: string;
  delayMs: number;
}

type Fetch = (input: Request) => Promise<Response>;

const defaults = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  inProgressDelayMs: 1000,
  timeoutMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** A response the caller gets as it is: success, or a refusal that retrying unchanged cannot fix. */
const FINAL = Symbol('final');

/**
 * A fetch that retries per the contract: timeouts, network errors, 408, 5xx and 409 IN_PROGRESS with
 * capped exponential backoff plus jitter; 429 (and 503) after Retry-After. Never 422, 409
 * PROPERTY_EXTERNAL_ID_EXISTS / UNAVAILABLE, 429 SYNC_TOO_SOON or any other 4xx.
 */
export function retryingFetch(fetchImpl: Fetch, options: RetryOptions | false | undefined): Fetch {
  const o = { ...defaults, ...(options || {}) };
  const maxAttempts = options === false ? 1 : Math.max(1, Math.floor(o.maxAttempts));
  const random = o.random ?? Math.random;
  const sleep = o.sleep ?? abortableSleep;

  return async (request: Request) => {
    // The body is read once so that every attempt sends the same bytes.
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const callerSignal = request.signal;
    for (let attempt = 1; ; attempt++) {
      const timeout = AbortSignal.timeout(o.timeoutMs);
      const signal = AbortSignal.any([callerSignal, timeout]);
      let reason: string;
      let delayMs = backoff(attempt);
      try {
        const response = await fetchImpl(
          new Request(request.url, { method: request.method, headers: request.headers, body, signal, redirect: request.redirect }),
        );
        const verdict = await classify(response);
        if (verdict === FINAL || attempt >= maxAttempts) return withAttempts(response, attempt);
        ({ reason } = verdict);
        if (verdict.retryAfterMs !== null) {
          if (verdict.retryAfterMs > o.maxRetryAfterMs) return withAttempts(response, attempt);
          delayMs = verdict.retryAfterMs;
        } else if (verdict.inProgress) {
          delayMs = Math.max(delayMs, o.inProgressDelayMs);
        }
        // The unread body of a retried answer would hold the connection.
        await response.body?.cancel().catch(() => {});
      } catch (error) {
        if (callerSignal.aborted) throw callerSignal.reason ?? error;
        const timedOut = timeout.aborted;
        reason = timedOut ? 'timeout' : 'network error';
        if (attempt >= maxAttempts) {
          const what = timedOut ? `no answer within ${o.timeoutMs} ms` : errorText(error);
          throw new DoorloomNetworkError(`${request.method} ${request.url}: ${what} (after ${attempt} attempt${attempt === 1 ? '' : 's'})`, {
            cause: error,
            timedOut,
            attempts: attempt,
          });
        }
      }
      o.onRetry?.({ method: request.method, url: request.url, attempt, reason, delayMs });
      await sleep(delayMs, callerSignal);
    }
  };

  /** Capped exponential backoff with "equal jitter": half the step fixed, half random. */
  function backoff(attempt: number): number {
    const step = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(step / 2 + random() * (step / 2));
  }
}

async function classify(response: Response): Promise<typeof FINAL | { reason: string; retryAfterMs: number | null; inProgress: boolean }> {
  const status = response.status;
  if (status === 408 || status >= 500) {
    const after = status === 503 ? retryAfterSeconds(response.headers, null) : null;
    return { reason: `status ${status}`, retryAfterMs: after === null ? null : after * 1000, inProgress: false };
  }
  if (status === 409 || status === 429) {
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { code?: unknown } | null;
    const code = typeof body?.code === 'string' ? body.code : `HTTP_${status}`;
    if (status === 409) return code === 'IN_PROGRESS' ? { reason: '409 IN_PROGRESS', retryAfterMs: null, inProgress: true } : FINAL;
    // A second full sync within 24 hours is refused until the window has passed: not a wait to sit out.
    if (code === 'SYNC_TOO_SOON') return FINAL;
    const after = retryAfterSeconds(response.headers, body);
    return { reason: `429 ${code}`, retryAfterMs: after === null ? null : after * 1000, inProgress: false };
  }
  return FINAL;
}

/** The attempt count travels on the response so that errors can report it. */
export const ATTEMPTS_HEADER = 'x-doorloom-sdk-attempts';

function withAttempts(response: Response, attempts: number): Response {
  if (attempts === 1) return response;
  const headers = new Headers(response.headers);
  headers.set(ATTEMPTS_HEADER, String(attempts));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an abort rejects with the signal's reason, whatever its caller chose.
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- as above.
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
