/**
 * Booking creates with a network between the service and PostgreSQL: both go through an in-process
 * TCP proxy that holds every chunk DELAY_MS in each direction (a database in another zone). What a
 * create costs then is mostly its round trips: the proxy counts the writes the service sends
 * (one per round trip: a statement, or statements sent together, with one Sync) while the creates
 * run one at a time. Then 20 clients on one property, whose creates queue for its calendar lock:
 * the round trips made while holding it bound the rate. The baseline is the single-row INSERT
 * transaction through the same proxy (begin, insert, commit: three round trips).
 */
import net from 'node:net';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import { bookingBody, createProperty, setupIntegration } from '../lib/api.js';
import { drive } from '../lib/clients.js';
import { onCleanup, type Service } from '../lib/processes.js';
import { SECONDS, WARMUP_SECONDS } from './common.js';

export const DELAY_MS = 1;

/** A delaying proxy to PostgreSQL on a free port; `writes` counts the chunks clients sent. */
export async function delayProxy(target: URL): Promise<{ port: number; writes: () => number; close(): Promise<void> }> {
  let writes = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
    }
    const forward = (from: net.Socket, to: net.Socket, count: boolean) =>
      from.on('data', (chunk) => {
        if (count) writes++;
        setTimeout(() => to.writable && to.write(chunk), DELAY_MS);
      });
    forward(client, upstream, true);
    forward(upstream, client, false);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  onCleanup(close);
  return { port: (server.address() as net.AddressInfo).port, writes: () => writes, close };
}

/** The database URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

export interface NetworkResult {
  sequential: { p50: number; p99: number; creates: number; writesPerCreate: number };
  onePropertyPerSecond: number;
  onePropertyP50: number;
  other: string;
}

/** The two runs against a service whose DATABASE_URL goes through `proxy`. */
export async function networkRun(service: Service, proxy: { writes: () => number }): Promise<NetworkResult> {
  const integration = await setupIntegration(service.base, { name: 'Bench network' });
  await createProperty(service.base, integration.apiKey, 'NET', 20);
  const day0 = addDays(kolkataDate(Date.now()), 3);
  const run = Date.now().toString(36);
  let count = 0;
  // every request books a unit and stay no other books: unit n mod 20, two nights from 2·(n div 20)
  const shot = () => {
    const n = count++;
    const checkIn = addDays(day0, 2 * Math.floor(n / 20));
    return {
      path: '/api/integrations/v1/bookings',
      headers: { authorization: `Bearer ${integration.apiKey}`, 'idempotency-key': `net-${run}-${n}` },
      body: bookingBody(`N-${run}-${n}`, 'NET', [`NET-U${(n % 20) + 1}`], checkIn, addDays(checkIn, 2)),
    };
  };
  let w0 = 0;
  let w1 = 0;
  const sequential = await drive({
    base: service.base,
    clients: 1,
    warmupSeconds: WARMUP_SECONDS,
    seconds: Math.min(SECONDS, 4),
    maxPerClient: 20 * 150,
    next: shot,
    onMeasureStart: () => (w0 = proxy.writes()),
    onMeasureEnd: () => (w1 = proxy.writes()),
  });
  const seqCreates = sequential.byStatus.get(201) ?? 0;
  const many = await drive({ base: service.base, clients: 20, warmupSeconds: WARMUP_SECONDS, seconds: Math.min(SECONDS, 4), maxPerClient: 150, next: shot });
  const other = [...sequential.byStatus, ...many.byStatus].filter(([s]) => s !== 201).map(([s, c]) => `${c}×${s}`);
  return {
    sequential: {
      p50: sequential.p50,
      p99: sequential.p99,
      creates: seqCreates,
      writesPerCreate: Math.round(((w1 - w0) / Math.max(1, sequential.total)) * 10) / 10,
    },
    onePropertyPerSecond: Math.round((many.byStatus.get(201) ?? 0) / many.seconds),
    onePropertyP50: many.p50,
    other: other.join(', ') || 'none',
  };
}

/** The INSERT baseline through the proxy, one client: its p50 and writes per insert. */
export async function networkBaseline(baselineBase: string, proxy: { writes: () => number }) {
  const day0 = addDays(kolkataDate(Date.now()), 3);
  let w0 = 0;
  let w1 = 0;
  const result = await drive({
    base: baselineBase,
    clients: 1,
    warmupSeconds: WARMUP_SECONDS,
    seconds: Math.min(SECONDS, 4),
    next: (_client, n) => ({ path: '/insert', body: bookingBody(`NB-${n}`, 'BASE', ['BASE-U1'], day0, addDays(day0, 2)) }),
    onMeasureStart: () => (w0 = proxy.writes()),
    onMeasureEnd: () => (w1 = proxy.writes()),
  });
  return { p50: result.p50, writesPerInsert: Math.round(((w1 - w0) / Math.max(1, result.total)) * 10) / 10 };
}
