import { Agent, type Dispatcher } from 'undici';
import { isIP } from 'node:net';
import { deliveryTargetProblem, guardedLookup, isForbiddenAddress, recordingLookup, type TargetPolicy } from './webhooks.url.js';

export const CONNECT_TIMEOUT_MS = 5_000;
/** The answer kept in the attempt log. */
export const KEPT_ANSWER_BYTES = 4096;
/** Past this much answer the socket is dropped rather than drained for reuse. */
const MAX_DRAIN_BYTES = 256 * 1024;

export interface SendResult {
  ok: boolean;
  status: number | null;
  /** `CODE: detail` when no HTTP answer came (refused, timed out, forbidden target, …). */
  error: string | null;
  durationMs: number;
  /** The first 4 KB of the answer, as text. */
  body: string | null;
  /** The answer came from a loopback, private, link-local or reserved address (WEBHOOK_ALLOW_PRIVATE only). */
  privateAddress?: boolean;
}

export interface SendRequest {
  url: URL;
  /** Sent as given (with Content-Length, Host and Connection added). */
  headers: Record<string, string>;
  body: string;
  /** The response deadline (the integration's timeout_seconds). */
  timeoutMs: number;
  /**
   * Receives a function that cuts this request off while it is in flight, then null once it is
   * over (a plain callback: an AbortSignal listener per request costs more than it should here).
   */
  cancellable?: (cancel: (() => void) | null) => void;
}

/**
 * Posts webhooks over keep-alive connections (one per integration stays warm, so an ordered stream
 * costs one round trip per event). Redirects are not followed: a 3xx is a failure.
 */
export interface Sender {
  send(request: SendRequest): Promise<SendResult>;
  close(): void;
}

interface Target {
  origin: string;
  path: string;
  problem: string | null;
}

/** Why a request ended without an answer, as `CODE: detail` for the attempt log. */
class SendError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** undici's own error codes, in the attempt log's words (decisions: `CODE: detail`). */
function failureOf(error: Error & { code?: string }): { code: string; message: string } {
  switch (error.code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'CONNECT_TIMEOUT', message: `no connection within ${CONNECT_TIMEOUT_MS / 1000} s` };
    case 'UND_ERR_SOCKET':
      return {
        code: (error.cause as { code?: string } | undefined)?.code ?? 'ECONNRESET',
        message: `the connection was closed before the answer was complete (${error.message})`,
      };
    case undefined:
      return { code: 'REQUEST_FAILED', message: error.message };
    default:
      return { code: error.code, message: error.message };
  }
}

/**
 * The receiver's keep-alive timeout raced the send: a connection that had served earlier requests
 * was closed before this request got an answer. A reset (ECONNRESET, EPIPE) before the answer also
 * counts, reused or not: undici's error does not say which, and a fresh connection is rarely reset.
 */
function closedWhileReused(error: Error & { code?: string; socket?: { bytesRead?: number } }, answered: boolean): boolean {
  if (answered) return false;
  if (error.code === 'UND_ERR_SOCKET') return (error.socket?.bytesRead ?? 0) > 0;
  return error.code === 'ECONNRESET' || error.code === 'EPIPE';
}

/**
 * The sender, over undici's dispatcher with a bare handler: no request and response objects or
 * streams as with `node:http`. Measured on one host, four runs each way, alternating: this sender
 * in a loop of 3.7 KB POSTs to a local receiver took 54–59 µs of CPU per request against 79–87 µs
 * with the `http.Agent` it replaced (11,100–12,100 against 8,600–9,400 requests a second). In the
 * bench, 50 integrations delivering at once went from 0.46–0.48 to 0.32–0.40 ms of service CPU per
 * event; one ordered stream stayed within the noise (its time goes to the round trip).
 */
