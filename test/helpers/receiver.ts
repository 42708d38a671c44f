import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it: the raw body bytes as text, headers lower-cased. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON (webhook envelopes). */
  json: any;
  /** X-Service-Integration of the request. */
  integration: string;
}

/** How the receiver answers one request. */
export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (real time). */
  delayMs?: number;
  /** Drop the connection instead of answering. */
  hangUp?: boolean;
}

export type Responder = (request: ReceivedRequest) => Answer | Promise<Answer>;

/**
 * A real HTTP server on a loopback port that records every request and answers as scripted:
 * queued answers first (`script`), then the `respond` function (200 by default). It also tracks
 * how many requests of each integration are in flight at once.
 */
export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:40123 (append any path). */
  url: string;
  requests: ReceivedRequest[];
  respond: Responder;
  /** Answers for the next requests, in order; after them `respond` answers. */
  script(...answers: Answer[]): void;
  /** Highest number of simultaneous requests seen per integration slug. */
  maxInFlight: Map<string, number>;
  /** Requests of one integration (by slug), in arrival order. */
  of(slug: string): ReceivedRequest[];
  /** Resolves once `predicate` holds over the requests so far; throws after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  clear(): void;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: '{"ok":true}' })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const queued: Answer[] = [];
  const inFlight = new Map<string, number>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // not JSON: kept as text only
      }
      const integration = String(req.headers['x-service-integration'] ?? '');
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, json, integration };
      const now = (inFlight.get(integration) ?? 0) + 1;
      inFlight.set(integration, now);
      if (now > (receiver.maxInFlight.get(integration) ?? 0)) receiver.maxInFlight.set(integration, now);
      const done = () => {
        inFlight.set(integration, (inFlight.get(integration) ?? 1) - 1);
      };
      requests.push(received);
      notify();
      let answer: Answer;
      try {
        answer = queued.length > 0 ? queued.shift()! : await receiver.respond(received);
      } catch {
        answer = { status: 500 };
      }
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.hangUp) {
        done();
        req.socket.destroy();
        return;
      }
      // in flight until the answer has left: the sender cannot send its next request before then
      res.on('finish', done);
      res.on('close', () => {
        if (!res.writableFinished) done();
      });
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond,
    maxInFlight: new Map(),
    script(...answers) {
      queued.push(...answers);
    },
    of(slug) {
      return requests.filter((r) => r.integration === slug);
    },
    waitFor(predicate, timeoutMs = 15_000, what = 'the expected requests') {
      if (predicate(requests)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(requests)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `receiver: timed out waiting for ${what}; got ${requests.length} requests: ${requests
                .slice(-5)
                .map((r) => r.body.slice(0, 120))
                .join(' | ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
      });
    },
    clear() {
      requests.length = 0;
      receiver.maxInFlight.clear();
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
