import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, fail, FieldErrorCollector, notFound } from '../../http/errors.js';
import { horizonWindows, kolkataDate } from '../../lib/time.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';
import { appendEvents, unitOfWork, type EventDraft, type UnitOfWork } from '../events/events.log.js';
import { selectLastSequence } from '../integrations/integrations.sql.js';
import { createColumns, updateColumns } from './properties.input.js';
import { lockProperty, touchInputsVersion, type PropertyLock } from './properties.lock.js';
import {
  initialEventDrafts,
  inventoryDraftFrom,
  loadPropertyBlocks,
  loadPropertyState,
  propertyBlock,
  propertyDetail,
  propertyDraftFrom,
  type CalendarDrafts,
  type PropertyBlockView,
  type PropertyState,
  type RetiredAlias,
} from './properties.payloads.js';
import { requireCoveredProperty, type CoveredProperty } from './properties.resolve.js';
import type { CreatePropertyInput, CreateUnitEntry, ListQueryInput, UpdatePropertyInput } from './properties.schemas.js';
import {
  insertAliases,
  insertProperty,
  insertUnits,
  selectAliasHolders,
  selectAppendTargets,
  selectCoverageByExternalId,
  selectCoveredPage,
} from './properties.sql.js';
import { mergeUnits } from './properties.units.js';

/** The integration making a partner call. */
export interface Actor {
  integrationId: number;
  brandId: number;
}

export function externalIdExists(externalId: string, holderId: number): AppError {
  return fail('PROPERTY_EXTERNAL_ID_EXISTS', `external_id ${externalId} is already mapped to property ${holderId}.`, {
    external_id: [`is already mapped to property ${holderId}`],
    doorloom_id: holderId,
  });
}

const archivedError = () => fail('PROPERTY_ARCHIVED', 'This property has been archived by the host and can no longer be changed through the API.');

/**
 * A write transaction. Pre-checks (external ids, aliases) read before writing; when a concurrent
 * writer wins the race in between, the unique index refuses our insert, and one re-run lets the
 * pre-checks answer with the proper 409 or 422 instead of a 500.
 */
export async function writeTransaction<T>(deps: Deps, work: (trx: UnitOfWork) => Promise<T>): Promise<T> {
  try {
    return await unitOfWork(deps, work);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return unitOfWork(deps, work);
  }
}

/** The lock of a property this transaction inserted (its own row, so it is granted at once). */
export async function lockNewProperty(trx: Transaction<DB>, propertyId: number): Promise<PropertyLock> {
  const lock = await lockProperty(trx, propertyId);
  if (!lock) throw new Error(`property ${propertyId} inserted in this transaction is not visible to it`);
  return lock;
}

// ---------------------------------------------------------------------------------------------
// Create

/** The unit rows of a new property, in the order sent: the first is the default (rule 5). */
export function newUnitRows(propertyId: number, entries: CreateUnitEntry[], now: Date) {
  return entries.map((u, i) => ({
    property_id: propertyId,
    name: u.name,
    code: u.code ?? null,
    max_occupancy: u.max_occupancy ?? null,
    is_active: true,
    is_default: i === 0,
    position: i + 1,
    created_at: now,
    updated_at: now,
  }));
}

/**
 * POST /properties and each bulk entry (bodies checked by the route): creates a property for an
 * integration in one transaction: the property, its units, its coverage and mappings, and the
 * initial-state events (decisions §6, the calendar's from `calendar`) all commit together or not at all.
 */
