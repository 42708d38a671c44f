import type { Static } from '@sinclair/typebox';
import { isDatabaseUnavailable } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import { AppError, databaseUnavailable } from '../../http/errors.js';
import type { BulkCreateInput, BulkResult, BulkUpdateBodyInput } from './properties.schemas.js';
import type { CalendarDrafts } from './properties.payloads.js';
import { createChecked, updateChecked, type Actor, type Locate } from './properties.service.js';
import { selectCoveredBy } from './properties.sql.js';

// POST and PUT /properties/bulk: one transaction per item, each refused item failing alone.

/** One entry of a bulk answer, typed from the response schema. */
export type BulkItemResult = Static<typeof BulkResult>['results'][number] & { status: 'created' | 'updated' | 'failed' };

function bulkData(results: BulkItemResult[]): Static<typeof BulkResult> {
  const succeeded = results.filter((r) => r.status !== 'failed').length;
  return { summary: { requested: results.length, succeeded, failed: results.length - succeeded }, results };
}

/** A refusal of one item; anything unexpected is logged and reported without internals. */
function itemError(deps: Deps, error: unknown): NonNullable<BulkItemResult['error']> {
  // An outage is not this item's fault: the partner retries the item, as the 503 would tell it.
  if (isDatabaseUnavailable(error)) error = databaseUnavailable();
  if (error instanceof AppError) {
    return error.errors === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, errors: error.errors };
  }
  deps.log.error({ err: error }, 'bulk property item failed');
  return { code: 'INTERNAL_ERROR', message: 'Something went wrong on our side with this item.' };
}

/**
 * POST /properties/bulk: the whole batch is checked first (422, nothing written), then each item
 * is created in its own transaction; a refused item fails alone.
 */
export async function bulkCreate(
  deps: Deps,
  actor: Actor,
  body: BulkCreateInput,
  calendar: CalendarDrafts,
): Promise<{ allCreated: boolean; data: ReturnType<typeof bulkData> }> {
  const items = body.properties;
  const results: BulkItemResult[] = [];
  for (const [index, item] of items.entries()) {
    const externalId = item.external_id ?? null;
    try {
      const property = await createChecked(deps, actor, item, calendar);
      results.push({ index, external_id: externalId, doorloom_id: property.doorloom_id, status: 'created', property });
    } catch (error) {
      results.push({ index, external_id: externalId, doorloom_id: null, status: 'failed', error: itemError(deps, error) });
    }
  }
  return { allCreated: results.every((r) => r.status === 'created'), data: bulkData(results) };
}

/** PUT /properties/bulk: as bulk create; items name their property and never re-map it. */
export async function bulkUpdate(deps: Deps, actor: Actor, body: BulkUpdateBodyInput, calendar: CalendarDrafts) {
  const items = body.properties;
  const results: BulkItemResult[] = [];
  for (const [index, item] of items.entries()) {
    const by = item.doorloom_id !== undefined ? { id: item.doorloom_id } : { externalId: item.external_id! };
    const seen = await selectCoveredBy(deps.db, actor.integrationId, by);
    // Both given: they must name the same property.
    const locate: Locate = async (trx) => {
      const found = await selectCoveredBy(trx, actor.integrationId, by);
      if (found && item.doorloom_id !== undefined && item.external_id !== undefined && found.externalId !== item.external_id) return null;
      return found;
    };
    try {
      const property = await updateChecked(deps, actor, locate, item, false, calendar);
      results.push({ index, external_id: property.external_id, doorloom_id: property.doorloom_id, status: 'updated', property });
    } catch (error) {
      results.push({
        index,
        external_id: item.external_id ?? seen?.externalId ?? null,
        doorloom_id: seen?.id ?? null,
        status: 'failed',
        error: itemError(deps, error),
      });
    }
  }
  return bulkData(results);
}
