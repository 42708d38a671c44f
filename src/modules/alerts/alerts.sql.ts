import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

type Q = Kysely<DB> | Transaction<DB>;

export function selectNotices(db: Q) {
  return db.selectFrom('alert_notices').selectAll().orderBy('since').orderBy('alert_id').execute();
}

/** Alerts that started: a row each, unless one is still there (an earlier episode whose end is not told yet). */
export async function insertNotices(db: Q, rows: { alert_id: string; name: string; integration_id: number; since: Date; body: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('alert_notices')
    .values(rows)
    .onConflict((oc) => oc.column('alert_id').doNothing())
    .execute();
}

/** Alerts that stopped holding. */
export async function endNotices(db: Q, alertIds: string[], at: Date): Promise<void> {
  if (alertIds.length === 0) return;
  await db.updateTable('alert_notices').set({ ended_at: at }).where('alert_id', 'in', alertIds).where('ended_at', 'is', null).execute();
}

export async function markFiringSent(db: Q, alertId: string, at: Date): Promise<void> {
  await db.updateTable('alert_notices').set({ firing_sent_at: at }).where('alert_id', '=', alertId).execute();
}

/** The end was told: the alert is over. */
export async function deleteNotice(db: Q, alertId: string): Promise<void> {
  await db.deleteFrom('alert_notices').where('alert_id', '=', alertId).execute();
}