export async function createChecked(deps: Deps, actor: Actor, input: CreatePropertyInput, calendar: CalendarDrafts): Promise<PropertyBlockView> {
  const now = deps.clock.now();
  const today = kolkataDate(now);
  const externalId = input.external_id ?? null;
  // Omitted: one default unit named after the property (decisions §5).
  const unitInputs: CreateUnitEntry[] = input.units ?? [{ name: input.name }];

  const { block } = await writeTransaction(deps, async (trx) => {
    if (externalId !== null) {
      const holder = await selectCoverageByExternalId(trx, actor.integrationId, externalId);
      if (holder) throw externalIdExists(externalId, holder.property_id);
    }
    await refuseHeldAliases(trx, actor.integrationId, unitInputs);

    const row = await insertProperty(trx, {
      ...createColumns(input),
      brand_id: actor.brandId,
      status: 'active',
      created_by_integration_id: actor.integrationId,
      created_at: now,
      updated_at: now,
    });
    const units = await insertUnits(trx, newUnitRows(row.id, unitInputs, now));
    // Covered at once, whatever any auto-enrol setting says (rule 7).
    trx.send(trx.insertInto('coverage').values({ integration_id: actor.integrationId, property_id: row.id, external_id: externalId, created_at: now }));
    trx.touched('coverage');
    const aliases = unitInputs.flatMap((u, i) => (typeof u.external_id === 'string' ? [{ unitId: units[i].id, externalId: u.external_id }] : []));
    insertAliases(trx, actor.integrationId, aliases);
    touchInputsVersion(trx, await lockNewProperty(trx, row.id));

    const state: PropertyState = { row, units, aliases: new Map(aliases.map((a) => [a.unitId, a.externalId])), externalId };
    const appended = await appendEvents(trx, {
      clock: deps.clock,
      propertyId: row.id,
      targets: await selectAppendTargets(trx, row.id),
      actorIntegrationId: actor.integrationId,
      build: (target) => initialEventDrafts(trx, row.id, target, today, calendar, target.integrationId === actor.integrationId ? state : undefined),
    });
    return { block: propertyBlock(state), appended };
  });
  return block;
}

/** Unit rule on create: a units[].external_id already mapped to a unit of the integration is a 422. */
async function refuseHeldAliases(trx: Transaction<DB>, integrationId: number, units: Array<{ external_id?: string | null }>) {
  const sent = units.map((u, i) => [i, u.external_id] as const).filter((x): x is readonly [number, string] => typeof x[1] === 'string');
  if (sent.length === 0) return;
  const held = new Set(
    (
      await selectAliasHolders(
        trx,
        integrationId,
        sent.map((x) => x[1]),
      )
    ).map((h) => h.external_id),
  );
  const errors = new FieldErrorCollector();
  for (const [i, alias] of sent) if (held.has(alias)) errors.add(`units.${i}.external_id`, 'is already mapped to another unit');
  errors.throwIfAny();
}

// ---------------------------------------------------------------------------------------------
// Update

export type Locate = (trx: Transaction<DB>) => Promise<CoveredProperty | null>;

/** PUT /properties/{property}: checks the body, then updates; `external_id` in the body re-maps. */
export async function updateProperty(deps: Deps, actor: Actor, ref: string, body: UpdatePropertyInput, calendar: CalendarDrafts): Promise<PropertyBlockView> {
  return updateChecked(deps, actor, (trx) => requireCoveredProperty(trx, actor.integrationId, ref), body, true, calendar);
}

/**
 * Applies a checked update body to a covered, non-archived property, with its events: always
 * property.changed; inventory.changed when units were sent; availability.changed over the horizon
 * when a unit went on or off sale; rates.changed over the horizon when a price changed (both from
 * `calendar`).
 */
