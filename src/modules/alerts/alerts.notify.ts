import type { Deps } from '../../deps.js';
import { formatTimestamp } from '../../lib/time.js';
import type { Claims, Lease } from '../leases/leases.claims.js';
import { createSender, type Sender } from '../webhooks/webhooks.send.js';
import { deliveryHeaders, signingKey, type SigningKey } from '../webhooks/webhooks.sign.js';
import { targetPolicy } from '../webhooks/webhooks.url.js';
import { evaluateAlerts } from './alerts.evaluate.js';
import { deleteNotice, endNotices, insertNotices, markFiringSent, selectNotices } from './alerts.sql.js';

/** How long the alert receiver has to answer. */
const NOTICE_TIMEOUT_MS = 10_000;

export interface AlertNotifier {
  /** Evaluates the alerts, records starts and ends, and sends what is not told yet (throws when a send fails: retried on a later tick). */
  tick(): Promise<void>;
  close(): Promise<void>;
}

/**
 * ALERT_WEBHOOK_URL's notices: a signed JSON POST when an alert starts (`status: firing`) and when
 * it ends (`status: resolved`, with `ended_at`). Starts and ends are recorded in `alert_notices`
 * before anything is sent, so a notice that failed, or that a restart cut off, is sent on a later
 * tick; the end of an alert is sent only after its start. One process sends, the holder of the
 * `alerts` claim, so several nodes tell each start once. The body is the alert as GET
 * /api/staff/v1/alerts shows it; the headers are those of partner deliveries (Standard Webhooks
 * and X-Service-Signature), `webhook-id` staying the same when a notice is sent again.
 */
export function createAlertNotifier(deps: Deps, claims: Claims): AlertNotifier {
  const url = deps.config.alertWebhookUrl;
  const secret = deps.config.alertWebhookSecret;
  if (!url || !secret) throw new Error('ALERT_WEBHOOK_URL and ALERT_WEBHOOK_SECRET are needed for alert notices');
  const target = new URL(url);
  const key: SigningKey = signingKey(secret);
  // the SSRF rules of partner webhooks: every resolved address is checked as the connection is made
  const sender: Sender = createSender(targetPolicy(deps.config));
  let lease: Lease | null = null;

  async function send(notice: { alertId: string; slug: string; since: Date; status: 'firing' | 'resolved'; body: Record<string, unknown> }) {
    const body = JSON.stringify(notice.body);
    const id = `alert_${notice.alertId}_${Math.floor(notice.since.getTime() / 1000)}_${notice.status}`;
    const headers = deliveryHeaders({ slug: notice.slug, id, timestamp: Math.floor(deps.clock.nowMs() / 1000), body, keys: [key] });
    const result = await sender.send({ url: target, headers, body, timeoutMs: NOTICE_TIMEOUT_MS });
    if (!result.ok) throw new Error(`the alert receiver refused the ${notice.status} notice of ${notice.alertId}: ${result.status ?? result.error}`);
    deps.log.info({ alert: notice.alertId, status: notice.status }, 'alert notice sent');
  }

  return {
    async tick() {
      if (!lease || !claims.holds(lease)) lease = await claims.tryClaim('alerts', 0);
      if (!lease) return; // another process sends them
      const now = deps.clock.nowMs();
      const [alerts, notices] = await Promise.all([evaluateAlerts(deps), selectNotices(deps.db)]);
      const holding = new Set(alerts.map((a) => a.id));
      await insertNotices(
        deps.db,
        alerts.map((a) => ({ alert_id: a.id, name: a.name, integration_id: a.integration.id, since: new Date(a.since), body: JSON.stringify(a) })),
      );
      await endNotices(
        deps.db,
        notices.filter((n) => !n.ended_at && !holding.has(n.alert_id)).map((n) => n.alert_id),
        new Date(now),
      );

      for (const n of await selectNotices(deps.db)) {
        if (!claims.holds(lease)) return;
        const alert = JSON.parse(n.body) as Record<string, unknown> & { integration: { slug: string } };
        const base = { alertId: n.alert_id, slug: alert.integration.slug, since: new Date(n.since) };
        if (!n.firing_sent_at) {
          await send({ ...base, status: 'firing', body: { ...alert, status: 'firing' } });
          await markFiringSent(deps.db, n.alert_id, new Date(deps.clock.nowMs()));
        }
        if (n.ended_at) {
          await send({ ...base, status: 'resolved', body: { ...alert, status: 'resolved', ended_at: formatTimestamp(n.ended_at) } });
          await deleteNotice(deps.db, n.alert_id);
        }
      }
    },
    async close() {
      if (lease) await claims.release(lease);
      sender.close();
    },
  };
}
