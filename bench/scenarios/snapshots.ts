/**
 * Item 3: the 92-night availability snapshot (and the rates and restrictions
 * snapshots beside it) of a 50-unit property with bookings, one
 * client, requests one after another; p50/p99. Baseline: the same client against the bare
 * Fastify route answering the same number of bytes (transfer and framework, no work).
 *
 * The property is created through the API and booked through POST /bookings (groups of five
 * units, stays of 1–5 nights with gaps of 0–3, the same pseudo-random plan on both engines), plus
 * host settings (a blocked week, a capped week, two units blocked for three weeks). Property reads
 * are limited to 120 a minute per integration, so the service runs with RATE_LIMITS=off.
 */
import { freePort } from '../../scripts/lib.js';
import { addDays, kolkataDate } from '../../src/lib/time.js';
import { bookingBody, call, createProperty, inParallel, setupIntegration, staff } from '../lib/api.js';
import { keepAliveAgent, percentile, request, sequential, type Shot } from '../lib/clients.js';
import pg from 'pg';
import path from 'node:path';
import { ROOT, startScript, type Service } from '../lib/processes.js';
import { SECONDS } from './common.js';

const UNITS = 50;
const GROUP = 5;
const NIGHTS = 92;
const REQUESTS = Number(process.env.BENCH_SNAPSHOT_REQUESTS ?? 200);
/** Reads that each follow a host edit of the window (so none is served from the snapshot cache). */
const AFTER_WRITE = Number(process.env.BENCH_SNAPSHOT_AFTER_WRITE ?? 100);

type MeasureHooks = { onMeasureStart(): Promise<void>; onMeasureEnd(): void };

/** Deterministic pseudo-random numbers, so both engines get the same bookings. */
function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/**
 * `pgUrl` (PostgreSQL only): also time reads after a change that this process did not make, made
 * by `writer` (another process of the service on the same database, whose commits notify this
 * one) and in plain SQL (another node's write as the database sees it, with no notification).
 */
export async function snapshotRun(service: Service, baselineBase: string, hooks?: MeasureHooks, pgUrl?: string, writer?: Service) {
  // A receiver for the integration's webhooks: the reads after a webhook wait for its event.
  const receiverPort = await freePort();
  const receiver = await startScript(path.join(ROOT, 'bench/lib/receiver.mjs'), { PORT: String(receiverPort) }, /listening/);
  const receiverBase = `http://127.0.0.1:${receiverPort}`;
  try {
    return await measureSnapshots(service, baselineBase, receiverBase, hooks, pgUrl, writer);
  } finally {
    await receiver.stop();
  }
}

/**
 * The snapshot's property, created, booked and edited through the API; `shot` reads its 92-night
 * availability window.
 */
