import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Deps } from '../../deps.js';
import { DELIVERY_OUTCOMES, SNAPSHOT_OUTCOMES, type AttemptResult, type DeliveryOutcome, type Metrics } from '../../lib/metrics.js';
import type { PoolStats } from '../../db/database.js';
import { selectIntegrationStates } from '../integrations/integrations.listing.sql.js';
import { backlogByIntegration } from '../webhooks/webhooks.stats.sql.js';
import { selectPausedStates } from '../webhooks/webhooks.sql.js';
import { probeClockRow } from '../clock/clock.sql.js';
import { retainedEventCount } from '../events/events.sql.js';

/** A counter by `outcome`, each outcome listed at 0 from the start (a rate over a missing series is no rate). */
function outcomeCounter(registry: Registry, name: string, help: string, outcomes: readonly string[]): Counter<'outcome'> {
  const counter = new Counter({ name, help, labelNames: ['outcome'] as const, registers: [registry] });
  for (const outcome of outcomes) counter.inc({ outcome }, 0);
  return counter;
}

/**
 * An attempt's outcome: a 2xx; another HTTP answer; no complete answer in time (connect or
 * response deadline); the connection refused, by the receiver's host or by the service itself
 * (a forbidden or unusable address, nothing sent); any other transport failure. Null for an
 * attempt the worker cut off itself (shutdown): its outcome is unknown and it is sent again.
 */
export function deliveryOutcome(result: AttemptResult): DeliveryOutcome | null {
  if (result.ok) return 'success';
  if (result.status !== null) return 'http_error';
  const code = (result.error ?? '').split(':', 1)[0];
  if (code === 'ABORTED') return null;
  if (code === 'RESPONSE_TIMEOUT' || code === 'CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ECONNREFUSED' || code === 'FORBIDDEN_ADDRESS' || code === 'INVALID_URL') return 'refused';
  return 'network_error';
}

/**
 * prom-client's default metrics describe the process (CPU, memory, event loop, GC), so one set per
 * process, whatever number of services it builds (tests build one per file).
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface Snapshot {
  states: Awaited<ReturnType<typeof selectIntegrationStates>>;
  backlog: Awaited<ReturnType<typeof backlogByIntegration>>;
  paused: Awaited<ReturnType<typeof selectPausedStates>>;
  retained: number;
  now: number;
}

/**
 * How long a scrape waits for the database's figures. Past it (or on an error) the scrape still
 * answers, with `doorloom_ready 0` and without those figures, so that Prometheus tells a node whose
 * database is away (DatabaseUnavailable) from a node that is down (NodeDown).
 */
const SCRAPE_DATABASE_MS = 3_000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The service's Prometheus metrics. Counters and histograms are fed by hooks at the points where
 * things happen (HTTP answers, event commits, delivery attempts); the database figures (backlog,
 * integrations by status, pool) are read when scraped. Every label value is bounded: route
 * templates, methods, status codes, event kinds, outcomes, integration slugs and pause reasons;
 * nothing is labelled by property or booking.
 */
