/**
 * Cross-process wake-up, on PostgreSQL: process A serves the API without background work
 * (NO_BACKGROUND=1), process B runs delivery. Each sample is one staff rate override of one night
 * through A (one rates.changed event); the time runs from A's 201 to the receiver's arrival of that
 * event (both on the shared wall clock; the receiver notes arrival times, bench/lib/receiver.mjs).
 * A's commit notifies B through pg_notify; without it B would find the event on its scan (5 s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { call, createProperty, setupIntegration, staff } from '../lib/api.js';
import type { Service } from '../lib/processes.js';
import type { Receiver } from './delivery.js';
import { wallMs } from './common.js';

export type WakeupResult = {
  samples: number;
  p50: number;
  p90: number;
  max: number;
  /** Samples not delivered within 10 s. */
  lost: number;
  all: number[];
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];

export async function wakeupRun(a: Service, receiver: Receiver, samples = 40): Promise<WakeupResult> {
  const path = `/wake-${Date.now().toString(36)}`;
  // Only rates.changed goes out: one event per override.
  const integration = await setupIntegration(a.base, { webhook: { url: `${receiver.base}${path}`, event_types: ['rates.changed'] } });
  const property = await createProperty(a.base, integration.apiKey, `WAKE-${Date.now().toString(36)}`, 1);
  const me = async () =>
    (await call<{ webhook: { undelivered_events: number } }>(a.base, integration.apiKey, 'GET', '/api/integrations/v1/me')).body.data.webhook;
  // the property's initial rates months, delivered before the samples start
  const settled = Date.now() + 30_000;
  while ((await me()).undelivered_events > 0 && Date.now() < settled) await sleep(50);
  const initial = (await receiver.stats())[path]?.count ?? 0;

  const night = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const delays: number[] = [];
  let lost = 0;
  let delivered = initial;
  for (let i = 0; i < samples; i++) {
    const res = await staff(a.base, 'PUT', `/properties/${property.doorloom_id}/rates`, { from: night, to: night, base_price: 4000 + i });
    const answeredAt = wallMs();
    if (res.status !== 200) throw new Error(`rate override failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    const deadline = Date.now() + 10_000;
    let stream;
    for (;;) {
      stream = (await receiver.stats())[path];
      if ((stream?.count ?? 0) > delivered || Date.now() > deadline) break;
      await sleep(5);
    }
    if ((stream?.count ?? 0) > delivered) {
      delivered = stream.count;
      delays.push(Math.max(0, stream.last - answeredAt));
    } else {
      lost += 1;
    }
    await sleep(20);
  }
  const sorted = [...delays].sort((x, y) => x - y);
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    samples: delays.length,
    p50: r(percentile(sorted, 0.5)),
    p90: r(percentile(sorted, 0.9)),
    max: r(sorted[sorted.length - 1] ?? 0),
    lost,
    all: sorted.map(r),
  };
}
