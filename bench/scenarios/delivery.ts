/**
 * Item 4: webhook delivery to a local receiver (bench/lib/receiver.mjs, a process
 * of its own answering 200 at once), on PostgreSQL, rate limits on (setup stays under the tiers).
 *
 * Events are recorded through the API before delivery starts: each integration is created
 * without a webhook URL and bulk-creates properties (41 events each: property, inventory, and
 * availability, rates and restrictions per month of the horizon), so its queue fills. Then the
 * URL is PATCHed on (staff API) and the drain is timed from just before the PATCH to the
 * receiver's last arrival (the receiver notes arrival times on the shared wall clock).
 *
 * Baselines, run in the same run to the same receiver with bodies of the same average size:
 * a bare sequential POST loop (one keep-alive connection) for the single stream, and 50 such
 * loops side by side for the 50-integration figure.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { bulkCreate, call, inParallel, setupIntegration, staff, staffIntegration } from '../lib/api.js';
import { backendPids, commitsOf, coresBetween, cpuSnapshot, keepAliveAgent, request } from '../lib/clients.js';
import type { Service } from '../lib/processes.js';
import { monotonicMicros } from '../lib/profile.js';
import { cpuPer, SECONDS, wallMs, type ProfileSession } from './common.js';

export const INTEGRATIONS = 50;
const EVENTS_PER_PROPERTY = 41;

interface StreamStats {
  count: number;
  bytes: number;
  first: number;
  last: number;
  lastSequence: number;
  outOfOrder: number;
}

export class Receiver {
  constructor(readonly base: string) {}
  async stats(): Promise<Record<string, StreamStats>> {
    const res = await fetch(`${this.base}/stats`, { signal: AbortSignal.timeout(10_000) });
    return (await res.json()) as Record<string, StreamStats>;
  }
  /** Polls until the streams whose path starts with `prefix` hold `expected` requests, or the deadline. */
  async waitFor(prefix: string, expected: number, timeoutMs: number) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const streams = Object.entries(await this.stats())
        .filter(([p]) => p.startsWith(prefix))
        .map(([, s]) => s);
      const count = streams.reduce((a, s) => a + s.count, 0);
      if (count >= expected || Date.now() > deadline) {
        return {
          count,
          bytes: streams.reduce((a, s) => a + s.bytes, 0),
          first: Math.min(Infinity, ...streams.map((s) => s.first)),
          last: Math.max(0, ...streams.map((s) => s.last)),
          outOfOrder: streams.reduce((a, s) => a + s.outOfOrder, 0),
          timedOut: count < expected,
        };
      }
      await sleep(50);
    }
  }
}

/** An envelope-shaped body of about `bytes` bytes for the bare loops. */
function bareBody(bytes: number, sequence: number) {
  const head = `{"id":"01BENCHBENCHBENCHBENCHBENCH","type":"availability.changed","sequence":${sequence},"data":"`;
  return `${head}${'x'.repeat(Math.max(0, bytes - head.length - 2))}"}`;
}

/**
 * `loops` bare sequential POST loops side by side (one keep-alive connection each) to the
 * receiver, `count` requests in all or `seconds`, whichever ends first. Requests a second.
 */
export async function bareLoops(receiver: Receiver, loops: number, count: number, bodyBytes: number, seconds: number) {
  const base = new URL(receiver.base);
  const perLoop = Math.ceil(count / loops);
  const body = bareBody(bodyBytes, 1);
  const headers = { 'webhook-id': 'msg_bench', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,' + 'x'.repeat(44) };
  // warm-up: the connections and the JIT
  await Promise.all(
    Array.from({ length: loops }, async (_, l) => {
      const agent = keepAliveAgent();
      for (let i = 0; i < 20; i++) await request(agent, base, { path: `/warm/${l}`, body, headers });
      agent.destroy();
    }),
  );
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: loops }, async (_, l) => {
      const agent = keepAliveAgent();
      for (let i = 0; i < perLoop && performance.now() < deadline; i++) {
        const answer = await request(agent, base, { path: `/bare/${loops}/${l}`, body: bareBody(bodyBytes, i + 1), headers });
        if (answer.status !== 200) throw new Error(`receiver answered ${answer.status}`);
        sent += 1;
      }
      agent.destroy();
    }),
  );
  return sent / ((performance.now() - started) / 1000);
}