export function createMetrics(deps: Pick<Deps, 'db' | 'clock' | 'signals'>, options: { poolStats?: () => PoolStats; clusterWorker?: boolean } = {}): Metrics {
  const registry = new Registry();

  const http = new HttpMetrics();
  registry.registerMetric(http.total as never);
  registry.registerMetric(http.duration as never);
  const eventsTotal = new Counter({
    name: 'doorloom_events_recorded_total',
    help: 'Events recorded (committed to the event log), by kind.',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const deliveriesTotal = outcomeCounter(
    registry,
    'doorloom_webhook_deliveries_total',
    'Webhook delivery attempts (events and pings), by outcome.',
    DELIVERY_OUTCOMES,
  );
  const snapshotsTotal = outcomeCounter(
    registry,
    'doorloom_availability_snapshots_total',
    'Availability snapshots: served as kept (version unchanged), built for a read, rebuilt after a write, whose rebuild failed, or rebuilt after a write and dropped before any read (wasted).',
    SNAPSHOT_OUTCOMES,
  );
  const deliveryDuration = new Histogram({
    name: 'doorloom_webhook_delivery_duration_seconds',
    help: 'Duration of webhook delivery attempts, from sending to the end of the answer.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });

  // One read of the database per scrape, shared by the gauges below (collected side by side);
  // null when the database did not answer in time.
  let loading: Promise<Snapshot | null> | null = null;
  const snapshot = () =>
    (loading ??= within(
      (async () => {
        await probeClockRow(deps.db);
        const [states, backlog, paused, retained] = await Promise.all([
          selectIntegrationStates(deps.db),
          backlogByIntegration(deps.db, null),
          selectPausedStates(deps.db),
          retainedEventCount(deps.db),
        ]);
        return { states, backlog, paused, retained, now: deps.clock.nowMs() };
      })(),
      SCRAPE_DATABASE_MS,
    )
      .catch(() => null)
      .finally(() => setImmediate(() => (loading = null))));

  // Database-wide figures: every worker reads the same, so the node reports one of them, not their sum.
  /** A gauge per active or paused integration (disabled ones excluded), read from the snapshot. */
  const perIntegration = (name: string, help: string, value: (s: Snapshot, id: number) => number, webhookOnly = false) =>
    new Gauge({
      name,
      help,
      labelNames: ['integration'] as const,
      aggregator: 'max',
      registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        if (s) for (const i of s.states) if (i.status !== 'disabled' && (!webhookOnly || i.has_webhook)) this.set({ integration: i.slug }, value(s, i.id));
      },
    });
  perIntegration(
    'doorloom_webhook_backlog_events',
    'Undelivered events per integration (disabled ones excluded).',
    (s, id) => s.backlog.get(id)?.undelivered ?? 0,
  );
  const ageOf = (s: Snapshot, at: Date | null | undefined) => (at ? Math.max(0, (s.now - at.getTime()) / 1000) : 0);
  perIntegration(
    'doorloom_webhook_oldest_undelivered_seconds',
    'Age of the oldest undelivered event per integration, in service-clock seconds (0 with none).',
    (s, id) => ageOf(s, s.backlog.get(id)?.oldestAt),
  );
  perIntegration(
    'doorloom_webhook_oldest_undelivered_booking_seconds',
    'Age of the oldest undelivered booking.changed event per integration with a webhook URL, in service-clock seconds (0 with none).',
    (s, id) => ageOf(s, s.backlog.get(id)?.oldestBookingAt),
    true,
  );
  new Gauge({
    name: 'doorloom_integration_paused',
    help: 'Integrations whose webhook delivery is paused (1), by slug and pause reason; absent when not paused.',
    labelNames: ['integration', 'reason'] as const,
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const s = await snapshot();
      this.reset();
      if (!s) return;
      const byId = new Map(s.states.map((i) => [i.id, i]));
      for (const p of s.paused) {
        const i = byId.get(p.integration_id);
        if (i?.status === 'paused') this.set({ integration: i.slug, reason: p.paused_reason ?? 'unknown' }, 1);
      }
    },
  });
  new Gauge({
    name: 'doorloom_ready',
    help: `Whether the database answered this scrape within ${SCRAPE_DATABASE_MS / 1000} s (1) or not (0): /readyz as a gauge.`,
    aggregator: 'min',
    registers: [registry],
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'doorloom_events_retained',
    help: "Events retained in the event log, all integrations (PostgreSQL's estimate once over 100,000; the last figure read while the database does not answer).",
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.retained);
    },
  });
  new Gauge({
    name: 'doorloom_integrations',
    help: 'Integrations by status.',
    labelNames: ['status'] as const,
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const s = await snapshot();
      this.reset();
      if (!s) return;
      const counts = { active: 0, paused: 0, disabled: 0 };
      for (const i of s.states) counts[i.status]++;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  if (options.poolStats) {
    const poolStats = options.poolStats;
    new Gauge({
      name: 'doorloom_db_pool_connections',
      help: 'PostgreSQL pool connections of the process: open (total), idle, and requests waiting for one.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const p = poolStats();
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'waiting' }, p.waiting);
      },
    });
  }

  // A cluster worker answers the primary's requests for its metrics (prom-client's own messages,
  // listened for once an AggregatorRegistry exists in the process).
  const defaults = processMetrics();
  if (options.clusterWorker) {
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([defaults, registry]);
  }

  const metrics: Metrics = {
    registry,
    contentType: registry.contentType,
    httpRequest(route, method, status, seconds) {
      http.record(route ?? 'unmatched', METHODS.has(method) ? method : 'other', status, seconds);
    },
    eventsRecorded(byType) {
      for (const [type, n] of byType) eventsTotal.inc({ type }, n);
    },
    deliveryAttempt(result) {
      const outcome = deliveryOutcome(result);
      if (!outcome) return;
      deliveriesTotal.inc({ outcome });
      deliveryDuration.observe(result.durationMs / 1000);
    },
    availabilitySnapshot(outcome) {
      snapshotsTotal.inc({ outcome });
    },
    text: async () => {
      // a scrape reads the database afresh, whatever an earlier one left
      loading = null;
      return options.clusterWorker ? askPrimary() : `${await defaults.metrics()}\n${await registry.metrics()}`;
    },
  };
  deps.signals.on('recorded', (byType: unknown) => {
    if (byType instanceof Map) metrics.eventsRecorded(byType);
  });
  return metrics;
}