export async function seedSnapshot(service: Service) {
  const integration = await setupIntegration(service.base, { name: 'Bench snapshot' });
  const property = (await createProperty(service.base, integration.apiKey, 'SNAP', UNITS)) as unknown as {
    doorloom_id: number;
    units: Array<{ inventory_id: number }>;
  };
  const today = kolkataDate(Date.now());

  const random = rng(42);
  const stays: Array<{ units: string[]; from: string; to: string }> = [];
  for (let g = 0; g < UNITS / GROUP; g++) {
    const units = Array.from({ length: GROUP }, (_, k) => `SNAP-U${g * GROUP + k + 1}`);
    let night = 0;
    for (;;) {
      night += Math.floor(random() * 4);
      if (night >= NIGHTS) break;
      const length = Math.min(1 + Math.floor(random() * 5), NIGHTS - night);
      stays.push({ units, from: addDays(today, night), to: addDays(today, night + length) });
      night += length;
    }
  }
  await inParallel(stays, 4, async (stay, i) => {
    const ref = `S-${i}`;
    const res = await call(
      service.base,
      integration.apiKey,
      'POST',
      '/api/integrations/v1/bookings',
      bookingBody(ref, 'SNAP', stay.units, stay.from, stay.to),
      { 'idempotency-key': `snapshot-${ref}-${Date.now()}` },
    );
    if (res.status !== 201) throw new Error(`booking for the snapshot failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  });
  const host = async (body: object, through = service) => {
    const res = await staff(through.base, 'PUT', `/properties/${property.doorloom_id}/calendar`, body);
    if (res.status !== 200) throw new Error(`host calendar edit failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  await host({ from: addDays(today, 10), to: addDays(today, 16), block_scope: 'ota_only' });
  await host({ from: addDays(today, 30), to: addDays(today, 36), units_cap: 20 });
  await host({
    from: addDays(today, 40),
    to: addDays(today, 60),
    inventory_ids: property.units.slice(0, 2).map((u) => u.inventory_id),
    block_scope: 'everywhere',
  });

  const path = `/api/integrations/v1/properties/${property.doorloom_id}/availability?from=${today}&to=${addDays(today, NIGHTS - 1)}`;
  const shot = () => ({ path, headers: { authorization: `Bearer ${integration.apiKey}` } });
  return { integration, property, today, bookings: stays.length, host, shot };
}

/** REQUESTS sequential reads of the seeded availability snapshot after a warm-up: the cached steady state. */
export async function cachedReads(service: Service, shot: () => Shot, hooks?: MeasureHooks) {
  await sequential(service.base, shot, { warmup: 20, count: 0, seconds: SECONDS });
  // CPU (and, with BENCH_PROFILE=1, the profile window) of the availability reads alone
  await hooks?.onMeasureStart();
  const ours = await sequential(service.base, shot, { warmup: 0, count: REQUESTS, seconds: SECONDS });
  hooks?.onMeasureEnd();
  return ours;
}

async function measureSnapshots(service: Service, baselineBase: string, receiverBase: string, hooks?: MeasureHooks, pgUrl?: string, writer?: Service) {
  const { integration, property, today, bookings, host, shot } = await seedSnapshot(service);
  const ours = await cachedReads(service, shot, hooks);
  const bare = await sequential(baselineBase, () => ({ path: `/bytes/${ours.bytes}` }), { warmup: 20, count: ours.count, seconds: SECONDS });
  // The first read after a change: a host edit of the window's last night moves the calendar
  // version before each timed read. On PostgreSQL the service rebuilds its kept snapshot as the
  // edit commits (calendar.snapshot-refresh.ts), and the read, sent as soon as the edit's answer
  // arrives, joins that rebuild or finds it done; on PGlite the read rebuilds. The cached reads above are the steady state of a mirror that
  // re-reads an unchanged window.
  const agent = keepAliveAgent();
  const afterWrite: number[] = [];
  const elsewhere: number[] = [];
  const afterWebhook: number[] = [];
  const otherProcess: number[] = [];
  const timedRead = async (into: number[]) => {
    const sent = performance.now();
    const answer = await request(agent, new URL(service.base), shot());
    into.push(performance.now() - sent);
    if (answer.status !== 200) throw new Error(`snapshot after a write answered ${answer.status}`);
    return answer.body;
  };
  try {
    const last = addDays(today, NIGHTS - 1);
    for (let i = 0; i < AFTER_WRITE; i++) {
      await host({ from: last, to: last, units_cap: 48 + (i % 2) });
      await timedRead(afterWrite);
    }
    // A partner's read on its availability.changed: the integration gets its webhook now (the
    // reads above ran with no delivery beside them), and each read waits until the edit's event
    // has reached the receiver, as a mirror reading on its webhook would.
    const hooked = await staff(service.base, 'PATCH', `/integrations/${integration.id}`, { webhook: { url: `${receiverBase}/snapshot-hooks` } });
    if (hooked.status !== 200) throw new Error(`webhook set: ${hooked.status} ${JSON.stringify(hooked.body).slice(0, 300)}`);
    const sequenceOf = (body: string) => Number(/"sequence":(\d+)/.exec(body)?.[1]);
    let watermark = sequenceOf((await request(agent, new URL(service.base), shot())).body);
    for (let i = 0; i < AFTER_WRITE; i++) {
      await host({ from: last, to: last, units_cap: 48 + (i % 2) });
      const stats = (await (await fetch(`${receiverBase}/wait?path=/snapshot-hooks&sequence=${watermark + 1}`)).json()) as Record<
        string,
        { lastSequence: number }
      >;
      if ((stats['/snapshot-hooks']?.lastSequence ?? 0) <= watermark) throw new Error("the host edit's event did not reach the receiver within 10 s");
      watermark = sequenceOf(await timedRead(afterWebhook));
    }
    if (writer) {
      // The edit made by another process of the service. Its commit notifies the reading process
      // (it records an event for the webhook set above), which rebuilds its kept snapshot as its
      // own write would have it do (calendar.snapshot-refresh.ts); the read comes on the edit's answer.
      for (let i = 0; i < AFTER_WRITE; i++) {
        await host({ from: last, to: last, units_cap: 48 + (i % 2) }, writer);
        await timedRead(otherProcess);
      }
    }
    if (pgUrl) {
      // A change this process does not hear of: its read finds the version moved and rebuilds.
      const other = new pg.Client({ connectionString: pgUrl });
      await other.connect();
      try {
        for (let i = 0; i < AFTER_WRITE; i++) {
          await other.query(`update calendar_versions set version = nextval('calendar_version_seq') where property_id = $1`, [property.doorloom_id]);
          await timedRead(elsewhere);
        }
      } finally {
        await other.end();
      }
    }
  } finally {
    agent.destroy();
  }
  const summary = (times: number[]) => {
    times.sort((a, b) => a - b);
    return { count: times.length, bytes: ours.bytes, p50: percentile(times, 50), p99: percentile(times, 99) };
  };
  const missed = summary(afterWrite);
  const missedElsewhere = pgUrl ? summary(elsewhere) : null;
  const missedOtherProcess = writer ? summary(otherProcess) : null;
  const readOnWebhook = summary(afterWebhook);
  // the rates and restrictions snapshots of the same property and window, the same way
  const others: Record<string, { ours: Awaited<ReturnType<typeof sequential>>; bare: Awaited<ReturnType<typeof sequential>> }> = {};
  for (const kind of ['rates', 'restrictions']) {
    const other = `/api/integrations/v1/properties/${property.doorloom_id}/${kind}?from=${today}&to=${addDays(today, NIGHTS - 1)}`;
    const o = await sequential(service.base, () => ({ path: other, headers: { authorization: `Bearer ${integration.apiKey}` } }), {
      warmup: 20,
      count: REQUESTS,
      seconds: SECONDS,
    });
    const b = await sequential(baselineBase, () => ({ path: `/bytes/${o.bytes}` }), { warmup: 20, count: o.count, seconds: SECONDS });
    others[kind] = { ours: o, bare: b };
  }
  return {
    ours,
    bare,
    bookings,
    others,
    afterWrite: missed,
    afterWriteElsewhere: missedElsewhere,
    afterOtherProcess: missedOtherProcess,
    afterWebhook: readOnWebhook,
  };
}
