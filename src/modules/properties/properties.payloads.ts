import type { Static } from '@sinclair/typebox';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { moneyOrNull, roundMoney } from '../../lib/money.js';
import { formatTimestamp, horizonWindows, type DateWindow } from '../../lib/time.js';
import type { EventDraft, EventTarget } from '../events/events.log.js';
import type { PropertyBlock, PropertyDetail, UnitView } from './properties.schemas.js';
import { selectAliases, selectPropertiesByIds, selectUnits, type PropertyRow, type UnitRow } from './properties.sql.js';

type Q = Kysely<DB> | Transaction<DB>;

/**
 * What an integration sees of a property: the Property block (responses, GET /properties), the
 * detail that property.changed carries (decisions §6), and the inventory.changed payload. External
 * ids are per integration, so every view is built for one integration.
 */

/** A property as one integration sees it. */
export interface PropertyState {
  row: PropertyRow;
  /** Every unit, active or not, in order. */
  units: UnitRow[];
  /** This integration's aliases: unit id → external_unit_id. */
  aliases: Map<number, string>;
  /** This integration's external id for the property. */
  externalId: string | null;
}

/** An alias retired by a change: one `deleted: true` entry on that integration's inventory event. */
export interface RetiredAlias {
  integrationId: number;
  inventoryId: number;
  externalUnitId: string;
}

export async function loadPropertyState(db: Q, integrationId: number | null, propertyId: number, externalId: string | null): Promise<PropertyState | null> {
  const [row] = await selectPropertiesByIds(db, [propertyId]);
  if (!row) return null;
  const units = await selectUnits(db, [propertyId]);
  const aliases = integrationId === null ? new Map<number, string>() : await selectAliases(db, integrationId, [propertyId]);
  return { row, units, aliases, externalId };
}

export function unitView(unit: UnitRow, aliases: Map<number, string>): Static<typeof UnitView> {
  return {
    inventory_id: unit.id,
    external_unit_id: aliases.get(unit.id) ?? null,
    name: unit.name,
    code: unit.code,
    is_active: unit.is_active,
    is_default: unit.is_default,
    max_occupancy: unit.max_occupancy,
    deleted: false,
  };
}

/** The contract's Property block: active units only, the default first. */
export function propertyBlock(state: PropertyState): PropertyBlockView {
  const { row } = state;
  return {
    doorloom_id: row.id,
    external_id: state.externalId,
    // The block is only ever shown to an integration that covers the property.
    coverage: 'active',
    name: row.name,
    property_type: row.property_type,
    status: row.status,
    // Every property is standalone (no clusters yet): its own master.
    is_master: true,
    master_property_id: row.id,
    units: state.units.filter((u) => u.is_active).map((u) => unitView(u, state.aliases)),
  };
}
/** Typed from the response schema: the OpenAPI document says what is sent. */
export type PropertyBlockView = Static<typeof PropertyBlock>;

const price = (row: PropertyRow, side: 'weekday' | 'weekend') => ({
  base_price: roundMoney(row[`${side}_base_price`]),
  per_night_occupancy: row[`${side}_per_night_occupancy`],
  extra_adult_price: roundMoney(row[`${side}_extra_adult_price`]),
  extra_child_price: roundMoney(row[`${side}_extra_child_price`]),
});

/** The Property block plus the input groups and timestamps (property.changed, GET /properties/{property}). */
export function propertyDetail(state: PropertyState): Static<typeof PropertyDetail> {
  const { row } = state;
  return {
    ...propertyBlock(state),
    description: row.description,
    property_category: row.property_category,
    address: {
      address_line_1: row.address_line_1,
      address_line_2: row.address_line_2,
      landmark: row.landmark,
      city: row.city,
      state: row.state,
      country: row.country,
      pin_code: row.pin_code,
      latitude: row.latitude,
      longitude: row.longitude,
      formatted_address: row.formatted_address,
    },
    space: { bedrooms: row.bedrooms, washrooms: row.washrooms },
    occupancy: { min_guests: row.min_guests, max_guests: row.max_guests },
    pricing: { weekday: price(row, 'weekday'), weekend: price(row, 'weekend') },
    features: {
      is_private: row.is_private,
      is_pet_friendly: row.is_pet_friendly,
      max_pets: row.max_pets,
      pet_charges: moneyOrNull(row.pet_charges),
      is_veg: row.is_veg,
      is_smoking_in_rooms: row.is_smoking_in_rooms,
    },
    created_at: formatTimestamp(row.created_at),
    updated_at: formatTimestamp(row.updated_at),
  };
}

