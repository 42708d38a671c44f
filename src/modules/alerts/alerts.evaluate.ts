import type { Deps } from '../../deps.js';
import { formatTimestamp } from '../../lib/time.js';
import { selectIntegrationStates } from '../integrations/integrations.listing.sql.js';
import { selectPausedStates } from '../webhooks/webhooks.sql.js';
import { undeliveredBookingHeads } from '../webhooks/webhooks.stats.sql.js';

/**
 * The alerts the service evaluates itself, without Prometheus: for a single node, a staff script
 * (GET /api/staff/v1/alerts), the console and ALERT_WEBHOOK_URL. The same conditions are Prometheus
 * rules in deploy/prometheus/alerts.yml, where a fleet is watched.
 */

/** A booking still undelivered after this long is escalated (warning), after the second critically. */
export const BOOKING_WARNING_SECONDS = 15 * 60;
export const BOOKING_CRITICAL_SECONDS = 30 * 60;

export const ALERT_NAMES = ['booking_undelivered_30m', 'booking_undelivered_15m', 'integration_paused'] as const;
export type AlertName = (typeof ALERT_NAMES)[number];
export type Severity = 'critical' | 'warning';

export interface BookingDetail {
  booking_id: number | null;
  external_booking_id: string | null;
  event_id: string;
  sequence: number;
  event_recorded_at: string;
  event_age_seconds: number;
}

export interface PausedDetail {
  paused_reason: string | null;
  paused_at: string;
}

export interface Alert {
  /** `<name>:<integration id>`: the same for as long as the alert lasts. */
  id: string;
  name: AlertName;
  severity: Severity;
  integration: { id: number; slug: string };
  /** When the condition started to hold (service clock). */
  since: string;
  summary: string;
  /** Runbook section in docs/operations.md. */
  runbook: string;
  detail: BookingDetail | PausedDetail;
}

const RUNBOOK = 'docs/operations.md';
const RUNBOOKS: Record<AlertName, string> = {
  booking_undelivered_30m: `${RUNBOOK}#bookingundelivered`,
  booking_undelivered_15m: `${RUNBOOK}#bookingundelivered`,
  integration_paused: `${RUNBOOK}#integrationpaused`,
};

const SEVERITY_RANK: Record<Severity, number> = { critical: 0, warning: 1 };

/** Critical first; then the longest-standing; then by integration and name. */
export function alertOrder(a: Alert, b: Alert): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    a.since.localeCompare(b.since) ||
    a.integration.id - b.integration.id ||
    ALERT_NAMES.indexOf(a.name) - ALERT_NAMES.indexOf(b.name)
  );
}

function minutes(seconds: number): string {
  return `${Math.floor(seconds / 60)} min`;
}

/**
 * Every alert holding now, in alertOrder. Disabled integrations raise none (staff turned them off),
 * nor do undelivered bookings of an integration without a webhook URL (it reads GET /events).
 */
export async function evaluateAlerts(deps: Pick<Deps, 'db' | 'clock'>): Promise<Alert[]> {
  const now = deps.clock.nowMs();
  const [states, paused, bookings] = await Promise.all([
    selectIntegrationStates(deps.db),
    selectPausedStates(deps.db),
    undeliveredBookingHeads(deps.db, new Date(now - BOOKING_WARNING_SECONDS * 1000)),
  ]);
  const integrations = new Map(states.map((s) => [s.id, s]));
  const alerts: Alert[] = [];

  for (const b of bookings) {
    const integration = integrations.get(b.integrationId);
    if (!integration || integration.status === 'disabled' || !integration.has_webhook) continue;
    const age = Math.max(0, Math.floor((now - b.recordedAt.getTime()) / 1000));
    const detail: BookingDetail = {
      booking_id: b.bookingId,
      external_booking_id: b.externalBookingId,
      event_id: b.eventId,
      sequence: b.sequence,
      event_recorded_at: formatTimestamp(b.recordedAt),
      event_age_seconds: age,
    };
    const booking = b.externalBookingId ? `${b.bookingId} (${b.externalBookingId})` : String(b.bookingId);
    const of = { id: integration.id, slug: integration.slug };
    for (const [name, severity, threshold] of [
      ['booking_undelivered_30m', 'critical', BOOKING_CRITICAL_SECONDS],
      ['booking_undelivered_15m', 'warning', BOOKING_WARNING_SECONDS],
    ] as const) {
      if (age < threshold) continue;
      alerts.push({
        id: `${name}:${integration.id}`,
        name,
        severity,
        integration: of,
        since: formatTimestamp(b.recordedAt.getTime() + threshold * 1000),
        summary: `Booking ${booking} has not reached ${integration.slug} for ${minutes(age)} (over ${minutes(threshold)}).`,
        runbook: RUNBOOKS[name],
        detail,
      });
    }
  }

  for (const p of paused) {
    const integration = integrations.get(p.integration_id);
    if (integration?.status !== 'paused' || !p.paused_at) continue;
    alerts.push({
      id: `integration_paused:${integration.id}`,
      name: 'integration_paused',
      severity: 'warning',
      integration: { id: integration.id, slug: integration.slug },
      since: formatTimestamp(p.paused_at),
      summary: `Webhook delivery to ${integration.slug} is paused (${p.paused_reason ?? 'no reason recorded'}).`,
      runbook: RUNBOOKS.integration_paused,
      detail: { paused_reason: p.paused_reason, paused_at: formatTimestamp(p.paused_at) },
    });
  }

  return alerts.sort(alertOrder);
}
