import type { Registry } from 'prom-client';

/*
 * What the modules report to the process's metrics (Deps.metrics), declared below them: the
 * metrics module implements it and reads the modules' tables, so its own file cannot be the type
 * every module sees.
 */

/** How an availability snapshot was had (calendar.snapshots.ts, calendar.snapshot-refresh.ts). */
export const SNAPSHOT_OUTCOMES = ['kept', 'built', 'rebuilt_after_write', 'rebuild_failed', 'rebuild_unread'] as const;
export type SnapshotOutcome = (typeof SNAPSHOT_OUTCOMES)[number];

/** What a delivery attempt's outcome is counted as. */
export const DELIVERY_OUTCOMES = ['success', 'http_error', 'timeout', 'network_error', 'refused'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** An attempt as the sender reports it (see webhooks.send.ts SendResult). */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** The process's Prometheus metrics (GET /metrics), built by the metrics module. */
export interface Metrics {
  registry: Registry;
  /** One answered HTTP request: `route` is the route template (null when no route matched). */
  httpRequest(route: string | null, method: string, status: number, seconds: number): void;
  /** Events committed, by kind. */
  eventsRecorded(byType: ReadonlyMap<string, number>): void;
  /** One webhook delivery attempt (events and pings). */
  deliveryAttempt(result: AttemptResult): void;
  /** An availability snapshot served from what the process keeps, built for a read, or rebuilt after a write (and whether that rebuild was ever read). */
  availabilitySnapshot(outcome: SnapshotOutcome): void;
  /** The metrics text: this process's, or with WORKERS above 1 the whole node's (asked of the primary). */
  text(): Promise<string>;
  contentType: string;
}
