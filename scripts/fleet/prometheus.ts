/**
 * Debian's Prometheus watching the fleet: it scrapes every node's /metrics with METRICS_TOKEN and
 * evaluates deploy/prometheus/alerts.yml. `status` lists what fires; the fleet tests read the same
 * through Prometheus's HTTP API.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from '../lib.js';
import { launch } from './processes.js';
import { type FleetState, saveState, template, waitFor, writePrivate } from './topology.js';

/**
 * The fleet's scrape and evaluation rhythm: quick, so that an alert's life fits a test. Scraping
 * takes up to 5 s: a node whose database is away answers its scrape within 3 s (with
 * doorloom_ready 0), so a scrape that fails is a node down.
 */
const SCRAPE_INTERVAL = '5s';
const SCRAPE_TIMEOUT = '5s';
const EVALUATION_INTERVAL = '2s';

/**
 * The test thresholds (`up --test-alert-thresholds`, and the fleet tests): every `for` becomes 5 s,
 * and the undelivered-booking thresholds read as seconds instead of minutes (15 s and 30 s), so
 * that a killed node or a failing receiver fires its alert, and resolves it, within seconds. The
 * rules are otherwise the shipped ones.
 */
export const TEST_FOR = '5s';
const TEST_THRESHOLDS: Array<[from: RegExp, seconds: number]> = [
  [/(doorloom_webhook_oldest_undelivered_booking_seconds\) > )900\b/, 15],
  [/(doorloom_webhook_oldest_undelivered_booking_seconds\) > )1800\b/, 30],
];

export function withTestThresholds(rules: string): string {
  let text = rules.replace(/^(\s+for: )\S+$/gm, `$1${TEST_FOR}`);
  for (const [from, seconds] of TEST_THRESHOLDS) {
    if (!from.test(text)) throw new Error(`deploy/prometheus/alerts.yml: no ${from} to shorten for the test thresholds`);
    text = text.replace(from, (_, head: string) => `${head}${seconds}`);
  }
  return text;
}

export const prometheusUrl = (state: FleetState) => `http://127.0.0.1:${state.prometheus.port}`;

/** Starts Prometheus (the nodes must be up) and waits until it has scraped every node. */
export async function startPrometheus(state: FleetState, log: (line: string) => void): Promise<void> {
  const prometheus = state.prometheus;
  const dir = path.join(state.stateDir, 'prometheus');
  const rules = await readFile(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');
  const rulesFile = path.join(state.stateDir, 'alerts.yml');
  await writePrivate(rulesFile, prometheus.testThresholds ? withTestThresholds(rules) : rules);
  const tokenFile = path.join(state.stateDir, 'metrics-token');
  await writePrivate(tokenFile, state.metricsToken);
  const config = await template('prometheus/prometheus.yml', {
    SCRAPE_INTERVAL,
    SCRAPE_TIMEOUT,
    EVALUATION_INTERVAL,
    RULES: rulesFile,
    METRICS_TOKEN_FILE: tokenFile,
    TARGETS: state.nodes.map((n) => `'127.0.0.1:${n.port}'`).join(', '),
  });
  const configFile = path.join(state.stateDir, 'prometheus.yml');
  await writePrivate(configFile, config);
  prometheus.pid = launch(
    'prometheus',
    [`--config.file=${configFile}`, `--storage.tsdb.path=${dir}`, '--storage.tsdb.retention.time=2d', `--web.listen-address=127.0.0.1:${prometheus.port}`],
    path.join(state.stateDir, 'prometheus.log'),
    { cwd: state.stateDir },
  );
  await saveState(state);
  const logFile = path.join(state.stateDir, 'prometheus.log');
  await waitFor('Prometheus ready', async () => (await fetch(`${prometheusUrl(state)}/-/ready`, { signal: AbortSignal.timeout(2_000) })).ok, 60_000, logFile);
  await waitFor(
    'Prometheus scraping every node',
    async () => {
      const targets = (await prometheusApi<{ activeTargets: Array<{ health: string }> }>(state, '/api/v1/targets?state=active')).activeTargets;
      return targets.length === state.nodes.length && targets.every((t) => t.health === 'up');
    },
    60_000,
    logFile,
  );
  log(`Prometheus on ${prometheus.port}${prometheus.testThresholds ? ' (test alert thresholds)' : ''}, scraping ${state.nodes.length} nodes`);
}

/** `data` of a Prometheus HTTP API answer. */
export async function prometheusApi<T = unknown>(state: FleetState, route: string): Promise<T> {
  const res = await fetch(`${prometheusUrl(state)}${route}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`Prometheus ${route}: ${body.error ?? res.status}`);
  return body.data;
}

export interface ActiveAlert {
  name: string;
  state: 'pending' | 'firing';
  labels: Record<string, string>;
  activeAt: string;
}

/** The alerts pending or firing now. */
export async function activeAlerts(state: FleetState): Promise<ActiveAlert[]> {
  const { alerts } = await prometheusApi<{ alerts: Array<{ labels: Record<string, string>; state: 'pending' | 'firing'; activeAt: string }> }>(
    state,
    '/api/v1/alerts',
  );
  return alerts.map((a) => ({ name: a.labels.alertname, state: a.state, labels: a.labels, activeAt: a.activeAt }));
}
