// The webhook receiver of the delivery benchmarks: a tiny loopback HTTP server in its own process
// that answers every POST with 200 at once. Per path it counts requests and bytes, notes the wall
// time (ms, sub-ms precision, comparable across processes) of the first and last arrival, and
// checks that the envelope `sequence` numbers arrive in order with no repeat. Prints
// "listening <port>".
//   GET /stats -> { "<path>": { count, bytes, first, last, lastSequence, outOfOrder } }
//   GET /wait?path=<path>&sequence=<n> -> the same, once <path> has received sequence n (or after 10 s)
import http from 'node:http';

const streams = new Map();
const now = () => performance.timeOrigin + performance.now();
const SEQUENCE = /"sequence":(\d+)/;
const answer = '{"ok":true}';

/** Answers waiting for a path's count (GET /wait), checked as requests arrive. */
const waiters = new Set();
function answerStats(res) {
  const body = JSON.stringify(Object.fromEntries(streams));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
function wake(path) {
  for (const w of waiters) {
    if (w.path === path && (streams.get(path)?.lastSequence ?? 0) >= w.sequence) {
      waiters.delete(w);
      clearTimeout(w.timer);
      answerStats(w.res);
    }
  }
}

const server = http.createServer((req, res) => {
  if (req.url.startsWith('/wait?')) {
    req.resume();
    const query = new URL(req.url, 'http://receiver').searchParams;
    const w = { path: query.get('path'), sequence: Number(query.get('sequence')), res, timer: null };
    if ((streams.get(w.path)?.lastSequence ?? 0) >= w.sequence) return answerStats(res);
    w.timer = setTimeout(() => {
      waiters.delete(w);
      answerStats(res);
    }, 10_000);
    waiters.add(w);
    return;
  }
  if (req.url === '/stats') {
    req.resume();
    const body = JSON.stringify(Object.fromEntries(streams));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  let bytes = 0;
  let head = '';
  req.setEncoding('latin1');
  req.on('data', (chunk) => {
    bytes += chunk.length;
    if (head.length < 256) head += chunk.slice(0, 256);
  });
  req.on('end', () => {
    const at = now();
    let s = streams.get(req.url);
    if (!s) streams.set(req.url, (s = { count: 0, bytes: 0, first: at, last: at, lastSequence: 0, outOfOrder: 0 }));
    s.count += 1;
    s.bytes += bytes;
    s.last = at;
    const match = SEQUENCE.exec(head);
    if (match) {
      const sequence = Number(match[1]);
      if (sequence <= s.lastSequence) s.outOfOrder += 1;
      s.lastSequence = sequence;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
    res.end(answer);
    wake(req.url);
  });
});
server.keepAliveTimeout = 120_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`listening ${process.env.PORT}\n`));
process.on('SIGTERM', () => process.exit(0));
