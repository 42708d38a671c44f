import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, createSender, KEPT_ANSWER_BYTES, type Sender } from '../../src/modules/webhooks/webhooks.send.js';

/** A receiver whose answer each test sets; it records every request and every connection. */
let handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
const seen: Array<{ socket: Socket; headers: http.IncomingHttpHeaders; body: string }> = [];
let connections = 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    seen.push({ socket: req.socket, headers: req.headers, body });
    handle(req, res, body);
  });
});
server.on('connection', () => (connections += 1));
server.keepAliveTimeout = 30_000;
let base = '';
let sender: Sender;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  sender?.close();
  seen.length = 0;
  connections = 0;
});

const send = (path: string, extra: { timeoutMs?: number; cancellable?: (cancel: (() => void) | null) => void } = {}) =>
  sender.send({
    url: new URL(`${base}${path}`),
    headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' },
    body: '{"n":1}',
    timeoutMs: extra.timeoutMs ?? 5_000,
    cancellable: extra.cancellable,
  });

describe('the webhook sender', () => {
  it('posts the body with the given headers and keeps the first 4 KB of the answer', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = (_req, res) => res.end('a'.repeat(10_000));
    const result = await send('/hook?x=1');
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.body).toHaveLength(KEPT_ANSWER_BYTES);
    expect(seen[0].body).toBe('{"n":1}');
    expect(seen[0].headers).toMatchObject({ 'content-type': 'application/json', 'x-test': 'yes', 'content-length': '7' });
  });

  it('keeps its connections warm for a sequence of sends', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = (_req, res) => res.end('ok');
    for (let i = 0; i < 20; i++) expect((await send('/seq')).ok).toBe(true);
    // undici checks an idle connection for a close by the receiver (one turn of the event loop)
    // before it reuses it, so a sequence alternates between two warm connections
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('does not follow a redirect: a 3xx is a failed attempt with its status', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = (req, res) => {
      if (req.url === '/moved') return res.writeHead(302, { location: '/there' }).end();
      res.end('followed');
    };
    expect(await send('/moved')).toMatchObject({ ok: false, status: 302, error: null });
    expect(seen.map((s) => s.body)).toHaveLength(1);
  });

  it('counts the status of an answer over 256 KB and drops its connection instead of reading it all', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = (req, res) => {
      if (req.url === '/huge') {
        res.writeHead(200);
        const chunk = 'z'.repeat(64 * 1024);
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        res.on('error', () => {});
        more();
        return;
      }
      res.end('ok');
    };
    const result = await send('/huge');
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.body).toHaveLength(KEPT_ANSWER_BYTES);
    expect(await send('/after')).toMatchObject({ ok: true, status: 200, body: 'ok' });
  });

  it('gives up on an answer slower than the timeout', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = () => {}; // never answers
    const result = await send('/slow', { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toBe('RESPONSE_TIMEOUT: no complete answer within 0.2 s');
    expect(result.durationMs).toBeGreaterThanOrEqual(150);
  });

  it('gives up on a connection whose TLS handshake never completes after the connect timeout, before the answer deadline starts', async () => {
    sender = createSender({ insecure: true, private: true });
    const held: Socket[] = [];
    const silent = net.createServer((socket) => held.push(socket)); // accepts, never answers the hello
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const result = await sender.send({
        url: new URL(`https://127.0.0.1:${(silent.address() as AddressInfo).port}/x`),
        headers: {},
        body: '{}',
        timeoutMs: 1_000,
      });
      expect(result.error).toBe(`CONNECT_TIMEOUT: no connection within ${CONNECT_TIMEOUT_MS / 1000} s`);
      expect(result.durationMs).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 100);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 15_000);

  it('reports a refused connection with its system code', async () => {
    sender = createSender({ insecure: true, private: true });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await sender.send({ url: new URL(`http://127.0.0.1:${port}/x`), headers: {}, body: '{}', timeoutMs: 1_000 });
    expect(result.error).toMatch(/^ECONNREFUSED: /);
  });

  it('sends once more when the receiver closes a warm connection as it is reused, but not a fresh one', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = (_req, res) => res.end('ok');
    expect((await send('/first')).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 20)); // the connection is idle and checked: it is the one reused
    // the receiver drops the warm connection on the next request, without an answer
    handle = (req, res) => {
      if (req.url === '/raced' && seen.filter((s) => s.socket === req.socket).length > 1) return req.socket.destroy();
      res.end('second copy');
    };
    expect(await send('/raced')).toMatchObject({ ok: true, status: 200, body: 'second copy' });
    expect(seen.map((s) => s.socket.remotePort === seen[0].socket.remotePort)).toEqual([true, true, false]);
    expect(connections).toBe(2);

    // a fresh connection closed without an answer is a failed attempt, sent once
    sender.close();
    sender = createSender({ insecure: true, private: true });
    seen.length = 0;
    handle = (req) => req.socket.destroy();
    const failed = await send('/dropped');
    expect(failed).toMatchObject({ ok: false, status: null });
    expect(failed.error).toMatch(/^ECONNRESET: the connection was closed/);
    expect(seen).toHaveLength(1);
  });

  it('is cut off by the worker while waiting for the answer', async () => {
    sender = createSender({ insecure: true, private: true });
    handle = () => {};
    let cancel: (() => void) | null = null;
    const pending = send('/held', { timeoutMs: 10_000, cancellable: (c) => (cancel = c) });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(cancel).not.toBeNull();
    cancel!();
    expect((await pending).error).toBe('ABORTED: delivery stopped by the worker');
    expect(cancel).toBeNull();
  });

  it('refuses a loopback address unless insecure targets are allowed, without connecting', async () => {
    sender = createSender({ insecure: false, private: false });
    const result = await sender.send({ url: new URL(`${base.replace('http:', 'https:')}/x`), headers: {}, body: '{}', timeoutMs: 1_000 });
    expect(result.error).toMatch(/^FORBIDDEN_ADDRESS: 127\.0\.0\.1 is a loopback/);
    expect(connections).toBe(0);
  });
});
