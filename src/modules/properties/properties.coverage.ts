import type { Deps } from '../../deps.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { kolkataDate } from '../../lib/time.js';
import { appendEvents, unitOfWork } from '../events/events.log.js';
import { findIntegration } from '../integrations/integrations.sql.js';
import { lockProperty, touchInputsVersion } from './properties.lock.js';
import { initialEventDrafts, loadPropertyState, propertyDraftFrom, type CalendarDrafts } from './properties.payloads.js';
import type { CoverageInput } from './properties.schemas.js';
import { externalIdExists, writeTransaction } from './properties.service.js';
import { deleteAliases, selectAppendTargets, selectCoverage, selectCoverageByExternalId, selectProperty, selectUnits } from './properties.sql.js';

// Coverage: staff starts or ends an integration's coverage of a property (platform side, decisions §9)

/**
 * Staff `PUT /integrations/{id}/coverage/{property_id}`: the integration starts covering a
 * property of its brand and receives the property's initial state, as on a partner create. Already
 * covered: only a changed `external_id` is applied (with property.changed to that integration).
 */
export async function coverProperty(deps: Deps, integrationId: number, propertyId: number, body: CoverageInput, calendar: CalendarDrafts) {
  const externalId = body.external_id;
  const now = deps.clock.now();
  const today = kolkataDate(now);
  const { created } = await writeTransaction(deps, async (trx) => {
    const integration = await findIntegration(trx, integrationId);
    if (!integration) throw notFound('No such integration.');
    // The property's lock before the state is read: the initial state recorded here is then newer
    // than every write with a lower sequence (writers of the property take the same lock).
    if (!(await lockProperty(trx, propertyId))) throw notFound('No such property.');
    const property = await selectProperty(trx, propertyId);
    if (!property) throw notFound('No such property.');
    if (property.brand_id !== integration.brand_id) {
      throw validationFailed({ property_id: ["belongs to another brand than the integration's"] });
    }
    if (typeof externalId === 'string') {
      const holder = await selectCoverageByExternalId(trx, integrationId, externalId);
      if (holder && holder.property_id !== propertyId) throw externalIdExists(externalId, holder.property_id);
    }
    const existing = await selectCoverage(trx, integrationId, propertyId);
    if (existing) {
      if (externalId === undefined || externalId === existing.external_id) return { created: false, appended: undefined };
      trx.send(trx.updateTable('coverage').set({ external_id: externalId }).where('integration_id', '=', integrationId).where('property_id', '=', propertyId));
      trx.touched('coverage');
      const appended = await appendEvents(trx, {
        clock: deps.clock,
        propertyId,
        targets: await selectAppendTargets(trx, propertyId, integrationId),
        actorIntegrationId: null,
        build: async (target) => [propertyDraftFrom((await loadPropertyState(trx, target.integrationId, propertyId, target.propertyExternalId))!)],
      });
      return { created: false, appended };
    }
    trx.send(trx.insertInto('coverage').values({ integration_id: integrationId, property_id: propertyId, external_id: externalId ?? null, created_at: now }));
    trx.touched('coverage');
    const appended = await appendEvents(trx, {
      clock: deps.clock,
      propertyId,
      targets: await selectAppendTargets(trx, propertyId, integrationId),
      actorIntegrationId: null,
      build: (target) => initialEventDrafts(trx, propertyId, target, today, calendar),
    });
    return { created: true, appended };
  });
  const coverage = await selectCoverage(deps.db, integrationId, propertyId);
  return { created, data: { integration_id: integrationId, property_id: propertyId, external_id: coverage?.external_id ?? null, coverage: 'active' } };
}

/**
 * Staff `DELETE /integrations/{id}/coverage/{property_id}`: the integration stops covering the
 * property (its reads and writes answer 404 from now on). Its mappings go with the coverage
 * (the property's external_id and its unit aliases), so those ids are free again.
 */
export async function uncoverProperty(deps: Deps, integrationId: number, propertyId: number) {
  await unitOfWork(deps, async (trx) => {
    // The property's lock first, as every writer of its coverage and inputs version.
    const lock = await lockProperty(trx, propertyId);
    if (!lock) throw notFound('This integration does not cover that property.');
    const removed = await trx
      .deleteFrom('coverage')
      .where('integration_id', '=', integrationId)
      .where('property_id', '=', propertyId)
      .returning('property_id')
      .executeTakeFirst();
    if (!removed) throw notFound('This integration does not cover that property.');
    const units = await selectUnits(trx, [propertyId]);
    deleteAliases(
      trx,
      integrationId,
      units.map((u) => u.id),
    );
    // The aliases were in this integration's availability snapshots.
    touchInputsVersion(trx, lock);
    trx.touched('coverage');
  });
  return { integration_id: integrationId, property_id: propertyId, coverage: 'removed' };
}
