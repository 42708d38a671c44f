import { dataClock } from '../../lib/clock.js';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { addDays, horizonEnd, kolkataDate, splitByMonth, type DateWindow } from '../../lib/time.js';
import { appendEvents, unitOfWork } from '../events/events.log.js';
import { integrationHorizons } from '../integrations/integrations.sql.js';
import { coverageSource, selectAppendTargets } from '../properties/properties.sql.js';
import { calendarEventDrafts } from './calendar.payloads.js';
import { lockProperty } from '../properties/properties.lock.js';

interface Pair {
  integration_id: number;
  property_id: number;
  horizon_days: number;
  covered_at: Date;
  through: string | null;
}

/** The months a pair still needs: whole months after its mark, through today's horizon end. */
function monthsDue(pair: Pair, today: string): DateWindow[] {
  const end = horizonEnd(today, pair.horizon_days);
  // Coverage (re)starting sends the initial state through that day's horizon end.
  const onCoverage = horizonEnd(kolkataDate(pair.covered_at), pair.horizon_days);
  const sentThrough = pair.through !== null && pair.through > onCoverage ? pair.through : onCoverage;
  if (sentThrough >= end) return [];
  const next = addDays(sentThrough, 1);
  return splitByMonth(next > today ? next : today, end);
}

function pairsQuery(db: Kysely<DB> | Transaction<DB>) {
  return db
    .selectFrom(coverageSource(db).as('c'))
    .innerJoin(integrationHorizons(db).as('i'), 'i.id', 'c.integration_id')
    .leftJoin('horizon_marks as m', (join) => join.onRef('m.integration_id', '=', 'c.integration_id').onRef('m.property_id', '=', 'c.property_id'))
    .select(['c.integration_id', 'c.property_id', 'i.horizon_days', 'c.created_at as covered_at', 'm.through'])
    .where('i.status', '!=', 'disabled');
}

/**
 * Horizon roll (decisions §6): as the horizon moves forward, each calendar month entering an
 * integration's horizon (on its first day) is sent whole, as availability, rates and restrictions
 * events, for every property the integration covers.
 *
 * What has been sent is remembered per (integration, property) in horizon_marks.through, the last
 * night covered, and is at least the horizon end on the day coverage began: the property's initial
 * state (create or coverage) was sent through that month. So each month goes
 * out once, however often the job runs; a raised horizon_days makes months enter too and sends them.
 */
export async function rollHorizon(deps: Deps, only: { integrationIds?: number[] } = {}): Promise<{ properties: number; events: number }> {
  // Each integration's horizon moves with its brand's clock (a sandbox brand's own).
  const todayOf = (integrationId: number) => kolkataDate(dataClock(deps.clock, 'horizon', { integrationId }).now());
  const due = (pair: Pair) =>
    only.integrationIds === undefined || only.integrationIds.includes(pair.integration_id) ? monthsDue(pair, todayOf(pair.integration_id)) : [];
  const dueProperties = new Set((await pairsQuery(deps.db).execute()).filter((p) => due(p).length > 0).map((p) => p.property_id));
  let events = 0;
  let properties = 0;
  for (const propertyId of [...dueProperties].sort((a, b) => a - b)) {
    const appended = await unitOfWork(deps, async (trx) => {
      // The property lock serialises two runs of the roll (and calendar writers): the second
      // reads the first one's marks and finds nothing left to send.
      if (!(await lockProperty(trx, propertyId))) return undefined;
      const plan = new Map(
        (await pairsQuery(trx).where('c.property_id', '=', propertyId).execute()).map((p) => [p.integration_id, { pair: p, months: due(p) }]),
      );
      const result = await appendEvents(trx, {
        clock: deps.clock,
        propertyId,
        targets: await selectAppendTargets(trx, propertyId),
        actorIntegrationId: null,
        build: (target) => {
          const months = plan.get(target.integrationId)?.months ?? [];
          return calendarEventDrafts(trx, propertyId, ['availability', 'rates', 'restrictions'], months, target, { maxStayNights: deps.config.maxStayNights });
        },
      });
      for (const { pair, months } of plan.values()) {
        if (months.length === 0) continue;
        const through = months[months.length - 1].to;
        await trx
          .insertInto('horizon_marks')
          .values({ integration_id: pair.integration_id, property_id: propertyId, through })
          .onConflict((oc) => oc.columns(['integration_id', 'property_id']).doUpdateSet({ through }))
          .execute();
      }
      return result;
    });
    if (appended && appended.recorded.size > 0) {
      properties += 1;
      for (const n of appended.recorded.values()) events += n;
    }
  }
  return { properties, events };
}
