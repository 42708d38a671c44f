import type { UnitOfWork } from '../../db/unit-of-work.js';
import { FieldErrorCollector } from '../../http/errors.js';
import type { PropertyState, RetiredAlias } from './properties.payloads.js';
import { touchInputsVersion, type PropertyLock } from './properties.lock.js';
import type { UpdateUnitEntry } from './properties.schemas.js';
import { deleteAliases, insertAliases, insertUnits, selectAliasHolders, type UnitRow } from './properties.sql.js';

export interface UnitMergeResult {
  /** A unit went on or off sale (or a new unit went on sale): availability changed. */
  saleChanged: boolean;
  /** Aliases of this integration that no longer name the unit they named. */
  retired: RetiredAlias[];
}

/**
 * Applies a PUT's `units[]` merge list to a property for one integration (contract: PUT
 * /properties/{property}, unit rules 1–4). Unmentioned units are untouched; units are never
 * deleted. All entries are checked before anything is written, so a refused list changes nothing
 * (the caller's transaction also rolls back).
 */
export async function mergeUnits(
  trx: UnitOfWork,
  lock: PropertyLock,
  integrationId: number,
  state: PropertyState,
  entries: UpdateUnitEntry[],
  now: Date,
): Promise<UnitMergeResult> {
  const propertyId = state.row.id;
  const errors = new FieldErrorCollector();
  const unitsById = new Map(state.units.map((u) => [u.id, u]));
  const sentAliases = entries.map((e) => e.external_id).filter((x): x is string => typeof x === 'string');
  const holders = new Map((await selectAliasHolders(trx, integrationId, sentAliases)).map((h) => [h.external_id, h]));

  // The integration's aliases of this property's units once the list is applied.
  const finalAlias = new Map(state.aliases);
  const planned: Array<{ index: number; entry: UpdateUnitEntry; unit: UnitRow | null }> = [];
  const addressed = new Map<number, number>(); // unit id → entry index

  entries.forEach((entry, i) => {
    let unit: UnitRow | null = null;
    if (entry.inventory_id !== undefined) {
      unit = unitsById.get(entry.inventory_id) ?? null;
      if (!unit) {
        errors.add(`units.${i}.inventory_id`, 'does not name a unit of this property'); // rule 3
        return;
      }
      if (typeof entry.external_id === 'string') {
        const holder = holders.get(entry.external_id);
        if (holder && holder.property_id !== propertyId) {
          errors.add(`units.${i}.external_id`, 'is already mapped to a unit of another property'); // rule 4
          return;
        }
        finalAlias.set(unit.id, entry.external_id);
      } else if (entry.external_id === null) {
        finalAlias.delete(unit.id);
      }
    } else if (typeof entry.external_id === 'string') {
      const holder = holders.get(entry.external_id);
      if (holder && holder.property_id !== propertyId) {
        errors.add(`units.${i}.external_id`, 'is already mapped to a unit of another property'); // rule 4
        return;
      }
      if (holder) {
        unit = unitsById.get(holder.unit_id) ?? null;
      } else if (entry.name === undefined) {
        errors.add(`units.${i}.name`, 'is required when the entry creates a unit');
        return;
      }
    } else {
      errors.add(`units.${i}`, 'must name the unit by inventory_id or external_id'); // rule 1
      return;
    }

    if (unit) {
      const first = addressed.get(unit.id);
      if (first !== undefined) {
        errors.add(`units.${i}`, `addresses the same unit as units.${first}`);
        return;
      }
      addressed.set(unit.id, i);
      if (entry.is_active === false && unit.is_default) {
        errors.add(`units.${i}.is_active`, 'the default unit cannot be taken off sale'); // rule 2
        return;
      }
    }
    planned.push({ index: i, entry, unit });
  });

  // An alias moved onto a unit must not stay on another unit of this property (a swap is fine).
  for (const { index, entry, unit } of planned) {
    if (!unit || typeof entry.external_id !== 'string') continue;
    for (const [otherId, alias] of finalAlias) {
      if (otherId !== unit.id && alias === entry.external_id) {
        errors.add(`units.${index}.external_id`, `is already mapped to unit ${otherId} of this property`);
      }
    }
  }
  errors.throwIfAny();

  let saleChanged = false;
  let nextPosition = state.units.reduce((max, u) => Math.max(max, u.position), 0) + 1;
  const newAliases: Array<{ unitId: number; externalId: string }> = [];
  for (const { entry, unit } of planned) {
    if (unit) {
      const set: Partial<Pick<UnitRow, 'name' | 'code' | 'max_occupancy' | 'is_active'>> = {};
      if (entry.name !== undefined && entry.name !== unit.name) set.name = entry.name;
      if (entry.code !== undefined && entry.code !== unit.code) set.code = entry.code;
      if (entry.max_occupancy !== undefined && entry.max_occupancy !== unit.max_occupancy) set.max_occupancy = entry.max_occupancy;
      if (entry.is_active !== undefined && entry.is_active !== unit.is_active) {
        set.is_active = entry.is_active;
        saleChanged = true;
      }
      if (Object.keys(set).length > 0) {
        await trx
          .updateTable('units')
          .set({ ...set, updated_at: now })
          .where('id', '=', unit.id)
          .execute();
      }
      continue;
    }
    const isActive = entry.is_active ?? true;
    const [created] = await insertUnits(trx, [
      {
        property_id: propertyId,
        name: entry.name!,
        code: entry.code ?? null,
        max_occupancy: entry.max_occupancy ?? null,
        is_active: isActive,
        is_default: false,
        position: nextPosition++,
        created_at: now,
        updated_at: now,
      },
    ]);
    if (isActive) saleChanged = true;
    newAliases.push({ unitId: created.id, externalId: entry.external_id as string });
  }

  const retired: RetiredAlias[] = [];
  const replaced: number[] = [];
  for (const [unitId, oldAlias] of state.aliases) {
    if (finalAlias.get(unitId) === oldAlias) continue;
    retired.push({ integrationId, inventoryId: unitId, externalUnitId: oldAlias });
    replaced.push(unitId);
  }
  for (const [unitId, alias] of finalAlias) {
    if (state.aliases.get(unitId) !== alias) newAliases.push({ unitId, externalId: alias });
  }
  // Old aliases go first, so that a swap between two units never collides with itself.
  deleteAliases(trx, integrationId, replaced);
  insertAliases(trx, integrationId, newAliases);
  // Units and aliases are what availability snapshots show; cached ones are stale now.
  touchInputsVersion(trx, lock);
  return { saleChanged, retired };
}