/** The bare loops three times (each short, so one run is at the mercy of the machine's load): the median. */
export async function bareMedian(receiver: Receiver, loops: number, count: number, bodyBytes: number): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) runs.push(await bareLoops(receiver, loops, count, bodyBytes, SECONDS));
  return Math.round(runs.sort((a, b) => a - b)[1]);
}

interface Seeded {
  id: number;
  events: number;
}

/** An integration without a webhook URL whose queue holds `properties` × 41 events. */
async function seededIntegration(service: Service, brandId: number, name: string, properties: number): Promise<Seeded> {
  const integration = await setupIntegration(service.base, { brandId, name });
  for (let done = 0; done < properties; done += 25) {
    const ids = Array.from({ length: Math.min(25, properties - done) }, (_, i) => `${name}-P${done + i}`);
    await bulkCreate(service.base, integration.apiKey, ids);
  }
  const view = await staffIntegration(service.base, integration.id);
  return { id: integration.id, events: view.webhook.last_sequence };
}

async function patchUrl(service: Service, id: number, url: string) {
  const res = await staff(service.base, 'PATCH', `/integrations/${id}`, { webhook: { url } });
  if (res.status !== 200) throw new Error(`PATCH webhook url: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
}

/** Every event of the integrations delivered, by the staff view's cursor. */
async function allDelivered(service: Service, ids: number[]) {
  const views = await Promise.all(ids.map((id) => staffIntegration(service.base, id)));
  return views.every((v) => v.delivery.cursor_sequence === v.webhook.last_sequence);
}

export interface DrainResult {
  events: number;
  delivered: number;
  ms: number;
  perSecond: number;
  firstMs: number;
  streamingPerSecond: number;
  avgBytes: number;
  outOfOrder: number;
  timedOut: boolean;
  cursorsAtHead: boolean;
  cores: ReturnType<typeof coresBetween>;
  commitsPer100Events: number;
}

async function drain(
  service: Service,
  pgUrl: string,
  receiver: Receiver,
  seeded: Seeded[],
  prefix: string,
  session: ProfileSession | null,
  windowName: string,
): Promise<DrainResult> {
  const events = seeded.reduce((a, s) => a + s.events, 0);
  const commits0 = await commitsOf(pgUrl);
  const pgPids = await backendPids(pgUrl);
  const cpu0 = cpuSnapshot(service.pid, pgPids);
  const fromMicros = monotonicMicros();
  const t0 = wallMs();
  await Promise.all(seeded.map((s, i) => patchUrl(service, s.id, `${receiver.base}${prefix}${i}`)));
  // bounded: at worst 100 events a second, and at least a minute
  const got = await receiver.waitFor(prefix, events, Math.max(60_000, events * 10));
  const cores = coresBetween(cpu0, cpuSnapshot(service.pid, pgPids));
  await sleep(1000); // pg_stat_database catches up about once a second
  const commits = (await commitsOf(pgUrl)) - commits0;
  session?.windows.push({ name: windowName, from: fromMicros, to: fromMicros + Math.round((got.last - t0) * 1000) });
  const ms = got.last - t0;
  return {
    events,
    delivered: got.count,
    ms: Math.round(ms),
    perSecond: Math.round(got.count / (ms / 1000)),
    // from the PATCH to the first event at the receiver (URL change, claim, state and first batch read)
    firstMs: Math.round(got.first - t0),
    // first to last arrival: the rate once streaming
    streamingPerSecond: Math.round((got.count - 1) / ((got.last - got.first) / 1000)),
    avgBytes: Math.round(got.bytes / Math.max(1, got.count)),
    outOfOrder: got.outOfOrder,
    timedOut: got.timedOut,
    cursorsAtHead: await allDelivered(
      service,
      seeded.map((s) => s.id),
    ),
    // to the end of the poll that saw the last event: a little idle time included
    cores,
    ...cpuPer(cores, got.count),
    // transactions committed in the database during the drain (and the second after), per 100 events
    commitsPer100Events: Math.round((commits / Math.max(1, got.count)) * 1000) / 10,
  };
}

/** Item 3a: 50 integrations' queues drained at once. Events per integration follow BENCH_SECONDS. */
export async function manyStreams(service: Service, pgUrl: string, receiver: Receiver, session: ProfileSession | null) {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench delivery' })).body.data.id;
  // about SECONDS × 1,000 events in all (the target rate), at least one property each
  const properties = Math.max(1, Math.round((SECONDS * 1000) / INTEGRATIONS / EVENTS_PER_PROPERTY));
  const seeded = await inParallel(
    Array.from({ length: INTEGRATIONS }, (_, i) => i),
    4,
    (i) => seededIntegration(service, brand, `M${i}`, properties),
  );
  const result = await drain(service, pgUrl, receiver, seeded, '/many/', session, 'delivery: 50 integrations');
  const baseline = await bareMedian(receiver, INTEGRATIONS, result.events, result.avgBytes);
  return { ...result, baseline };
}

/**
 * One integration's ordered stream, `drains` times: as many integrations are seeded first and
 * drained one after another (paths /single/<label><round>/, `label` keeping the receiver's streams
 * of several calls apart); the round with the median rate is reported.
 */
export async function orderedDrains(service: Service, pgUrl: string, receiver: Receiver, session: ProfileSession | null, drains: number, label = '') {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench stream' })).body.data.id;
  // about SECONDS × 500 events each, in whole bulks of 25 properties
  const properties = 25 * Math.max(1, Math.round((SECONDS * 500) / EVENTS_PER_PROPERTY / 25));
  const seeded: Seeded[] = [];
  for (let r = 0; r < drains; r++) seeded.push(await seededIntegration(service, brand, `S${label}${r}`, properties));
  const rounds: DrainResult[] = [];
  for (let r = 0; r < seeded.length; r++)
    rounds.push(await drain(service, pgUrl, receiver, [seeded[r]], `/single/${label}${r}/`, session, 'delivery: one ordered stream'));
  const result = [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)];
  return { ...result, rounds: rounds.map((r) => r.perSecond) };
}

/**
 * Item 3b: one integration's ordered stream against a bare sequential POST loop, the median of
 * three drains (a drain lasts under a second: one alone is at the mercy of the machine's load).
 */
export async function singleStream(service: Service, pgUrl: string, receiver: Receiver, session: ProfileSession | null) {
  const result = await orderedDrains(service, pgUrl, receiver, session, 3);
  const baseline = await bareMedian(receiver, 1, result.events, result.avgBytes);
  return { ...result, baseline };
}

/**
 * Item 4: a 25-item bulk create by an integration whose webhook is live. Times from the request:
 * until all its events are committed (the integration's last_sequence reaching its final value,
 * read from the database every 5 ms on a connection of the bench's own; the bulk commits item by
 * item), until the
 * response arrives (it also stores the idempotency record, after the commit), and until the
 * receiver has them all. `rounds` times, each with an integration of its own.
 */
export async function fanOut(service: Service, pgUrl: string, receiver: Receiver, rounds: number) {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench fan-out' })).body.data.id;
  const out: Array<{
    events: number;
    committedMs: number;
    responseMs: number;
    firstDeliveredMs: number;
    deliveredMs: number;
    avgBytes: number;
    outOfOrder: number;
    timedOut: boolean;
  }> = [];
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  try {
    for (let r = 0; r < rounds; r++) {
      const integration = await setupIntegration(service.base, { brandId: brand, name: `Bench fan-out ${r}`, webhook: { url: `${receiver.base}/fan/${r}/` } });
      const t0 = wallMs();
      let responded = false;
      // (ms, last_sequence) seen while the request runs: the bulk commits item by item
      const seen: Array<[number, number]> = [];
      const polling = (async () => {
        for (let i = 0; i < 12_000 && !responded; i++) {
          const { rows } = await db.query<{ last_sequence: string }>('select last_sequence from integrations where id = $1', [integration.id]);
          seen.push([wallMs() - t0, Number(rows[0].last_sequence)]);
          await sleep(5);
        }
      })();
      await bulkCreate(
        service.base,
        integration.apiKey,
        Array.from({ length: 25 }, (_, i) => `F${r}-P${i}`),
      );
      const responseMs = wallMs() - t0;
      responded = true;
      await polling;
      const events = (await staffIntegration(service.base, integration.id)).webhook.last_sequence;
      const committedMs = seen.find(([, n]) => n >= events)?.[0] ?? responseMs;
      const got = await receiver.waitFor(`/fan/${r}/`, events, 60_000);
      const stream = (await receiver.stats())[`/fan/${r}/`];
      const first = stream?.first ?? NaN;
      out.push({
        events,
        committedMs: Math.round(committedMs),
        responseMs: Math.round(responseMs),
        firstDeliveredMs: Math.round(first - t0),
        deliveredMs: Math.round(got.last - t0),
        avgBytes: Math.round((stream?.bytes ?? 0) / Math.max(1, stream?.count ?? 0)),
        outOfOrder: got.outOfOrder,
        timedOut: got.timedOut,
      });
    }
  } finally {
    await db.end();
  }
  return out;
}

/**
 * Item 6: POST /sync for 100 properties × all five kinds at the 365-day horizon (about
 * 4,100 events). One integration with a webhook to the receiver creates the 100 properties (four
 * bulk calls) and has their creation events delivered first; its URL then moves to a path of its
 * own, and the sync is timed from the request: until the sync job has recorded its last event
 * (sync_jobs.finished_at, polled in the database) and until the receiver holds every one of them.
 * Baseline: the same number of events posted by a bare sequential loop (median of 3).
 */
export async function syncRun(service: Service, pgUrl: string, receiver: Receiver) {
  const brand = (await staff<{ id: number }>(service.base, 'POST', '/brands', { name: 'Bench sync' })).body.data.id;
  const integration = await setupIntegration(service.base, { brandId: brand, name: 'Bench sync', webhook: { url: `${receiver.base}/sync-setup/` } });
  const ids: number[] = [];
  for (let done = 0; done < 100; done += 25) {
    const created = await bulkCreate(
      service.base,
      integration.apiKey,
      Array.from({ length: 25 }, (_, i) => `SYNC-P${done + i}`),
    );
    for (const item of created.results) if (item.property) ids.push(item.property.doorloom_id);
  }
  if (ids.length !== 100) throw new Error(`sync set-up: ${ids.length} properties created`);
  const before = (await staffIntegration(service.base, integration.id)).webhook.last_sequence;
  await receiver.waitFor('/sync-setup/', before, 60_000);
  await patchUrl(service, integration.id, `${receiver.base}/sync/`);
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  try {
    const t0 = wallMs();
    const res = await call(service.base, integration.apiKey, 'POST', '/api/integrations/v1/sync', { property_ids: ids });
    if (res.status !== 202) throw new Error(`POST /sync answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    const responseMs = wallMs() - t0;
    let recordedMs = NaN;
    for (let i = 0; i < 12_000; i++) {
      const { rows } = await db.query<{ done: boolean | null }>(`select bool_and(finished_at is not null) as done from sync_jobs where integration_id = $1`, [
        integration.id,
      ]);
      if (rows[0].done) {
        recordedMs = wallMs() - t0;
        break;
      }
      await sleep(10);
    }
    const events = (await staffIntegration(service.base, integration.id)).webhook.last_sequence - before;
    const got = await receiver.waitFor('/sync/', events, 120_000);
    const deliveredMs = got.last - t0;
    const avgBytes = Math.round(got.bytes / Math.max(1, got.count));
    const bare = await bareMedian(receiver, 1, events, avgBytes);
    return {
      events,
      responseMs: Math.round(responseMs),
      recordedMs: Math.round(recordedMs),
      firstDeliveredMs: Math.round(got.first - t0),
      deliveredMs: Math.round(deliveredMs),
      delivered: got.count,
      avgBytes,
      outOfOrder: got.outOfOrder,
      timedOut: got.timedOut,
      bareRate: bare,
      bareMs: Math.round((events / bare) * 1000),
    };
  } finally {
    await db.end();
  }
}
