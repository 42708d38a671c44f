import type { Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { formatTimestampOrNull, kolkataDate } from '../../lib/time.js';
import { appendEvents, unitOfWork, type EventDraft, type UnitOfWork } from '../events/events.log.js';
import { findBrand } from '../integrations/integrations.sql.js';
import { createColumns, updateColumns } from './properties.input.js';
import { lockProperty, touchInputsVersion } from './properties.lock.js';
import { initialEventDrafts, loadPropertyState, propertyDetail, propertyDraftFrom, type CalendarDrafts } from './properties.payloads.js';
import type { CreatePropertyInput, HostUpdatePropertyInput, StaffPropertyView, UpdatePropertyInput } from './properties.schemas.js';
import { changeDrafts, lockNewProperty, newUnitRows } from './properties.service.js';
import { insertProperty, insertUnits, selectAppendTargets, selectCoverageOfProperty } from './properties.sql.js';

// Host and staff (platform side, decisions §9)

/** The staff view: the detail without partner mappings, every unit, and who covers it. */
export async function staffPropertyView(deps: Deps, propertyId: number): Promise<Static<typeof StaffPropertyView>> {
  const state = await loadPropertyState(deps.db, null, propertyId, null);
  if (!state) throw notFound('No such property.');
  const { external_id: _e, coverage: _c, units: _u, ...detail } = propertyDetail(state);
  return {
    ...detail,
    brand_id: state.row.brand_id,
    archived_at: formatTimestampOrNull(state.row.archived_at),
    units: state.units.map((u) => ({
      inventory_id: u.id,
      name: u.name,
      code: u.code,
      is_active: u.is_active,
      is_default: u.is_default,
      max_occupancy: u.max_occupancy,
    })),
    coverage: await selectCoverageOfProperty(deps.db, propertyId),
  };
}

/**
 * Staff `POST /brands/{id}/properties`: the host creates a property in the app. Same body as the
 * partner create (partner mappings in it are ignored); no integration covers it yet, so it is
 * invisible to every integration and records no event.
 */
export async function hostCreateProperty(deps: Deps, brandId: number, input: CreatePropertyInput) {
  const now = deps.clock.now();
  const id = await unitOfWork(deps, async (trx) => {
    if (!(await findBrand(trx, brandId))) throw notFound('No such brand.');
    const row = await insertProperty(trx, {
      ...createColumns(input),
      brand_id: brandId,
      status: 'active',
      created_by_integration_id: null,
      created_at: now,
      updated_at: now,
    });
    // Omitted: one default unit named after the property (decisions §5).
    await insertUnits(trx, newUnitRows(row.id, input.units ?? [{ name: input.name }], now));
    touchInputsVersion(trx, await lockNewProperty(trx, row.id));
    return row.id;
  });
  return staffPropertyView(deps, id);
}

/** Records `build`'s events for every integration covering the property (a host change: origin doorloom). */
async function recordHostChange(
  deps: Deps,
  trx: UnitOfWork,
  propertyId: number,
  build: (target: Parameters<typeof initialEventDrafts>[2]) => Promise<EventDraft[]>,
) {
  return appendEvents(trx, { clock: deps.clock, propertyId, targets: await selectAppendTargets(trx, propertyId), actorIntegrationId: null, build });
}

/**
 * Staff `PATCH /properties/{id}`: host edits of the property's groups (address, occupancy, prices,
 * …). Every covering integration gets property.changed, and rates.changed when a price changed.
 */
export async function hostUpdateProperty(deps: Deps, propertyId: number, input: HostUpdatePropertyInput, calendar: CalendarDrafts) {
  const now = deps.clock.now();
  const today = kolkataDate(now);
  await unitOfWork(deps, async (trx) => {
    const lock = await lockProperty(trx, propertyId);
    const row = lock && (await trx.selectFrom('properties').selectAll().where('id', '=', propertyId).executeTakeFirst());
    if (!row) throw notFound('No such property.');
    const { units: _ignored, external_id: _mapping, ...groups } = input as UpdatePropertyInput;
    const { set, pricesChanged, errors } = updateColumns(groups, row);
    errors.throwIfAny();
    await trx
      .updateTable('properties')
      .set({ ...set, updated_at: now })
      .where('id', '=', propertyId)
      .execute();
    return recordHostChange(deps, trx, propertyId, (target) =>
      changeDrafts(trx, propertyId, target, today, calendar, { inventory: false, retired: [], availability: false, rates: pricesChanged }),
    );
  });
  return staffPropertyView(deps, propertyId);
}

/**
 * Staff `POST /properties/{id}/archive`: the host archives the property. It stays visible to its
 * integrations (status `archived`), refuses partner writes, and each of them gets property.changed.
 * Archiving an archived property changes nothing.
 */
export async function archiveProperty(deps: Deps, propertyId: number) {
  const now = deps.clock.now();
  await unitOfWork(deps, async (trx) => {
    const lock = await lockProperty(trx, propertyId);
    if (!lock) throw notFound('No such property.');
    if (lock.status === 'archived') return undefined;
    await trx.updateTable('properties').set({ status: 'archived', archived_at: now, updated_at: now }).where('id', '=', propertyId).execute();
    return recordHostChange(deps, trx, propertyId, async (target) => [
      propertyDraftFrom((await loadPropertyState(trx, target.integrationId, propertyId, target.propertyExternalId))!),
    ]);
  });
  return staffPropertyView(deps, propertyId);
}