/** Property blocks of several covered properties for one integration, in the order given, in three queries. */
export async function loadPropertyBlocks(db: Q, integrationId: number, covered: Array<{ id: number; external_id: string | null }>) {
  const ids = covered.map((c) => c.id);
  const rows = new Map((await selectPropertiesByIds(db, ids)).map((r) => [r.id, r]));
  const unitsByProperty = new Map<number, UnitRow[]>();
  for (const unit of await selectUnits(db, ids)) {
    const list = unitsByProperty.get(unit.property_id) ?? [];
    list.push(unit);
    unitsByProperty.set(unit.property_id, list);
  }
  const aliases = await selectAliases(db, integrationId, ids);
  return covered.flatMap((c) => {
    const row = rows.get(c.id);
    return row ? [propertyBlock({ row, units: unitsByProperty.get(c.id) ?? [], aliases, externalId: c.external_id })] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Event drafts

export function propertyDraftFrom(state: PropertyState): EventDraft {
  return { type: 'property.changed', data: { property: propertyDetail(state) } };
}

/** Every unit (active and inactive, `deleted: false`), then one `deleted: true` entry per retired alias. */
export function inventoryDraftFrom(state: PropertyState, retired: RetiredAlias[] = [], integrationId?: number): EventDraft {
  const units: Array<Record<string, unknown>> = state.units.map((u) => unitView(u, state.aliases));
  for (const r of retired) {
    if (integrationId !== undefined && r.integrationId !== integrationId) continue;
    units.push({ inventory_id: r.inventoryId, external_unit_id: r.externalUnitId, deleted: true });
  }
  return { type: 'inventory.changed', data: { units } };
}

async function stateFor(trx: Q, propertyId: number, target: EventTarget): Promise<PropertyState> {
  const state = await loadPropertyState(trx, target.integrationId, propertyId, target.propertyExternalId);
  if (!state) throw new Error(`property ${propertyId} not found while building its events`);
  return state;
}

/** property.changed for one receiving integration (its own external ids). */
export async function propertyEventDraft(trx: Q, propertyId: number, target: EventTarget): Promise<EventDraft> {
  return propertyDraftFrom(await stateFor(trx, propertyId, target));
}

/**
 * inventory.changed for one receiving integration: all units with its aliases, plus a
 * `deleted: true` entry for each of its aliases that `retired` lists (other integrations' entries
 * are skipped, their aliases did not change).
 */
export async function inventoryEventDraft(trx: Q, propertyId: number, target: EventTarget, retired: RetiredAlias[] = []): Promise<EventDraft> {
  return inventoryDraftFrom(await stateFor(trx, propertyId, target), retired, target.integrationId);
}

/**
 * The calendar's events of a property for one receiving integration: calendarEventDrafts
 * (calendar.payloads.ts), which a property's create, coverage, and unit or price change record
 * after its own. The calendar reads properties, so the code that registers the property routes
 * passes it in.
 */
export type CalendarDrafts = (
  trx: Transaction<DB>,
  propertyId: number,
  kinds: Array<'availability' | 'rates' | 'restrictions'>,
  windows: DateWindow[],
  target: EventTarget,
) => Promise<EventDraft[]>;

/**
 * The initial state of a property for one integration (create, coverage added): property.changed,
 * inventory.changed, then availability, rates and restrictions for each whole month of its horizon.
 * `preloaded` saves the reads when the caller already holds the target's view of the property.
 */
export async function initialEventDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  target: EventTarget,
  today: string,
  calendar: CalendarDrafts,
  preloaded?: PropertyState,
): Promise<EventDraft[]> {
  const state = preloaded ?? (await stateFor(trx, propertyId, target));
  const windows = horizonWindows(today, target.horizonDays);
  return [
    propertyDraftFrom(state),
    inventoryDraftFrom(state),
    ...(await calendar(trx, propertyId, ['availability', 'rates', 'restrictions'], windows, target)),
  ];
}
