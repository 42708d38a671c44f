import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeAlerts,
  downFleet,
  fleetStatus,
  startNode,
  stopNode,
  upFleet,
  waitForProxyStatus,
  type ActiveAlert,
  type FleetState,
} from '../../scripts/fleet.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { api, bookingBody, newKey, seedPartner, sleep, staff, type Partner } from './fleet.helpers.js';

/**
 * The fleet watched by Prometheus (npm run fleet -- up starts it with deploy/prometheus): a killed
 * node and a failing receiver fire their alerts and resolve them, as Prometheus's HTTP API tells.
 * The fleet runs with the test thresholds (every `for` 5 s; an undelivered booking alerts at 15 s
 * and 30 s instead of 15 and 30 minutes: scripts/fleet/prometheus.ts).
 */

let state: FleetState;
let receiver: Receiver;
let failing = true;
let failed = false;

beforeAll(async () => {
  receiver = await startReceiver((r) =>
    failing && r.path.endsWith('/late-partner') ? { status: 503, body: 'down for maintenance' } : { status: 200, body: 'ok' },
  );
  state = await upFleet({ testAlertThresholds: true, log: (line) => console.log(`fleet: ${line}`) });
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  if (state) await downFleet(state.stateDir, { keep: failed || !!process.env.FLEET_KEEP, log: (line) => console.log(`fleet: ${line}`) });
}, 120_000);

function track(fn: () => Promise<void>) {
  return async () => {
    try {
      await fn();
    } catch (error) {
      failed = true;
      throw error;
    }
  };
}

/** Waits until Prometheus's alerts satisfy `check`; returns them. */
async function alertsUntil(what: string, check: (alerts: ActiveAlert[]) => boolean, timeoutMs = 90_000): Promise<ActiveAlert[]> {
  const until = Date.now() + timeoutMs;
  let last: ActiveAlert[];
  for (;;) {
    last = await activeAlerts(state);
    if (check(last)) return last;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms; alerts: ${JSON.stringify(last.map((a) => [a.name, a.state, a.labels]))}`);
    await sleep(1_000);
  }
}

const firing = (alerts: ActiveAlert[], name: string, labels: Record<string, string> = {}) =>
  alerts.some((a) => a.name === name && a.state === 'firing' && Object.entries(labels).every(([k, v]) => a.labels[k] === v));
const present = (alerts: ActiveAlert[], name: string, labels: Record<string, string> = {}) =>
  alerts.some((a) => a.name === name && Object.entries(labels).every(([k, v]) => a.labels[k] === v));

describe('the fleet watched by Prometheus', () => {
  it(
    'scrapes every node with METRICS_TOKEN, and nothing fires on a healthy fleet',
    track(async () => {
      const res = await fetch(`http://127.0.0.1:${state.prometheus.port}/api/v1/query?query=${encodeURIComponent('up{job="doorloom"}')}`);
      const { data } = (await res.json()) as { data: { result: Array<{ metric: { instance: string }; value: [number, string] }> } };
      expect(data.result.map((r) => r.metric.instance).sort()).toEqual(state.nodes.map((n) => `127.0.0.1:${n.port}`).sort());
      expect(data.result.every((r) => r.value[1] === '1')).toBe(true);
      const ready = await fetch(`http://127.0.0.1:${state.prometheus.port}/api/v1/query?query=doorloom_ready`);
      expect(((await ready.json()) as { data: { result: unknown[] } }).data.result).toHaveLength(state.nodes.length);
      expect((await activeAlerts(state)).filter((a) => a.state === 'firing')).toEqual([]);
    }),
  );

  it(
    'a node killed with -9 fires DoorloomNodeDown for that node, shown by status, and resolves once it is back',
    track(async () => {
      const node = state.nodes[1];
      const instance = `127.0.0.1:${node.port}`;
      await stopNode(state, node.name, 'SIGKILL');
      const alerts = await alertsUntil('NodeDown firing', (a) => firing(a, 'DoorloomNodeDown', { instance }));
      const down = alerts.find((a) => a.name === 'DoorloomNodeDown')!;
      expect(down.labels).toMatchObject({ severity: 'critical', job: 'doorloom', instance });
      // only that node
      expect(alerts.filter((a) => a.name === 'DoorloomNodeDown')).toHaveLength(1);
      const status = await fleetStatus(state.stateDir);
      expect(status).toMatch(new RegExp(`firing\\s+DoorloomNodeDown critical .*instance=${instance.replace(/\./g, '\\.')}`));
      expect(status).toContain(`${instance} down`);

      await startNode(state, node.name);
      await waitForProxyStatus(state, node.name, 'UP');
      await alertsUntil('NodeDown resolved', (a) => !present(a, 'DoorloomNodeDown'));
    }),
  );

  it(
    'a receiver that fails keeps a booking undelivered: both booking alerts fire for that integration, and resolve once it is delivered',
    track(async () => {
      const late: Partner = await seedPartner(state, 'late-partner', 1, receiver);
      const healthy: Partner = await seedPartner(state, 'fine-partner', 1, receiver);
      for (const partner of [late, healthy]) {
        const created = await api(state, partner.key, 'POST', '/bookings', { headers: { 'idempotency-key': newKey() }, body: bookingBody(partner, 0, 10) });
        expect(created.status, created.text).toBe(201);
      }
      const alerts = await alertsUntil(
        'both booking alerts firing',
        (a) => firing(a, 'DoorloomBookingUndelivered15m', { integration: late.slug }) && firing(a, 'DoorloomBookingUndelivered30m', { integration: late.slug }),
      );
      expect(alerts.find((a) => a.name === 'DoorloomBookingUndelivered30m')!.labels).toMatchObject({ severity: 'critical', integration: late.slug });
      expect(alerts.find((a) => a.name === 'DoorloomBookingUndelivered15m')!.labels).toMatchObject({ severity: 'warning', integration: late.slug });
      // the healthy partner's booking was delivered: nothing about it
      expect(present(alerts, 'DoorloomBookingUndelivered15m', { integration: healthy.slug })).toBe(false);

      failing = false;
      expect((await staff(state, 'POST', `/integrations/${late.id}/webhook/resume`)).status).toBe(200);
      await alertsUntil('booking alerts resolved', (a) => !present(a, 'DoorloomBookingUndelivered15m') && !present(a, 'DoorloomBookingUndelivered30m'));
      expect(receiver.requests.some((r) => r.path.endsWith('/late-partner') && r.json?.type === 'booking.changed')).toBe(true);
    }),
  );
});
