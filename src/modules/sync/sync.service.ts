import { dataClock } from '../../lib/clock.js';
import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { AppError, fail, FieldErrorCollector } from '../../http/errors.js';
import { kolkataDate, startOfKolkataDate, addDays } from '../../lib/time.js';
import type { EventType } from '../../lib/contract.js';
import { findIntegration } from '../integrations/integrations.sql.js';
import { selectCoveredPropertyIds } from '../properties/properties.sql.js';
import { countSyncCall, deleteFinishedSyncJobs, insertSyncJob, lockLastAccepted } from './sync.sql.js';

export const SYNC_KINDS = ['availability', 'rates', 'restrictions', 'inventory', 'property'] as const;
export const SYNC_MAX_PROPERTIES = 500;
export const SYNC_DAILY_CALLS = 6;
const SYNC_INTERVAL_MS = 24 * 60 * 60 * 1000;

export const SyncBody = Type.Object({
  property_ids: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
      minItems: 1,
      maxItems: SYNC_MAX_PROPERTIES,
      description: 'Service property ids, each covered; omitted: every covered property',
    }),
  ),
  types: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      description: `Any of ${SYNC_KINDS.join(', ')}, or their .changed spellings; omitted: all five`,
    }),
  ),
});
export type SyncInput = Static<typeof SyncBody>;

/** `availability` or `availability.changed` → `availability.changed`; null for anything else. */
function normaliseKind(value: string): EventType | null {
  const base = value.endsWith('.changed') ? value.slice(0, -'.changed'.length) : value;
  return (SYNC_KINDS as readonly string[]).includes(base) ? (`${base}.changed` as EventType) : null;
}

function rateLimited(retryAfter: number): AppError {
  return fail(
    'RATE_LIMITED',
    `At most ${SYNC_DAILY_CALLS} sync calls a day, refusals included. Retry after ${retryAfter} seconds.`,
    { retry_after: retryAfter },
    { 'Retry-After': String(retryAfter), 'X-RateLimit-Limit': String(SYNC_DAILY_CALLS), 'X-RateLimit-Remaining': '0' },
  );
}

export interface SyncAccepted {
  queued_properties: number;
  horizon_days: number;
  types: EventType[];
}

/**
 * Counts a POST /sync call against the Asia/Kolkata day (contract "POST /sync", decisions §8): every
 * call counts, refusals included, so the route does it in a hook before the body is validated. The
 * 7th and later calls of a day are 429 RATE_LIMITED until the day ends. Returns the day's calls left.
 */
export async function countSyncCallToday(deps: Deps, integrationId: number): Promise<number> {
  // The day's calls and the 24-hour window run on the brand's clock (a sandbox brand's own).
  const now = dataClock(deps.clock, 'resyncWindow', { integrationId }).nowMs();
  const today = kolkataDate(now);
  const calls = await countSyncCall(deps.db, integrationId, today);
  if (calls > SYNC_DAILY_CALLS) {
    const nextDay = startOfKolkataDate(addDays(today, 1)).getTime();
    throw rateLimited(Math.max(1, Math.ceil((nextDay - now) / 1000)));
  }
  return SYNC_DAILY_CALLS - calls;
}

/**
 * POST /sync once the call is counted (countSyncCallToday) and the body passed validation:
 * 1. PROPERTY_NOT_MAPPED for an id outside coverage; nothing is consumed but the call;
 * 2. one accepted sync per 24 hours, else 429 SYNC_TOO_SOON with errors.retry_after;
 * 3. accepted: a job is queued for the background runner (never regenerated in the request).
 */
export async function requestSync(deps: Deps, integrationId: number, body: SyncInput): Promise<SyncAccepted> {
  const now = dataClock(deps.clock, 'resyncWindow', { integrationId }).nowMs();
  const { property_ids: propertyIds, types: rawTypes } = body;

  const problems = new FieldErrorCollector();
  const kinds = new Set<EventType>();
  (rawTypes ?? SYNC_KINDS).forEach((value, i) => {
    const kind = normaliseKind(value);
    if (kind) kinds.add(kind);
    else problems.add(`types.${i}`, `must be one of: ${SYNC_KINDS.join(', ')} (or the .changed spelling)`);
  });
  problems.throwIfAny();
  // the contract's order of kinds, whatever order they came in
  const types = SYNC_KINDS.map((k) => `${k}.changed` as EventType).filter((k) => kinds.has(k));

  if (propertyIds) {
    const covered = new Set(await selectCoveredPropertyIds(deps.db, integrationId, [...new Set(propertyIds)]));
    const missing = new FieldErrorCollector();
    propertyIds.forEach((id, i) => {
      if (!covered.has(id)) missing.add(`property_ids.${i}`, `property ${id} is not covered by this integration`);
    });
    if (!missing.empty) throw fail('PROPERTY_NOT_MAPPED', 'Some property ids are unknown or outside this integration’s coverage.', missing.errors);
  }

  const outcome = await deps.db.transaction().execute(async (trx) => {
    const lastAccepted = await lockLastAccepted(trx, integrationId);
    const since = lastAccepted?.getTime();
    if (since !== undefined && now - since < SYNC_INTERVAL_MS) {
      return { tooSoon: Math.max(1, Math.ceil((since + SYNC_INTERVAL_MS - now) / 1000)) } as const;
    }
    const ids = propertyIds ? [...new Set(propertyIds)] : await selectCoveredPropertyIds(trx, integrationId);
    const integration = await findIntegration(trx, integrationId);
    if (!integration) throw new Error(`integration ${integrationId} is gone`);
    await insertSyncJob(trx, integrationId, ids, types, new Date(now));
    return { queued: ids.length, horizonDays: integration.horizon_days } as const;
  });
  if ('tooSoon' in outcome) {
    const retryAfter = outcome.tooSoon;
    const count = propertyIds ? new Set(propertyIds).size : 0;
    const scope = propertyIds ? `${count} ${count === 1 ? 'property' : 'properties'}` : 'every covered property';
    const kindsText = types.map((t) => t.replace(/\.changed$/, '')).join(', ');
    throw fail(
      'SYNC_TOO_SOON',
      `This sync (${scope}; ${kindsText}) was not queued: one sync, full or targeted, per 24 hours. Retry after ${retryAfter} seconds.`,
      { retry_after: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
  deps.signals.emit('sync');
  return { queued_properties: outcome.queued, horizon_days: outcome.horizonDays, types };
}

/** The sync module's retention: finished jobs created before the cutoff. */
export function deleteExpiredSyncJobs(deps: Deps, cutoff: Date): Promise<number> {
  return deleteFinishedSyncJobs(deps.db, cutoff);
}