export function createSender(policy: TargetPolicy): Sender {
  const privateNames = new Set<string>();
  const fromPrivate = (url: URL): boolean => {
    if (!policy.private) return false;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? isForbiddenAddress(host) : privateNames.has(host);
  };
  const agent = new Agent({
    // Without WEBHOOK_ALLOW_PRIVATE every resolved address is checked as the connection is made
    // (Node does not call `lookup` for an IP literal: deliveryTargetProblem judges those).
    // With it, the names that resolved to such an address are remembered (for good: a name that
    // did once may again), so that their answers are marked private.
    connect: { timeout: CONNECT_TIMEOUT_MS, lookup: policy.private ? recordingLookup(privateNames) : guardedLookup() },
    // The response deadline is the integration's, kept below; undici's own would answer first.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  /** Origin and path per URL, worked out once (one URL serves a whole stream). */
  const targets = new Map<string, Target>();
  function targetOf(url: URL): Target {
    let target = targets.get(url.href);
    if (!target) {
      target = { origin: url.origin, path: `${url.pathname}${url.search}`, problem: deliveryTargetProblem(url, policy) };
      if (targets.size >= 10_000) targets.clear();
      targets.set(url.href, target);
    }
    return target;
  }

  function once(request: SendRequest, target: Target, started: number): Promise<SendResult & { retry: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      /** Cuts the request off; set once it is being written (undici gives it then). */
      let abort: ((error: Error) => void) | null = null;
      let status = 0;
      let answered = false;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let total = 0;
      const finish = (result: SendResult, retry = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        request.cancellable?.(null);
        resolve({ ...result, retry });
      };
      const answer = (): SendResult => ({
        ok: status >= 200 && status < 300,
        status,
        error: null,
        durationMs: Math.round(performance.now() - started),
        // NUL cannot be stored in a text column
        body: Buffer.concat(kept).toString('utf8').replaceAll('\u0000', ''),
      });
      const fail = (code: string, message: string, retry = false) =>
        finish({ ok: false, status: null, error: `${code}: ${message}`, durationMs: Math.round(performance.now() - started), body: null }, retry);

      // Stopped before the request was written (still connecting): answered at once; the
      // connection, once made, carries nothing.
      request.cancellable?.(() => {
        if (abort) abort(new SendError('ABORTED', 'delivery stopped by the worker'));
        else fail('ABORTED', 'delivery stopped by the worker');
      });
      const handler: Dispatcher.DispatchHandler = {
        onConnect(cut) {
          if (settled) return cut(new SendError('ABORTED', 'delivery stopped by the worker'));
          abort = cut;
          // timeout_seconds runs from here: the connection is made (TCP and TLS, under the
          // connect timeout) and the request is about to be written
          deadline = setTimeout(() => cut(new SendError('RESPONSE_TIMEOUT', `no complete answer within ${request.timeoutMs / 1000} s`)), request.timeoutMs);
        },
        onHeaders(statusCode) {
          // 1xx interim answers are not the answer
          if (statusCode < 200) return true;
          status = statusCode;
          answered = true;
          return true;
        },
        onData(chunk) {
          total += chunk.length;
          if (keptBytes < KEPT_ANSWER_BYTES) {
            const part = chunk.subarray(0, KEPT_ANSWER_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
          if (total > MAX_DRAIN_BYTES) {
            // the status counts; the rest is not read (the connection is dropped, not drained)
            finish(answer());
            abort?.(new SendError('RESPONSE_TOO_LARGE', 'answer cut off'));
            return false;
          }
          return true;
        },
        onComplete() {
          finish(answer());
        },
        onError(error) {
          if (error instanceof SendError) return fail(error.code, error.message);
          const { code, message } = failureOf(error);
          fail(code, message, closedWhileReused(error, answered));
        },
      };
      try {
        agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: request.headers, body: request.body }, handler);
      } catch (error) {
        // refused before anything was sent (a header value undici will not write)
        fail('REQUEST_FAILED', (error as Error).message);
      }
    });
  }

  return {
    async send(request) {
      // durations are measured on the monotonic timer: they are lengths, not service time
      const started = performance.now();
      const target = targetOf(request.url);
      if (target.problem) return { ok: false, status: null, error: `FORBIDDEN_ADDRESS: ${target.problem}`, durationMs: 0, body: null };
      const first = await once(request, target, started);
      // A warm connection the receiver closed just as it was reused (its keep-alive timeout raced
      // the send): sent once more rather than counted as a failed attempt. Should the first copy
      // have arrived after all, a duplicate is harmless (receivers apply by sequence).
      const { retry: _, ...result } = first.retry ? await once(request, target, started) : first;
      return result.status !== null && fromPrivate(request.url) ? { ...result, privateAddress: true } : result;
    },
    close() {
      void agent.destroy();
    },
  };
}
