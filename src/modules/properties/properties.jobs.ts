import type { Deps } from '../../deps.js';
import { appendEvents, unitOfWork } from '../events/events.log.js';
import { brandIdsWithPlan } from '../integrations/integrations.sql.js';
import { propertyEventDraft } from './properties.payloads.js';
import { selectAppendTargets } from './properties.sql.js';

const INACTIVE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The daily inactive sweep (decisions §5). A property older than seven days whose brand has no
 * active plan becomes `inactive`, silently (the contract: no property.changed for that flip).
 * When the brand's plan is active again, the sweep sets its inactive properties back to `active`
 * and each covering integration gets property.changed.
 */
export async function runInactiveSweep(deps: Deps): Promise<{ deactivated: number; reactivated: number }> {
  const now = deps.clock.now();
  const cutoff = new Date(deps.clock.nowMs() - INACTIVE_AFTER_MS);

  const deactivated = await deps.db
    .updateTable('properties')
    .set({ status: 'inactive', updated_at: now })
    .where('status', '=', 'active')
    .where('created_at', '<=', cutoff)
    .where('brand_id', 'in', brandIdsWithPlan(deps.db, false))
    .returning('id')
    .execute();

  const candidates = await deps.db
    .selectFrom('properties')
    .select('id')
    .where('status', '=', 'inactive')
    .where('brand_id', 'in', brandIdsWithPlan(deps.db, true))
    .orderBy('id')
    .execute();

  let reactivated = 0;
  for (const { id } of candidates) {
    // One transaction per property: the flip and its events commit together.
    await unitOfWork(deps, async (trx) => {
      const flipped = await trx
        .updateTable('properties')
        .set({ status: 'active', updated_at: now })
        .where('id', '=', id)
        .where('status', '=', 'inactive')
        .returning('id')
        .executeTakeFirst();
      if (!flipped) return; // another process got there first
      reactivated += 1;
      await appendEvents(trx, {
        clock: deps.clock,
        propertyId: id,
        targets: await selectAppendTargets(trx, id),
        actorIntegrationId: null,
        build: async (target) => [await propertyEventDraft(trx, id, target)],
      });
    });
  }
  return { deactivated: deactivated.length, reactivated };
}