export async function updateChecked(
  deps: Deps,
  actor: Actor,
  locate: Locate,
  input: UpdatePropertyInput,
  remap: boolean,
  calendar: CalendarDrafts,
): Promise<PropertyBlockView> {
  const now = deps.clock.now();
  const today = kolkataDate(now);
  const { block } = await writeTransaction(deps, async (trx) => {
    // Located, locked, then located again: what is decided on is read under the lock.
    const found = await locate(trx);
    if (!found) throw notFound('No such property.');
    const lock = await lockProperty(trx, found.id);
    const covered = lock && (await locate(trx));
    if (!lock || covered?.id !== lock.propertyId) throw notFound('No such property.');
    if (lock.status === 'archived') throw archivedError();

    let externalId = covered.externalId;
    if (remap && input.external_id !== undefined && input.external_id !== covered.externalId) {
      if (input.external_id !== null) {
        const holder = await selectCoverageByExternalId(trx, actor.integrationId, input.external_id);
        if (holder && holder.property_id !== covered.id) throw externalIdExists(input.external_id, holder.property_id);
      }
      externalId = input.external_id;
      trx.send(
        trx.updateTable('coverage').set({ external_id: externalId }).where('integration_id', '=', actor.integrationId).where('property_id', '=', covered.id),
      );
      trx.touched('coverage');
    }

    const before = await loadPropertyState(trx, actor.integrationId, covered.id, externalId);
    if (!before) throw notFound('No such property.');
    const { set, pricesChanged, errors } = updateColumns(input, before.row);
    errors.throwIfAny();
    const units = input.units ? await mergeUnits(trx, lock, actor.integrationId, before, input.units, now) : null;
    trx.send(
      trx
        .updateTable('properties')
        .set({ ...set, updated_at: now })
        .where('id', '=', covered.id),
    );

    const appended = await appendEvents(trx, {
      clock: deps.clock,
      propertyId: covered.id,
      targets: await selectAppendTargets(trx, covered.id),
      actorIntegrationId: actor.integrationId,
      build: (target) =>
        changeDrafts(trx, covered.id, target, today, calendar, {
          inventory: units !== null,
          retired: units?.retired ?? [],
          availability: units?.saleChanged ?? false,
          rates: pricesChanged,
        }),
    });
    const after = await loadPropertyState(trx, actor.integrationId, covered.id, externalId);
    return { block: propertyBlock(after!), appended };
  });
  return block;
}

interface ChangeKinds {
  inventory: boolean;
  retired: RetiredAlias[];
  availability: boolean;
  rates: boolean;
}

/** The events of a change for one receiving integration, in a fixed order. */
export async function changeDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  target: Parameters<typeof initialEventDrafts>[2],
  today: string,
  calendar: CalendarDrafts,
  kinds: ChangeKinds,
): Promise<EventDraft[]> {
  const state = await loadPropertyState(trx, target.integrationId, propertyId, target.propertyExternalId);
  if (!state) return [];
  const drafts = [propertyDraftFrom(state)];
  if (kinds.inventory) drafts.push(inventoryDraftFrom(state, kinds.retired, target.integrationId));
  const calendarKinds: Array<'availability' | 'rates'> = [];
  if (kinds.availability) calendarKinds.push('availability');
  if (kinds.rates) calendarKinds.push('rates');
  if (calendarKinds.length > 0) {
    drafts.push(...(await calendar(trx, propertyId, calendarKinds, horizonWindows(today, target.horizonDays), target)));
  }
  return drafts;
}

// ---------------------------------------------------------------------------------------------
// Reads

/** GET /properties: a page of covered properties, with the sequence watermark read first. */
export async function listProperties(deps: Deps, integrationId: number, query: ListQueryInput) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  // Read before the payload: events above it apply on top, those at or below are included.
  const sequence = await selectLastSequence(deps.db, integrationId);
  const { rows, total } = await selectCoveredPage(deps.db, integrationId, { status: query.status, limit: perPage, offset: (page - 1) * perPage });
  const properties = await loadPropertyBlocks(deps.db, integrationId, rows);
  return {
    data: { sequence, properties },
    pagination: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

/** GET /properties/{property}: the Property block with its input groups. */
export async function getProperty(deps: Deps, integrationId: number, ref: string) {
  const covered = await requireCoveredProperty(deps.db, integrationId, ref);
  const state = await loadPropertyState(deps.db, integrationId, covered.id, covered.externalId);
  if (!state) throw notFound('No such property.');
  return propertyDetail(state);
}
