import type { Timestamp } from '../../db/schema.js';

/**
 * The notices of alerts sent (or to send) to ALERT_WEBHOOK_URL: one row per alert from its start
 * until its end has been told, so that a restart or another node neither repeats nor loses one.
 */
export interface AlertNoticesTable {
  /** `<name>:<integration id>`: the alert's identity while it lasts. */
  alert_id: string;
  name: string;
  integration_id: number;
  since: Timestamp;
  /** The alert's fields (JSON) when it started: what both notices carry. */
  body: string;
  firing_sent_at: Timestamp | null;
  /** When the alert stopped holding (service clock); null while it fires. */
  ended_at: Timestamp | null;
}

export interface AlertTables {
  alert_notices: AlertNoticesTable;
}