const ASK = 'doorloom:metrics-request';
const ANSWER = 'doorloom:metrics-answer';
let asked = 0;

/** A cluster worker's scrape: the primary gathers every worker's metrics and answers with their sum. */
function askPrimary(): Promise<string> {
  const id = ++asked;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error('the primary did not answer the metrics request'));
    }, 10_000);
    const onMessage = (message: { type?: string; id?: number; text?: string; error?: string }) => {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (typeof message.text === 'string') resolve(message.text);
      else reject(new Error(message.error ?? 'metrics aggregation failed'));
    };
    process.on('message', onMessage);
    process.send!({ type: ASK, id });
  });
}

const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface HttpSeries {
  route: string;
  method: string;
  status: string;
  count: number;
}

interface DurationSeries {
  route: string;
  method: string;
  /** Observations per bucket (not cumulative), the last one past every bound (+Inf). */
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * doorloom_http_requests_total and doorloom_http_request_duration_seconds, counted in plain maps
 * and turned into prom-client's metric shape when scraped. prom-client's Counter and Histogram
 * hash their label objects on every call; one string-keyed map entry per series is 2 to 6 times
 * cheaper per request, on a path where a cached GET /me costs a few tens of µs.
 */
class HttpMetrics {
  private readonly requests = new Map<string, HttpSeries>();
  private readonly durations = new Map<string, DurationSeries>();

  record(route: string, method: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let d = this.durations.get(key);
    if (!d) this.durations.set(key, (d = { route, method, counts: new Float64Array(HTTP_BUCKETS.length + 1), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < HTTP_BUCKETS.length && seconds > HTTP_BUCKETS[bucket]) bucket++;
    d.counts[bucket]++;
    d.sum += seconds;
    d.count++;
    const statusKey = `${key} ${status}`;
    let r = this.requests.get(statusKey);
    if (!r) this.requests.set(statusKey, (r = { route, method, status: String(status), count: 0 }));
    r.count++;
  }

  /** What prom-client's Registry and AggregatorRegistry read: name, help, type, values, aggregator. */
  readonly total = {
    name: 'doorloom_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    type: 'counter',
    aggregator: 'sum',
    get: () => ({
      name: this.total.name,
      help: this.total.help,
      type: this.total.type,
      aggregator: this.total.aggregator,
      values: [...this.requests.values()].map((r) => ({ labels: { route: r.route, method: r.method, status: r.status }, value: r.count })),
    }),
    reset: () => this.requests.clear(),
  };

  readonly duration = {
    name: 'doorloom_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and method.',
    type: 'histogram',
    aggregator: 'sum',
    get: () => {
      const name = this.duration.name;
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const d of this.durations.values()) {
        let cumulative = 0;
        HTTP_BUCKETS.forEach((bound, i) => {
          cumulative += d.counts[i];
          values.push({ labels: { le: bound, route: d.route, method: d.method }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { le: '+Inf', route: d.route, method: d.method }, value: d.count, metricName: `${name}_bucket` });
        values.push({ labels: { route: d.route, method: d.method }, value: d.sum, metricName: `${name}_sum` });
        values.push({ labels: { route: d.route, method: d.method }, value: d.count, metricName: `${name}_count` });
      }
      return { name, help: this.duration.help, type: this.duration.type, aggregator: this.duration.aggregator, values };
    },
    reset: () => this.durations.clear(),
  };
}

/** In the primary of WORKERS > 1: answers workers' metrics requests with the whole node's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text }),
      (error: Error) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: error.message }),
    );
  });
}
