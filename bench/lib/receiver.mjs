// The webhook receiver of the delivery benchmarks: a tiny loopback HTTP server in its own process
// that answers every POST with 200 at once. Per path it counts requests and bytes, notes the wall
// time (ms, sub-ms precision, comparable across processes) of the first and last arrival, and
// checks that the envelope `sequence` numbers arrive in order with no repeat. Prints
// "listening <port>".
//   GET /stats -> { "<path>": { count, bytes, first, last, lastSequence, outOfOrder } }
import http from 'node:http';

const streams = new Map();
const now = () => performance.timeOrigin + performance.now();
const SEQUENCE = /"sequence":(\d+)/;
const answer = '{"ok":true}';

const server = http.createServer((req, res) => {
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
  });
});
server.keepAliveTimeout = 120_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`listening ${process.env.PORT}\n`));
process.on('SIGTERM', () => process.exit(0));
