import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { deliveryTargetProblem, guardedLookup } from './webhooks.url.js';

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
}

export interface SendRequest {
  url: URL;
  /** Sent as given, plus Content-Length (added to this object). */
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
 * Posts webhooks over keep-alive agents (one connection per integration stays warm, so an ordered
 * stream costs one round trip per event). Redirects are not followed: a 3xx is a failure.
 */
export interface Sender {
  send(request: SendRequest): Promise<SendResult>;
  close(): void;
}

interface Target {
  secure: boolean;
  problem: string | null;
  base: http.RequestOptions;
}

class SendError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function createSender(options: { allowInsecure: boolean }): Sender {
  const agentOptions = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 1024, maxFreeSockets: 1024, scheduling: 'lifo' as const };
  // Without WEBHOOK_ALLOW_INSECURE every resolved address is checked as the connection is made.
  const lookup = options.allowInsecure ? undefined : guardedLookup();
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  /**
   * Request options per URL, worked out once (turning a URL into options on every request showed
   * up in profiles of a long stream).
   */
  const targets = new Map<string, Target>();
  function targetOf(url: URL): Target {
    let target = targets.get(url.href);
    if (!target) {
      const secure = url.protocol === 'https:';
      target = {
        secure,
        problem: deliveryTargetProblem(url, options.allowInsecure),
        base: {
          protocol: url.protocol,
          hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          agent: secure ? httpsAgent : httpAgent,
          ...(lookup ? { lookup: lookup as never } : {}),
        },
      };
      if (targets.size >= 10_000) targets.clear();
      targets.set(url.href, target);
    }
    return target;
  }

  function once(request: SendRequest, target: Target, started: number): Promise<SendResult & { reused: boolean }> {
    return new Promise((resolve) => {
      const { secure } = target;
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      let connectTimer: NodeJS.Timeout | undefined;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        clearTimeout(connectTimer);
        request.cancellable?.(null);
        resolve({ ...result, reused: req.reusedSocket });
      };
      const fail = (code: string, message: string) =>
        finish({ ok: false, status: null, error: `${code}: ${message}`, durationMs: Math.round(performance.now() - started), body: null });

      request.headers['Content-Length'] = String(Buffer.byteLength(request.body));
      const req = (secure ? https : http).request({ ...target.base, headers: request.headers });
      request.cancellable?.(() => req.destroy(new SendError('ABORTED', 'delivery stopped by the worker')));

      const startDeadline = () => {
        deadline ??= setTimeout(
          () => req.destroy(new SendError('RESPONSE_TIMEOUT', `no complete answer within ${request.timeoutMs / 1000} s`)),
          request.timeoutMs,
        );
      };
      req.on('socket', (socket: Socket) => {
        if (!socket.connecting) return startDeadline(); // a warm keep-alive connection
        connectTimer = setTimeout(() => req.destroy(new SendError('CONNECT_TIMEOUT', `no connection within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          clearTimeout(connectTimer);
          startDeadline();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        const code = error instanceof SendError ? error.code : (error as { code?: string }).code ?? 'REQUEST_FAILED';
        fail(code, error.message);
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let total = 0;
        const result = (): SendResult => ({
          ok: status >= 200 && status < 300,
          status,
          // NUL cannot be stored in a text column
          error: null,
          durationMs: Math.round(performance.now() - started),
          body: Buffer.concat(kept).toString('utf8').replace(/\u0000/g, ''),
        });
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (keptBytes < KEPT_ANSWER_BYTES) {
            const part = chunk.subarray(0, KEPT_ANSWER_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
          if (total > MAX_DRAIN_BYTES) {
            finish(result());
            res.destroy();
          }
        });
        res.on('end', () => finish(result()));
        res.on('error', (error) => fail('RESPONSE_FAILED', error.message));
        res.on('aborted', () => fail('RESPONSE_FAILED', 'the answer was cut off'));
      });
      req.end(request.body);
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
      // the send): sent once more on a fresh connection rather than counted as a failed attempt.
      // Should the first copy have arrived after all, a duplicate is harmless (receivers apply by
      // sequence).
      if (first.reused && first.status === null && /^(ECONNRESET|EPIPE)/.test(first.error ?? '')) {
        const { reused: _, ...second } = await once(request, target, started);
        return second;
      }
      const { reused: _, ...result } = first;
      return result;
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
