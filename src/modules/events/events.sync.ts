import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { AppError, fail, FieldErrorCollector } from '../../http/errors.js';
import { horizonWindows, kolkataDate, startOfKolkataDate, addDays } from '../../lib/time.js';
import { calendarEventDrafts, type CalendarSettings } from '../calendar/calendar.payloads.js';
import { lockProperty } from '../calendar/calendar.sql.js';
import { inventoryEventDraft, propertyEventDraft } from '../properties/properties.payloads.js';
import { FailureGate } from '../../lib/backoff.js';
import { createClaims, holdLease, LeaseLostError, type Claims, type Lease } from '../webhooks/webhooks.claims.js';
import { appendEvents, withEvents, type EventDraft, type EventTarget, type EventType } from './events.log.js';

export const SYNC_KINDS = ['availability', 'rates', 'restrictions', 'inventory', 'property'] as const;
export const SYNC_MAX_PROPERTIES = 500;
export const SYNC_DAILY_CALLS = 6;
const SYNC_INTERVAL_MS = 24 * 60 * 60 * 1000;

export const SyncBody = Type.Object({
  property_ids: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { minItems: 1, maxItems: SYNC_MAX_PROPERTIES, description: 'Service property ids, each covered; omitted: every covered property' }),
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
  /** The day's calls left, for X-RateLimit-Remaining. */
  remaining: number;
}

/**
 * POST /sync (contract "POST /sync", decisions §8). In order:
 * 1. the call is counted against the Asia/Kolkata day (every call, refusals included); the 7th
 *    and later are 429 RATE_LIMITED until the day ends;
 * 2. the body is validated (422, PROPERTY_NOT_MAPPED for an id outside coverage); nothing is
 *    consumed but the call;
 * 3. one accepted sync per 24 hours, else 429 SYNC_TOO_SOON with errors.retry_after;
 * 4. accepted: a job is queued for the background runner (never regenerated in the request).
 */
export async function requestSync(
  deps: Deps,
  integrationId: number,
  body: SyncInput,
  /** Told the day's calls left once this call is counted, before any refusal that follows. */
  onCounted?: (remaining: number) => void,
  /** The route's verdict on the body when it failed validation: answered once the call is counted. */
  invalidBody?: Error,
): Promise<SyncAccepted> {
  const now = deps.clock.nowMs();
  const today = kolkataDate(now);

  const counted = await deps.db
    .insertInto('sync_quota')
    .values({ integration_id: integrationId, day: today, calls: 1 })
    .onConflict((oc) =>
      oc.column('integration_id').doUpdateSet((eb) => ({
        calls: eb.case().when('sync_quota.day', '=', eb.ref('excluded.day')).then(eb('sync_quota.calls', '+', 1)).else(1).end(),
        day: eb.ref('excluded.day'),
      })),
    )
    .returning('calls')
    .executeTakeFirstOrThrow();
  if (counted.calls > SYNC_DAILY_CALLS) {
    const nextDay = startOfKolkataDate(addDays(today, 1)).getTime();
    throw rateLimited(Math.max(1, Math.ceil((nextDay - now) / 1000)));
  }
  const remaining = SYNC_DAILY_CALLS - counted.calls;
  onCounted?.(remaining);

  if (invalidBody) throw invalidBody;
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
    const covered = new Set(
      (
        await deps.db
          .selectFrom('coverage')
          .select('property_id')
          .where('integration_id', '=', integrationId)
          .where('property_id', 'in', [...new Set(propertyIds)])
          .execute()
      ).map((r) => r.property_id),
    );
    const missing = new FieldErrorCollector();
    propertyIds.forEach((id, i) => {
      if (!covered.has(id)) missing.add(`property_ids.${i}`, `property ${id} is not covered by this integration`);
    });
    if (!missing.empty) throw fail('PROPERTY_NOT_MAPPED', 'Some property ids are unknown or outside this integration’s coverage.', missing.errors);
  }

  const outcome = await deps.db.transaction().execute(async (trx) => {
    const quota = await trx
      .selectFrom('sync_quota')
      .select('last_accepted_at')
      .where('integration_id', '=', integrationId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const since = quota.last_accepted_at?.getTime();
    if (since !== undefined && now - since < SYNC_INTERVAL_MS) {
      return { tooSoon: Math.max(1, Math.ceil((since + SYNC_INTERVAL_MS - now) / 1000)) } as const;
    }
    const ids = propertyIds
      ? [...new Set(propertyIds)]
      : (
          await trx.selectFrom('coverage').select('property_id').where('integration_id', '=', integrationId).orderBy('property_id').execute()
        ).map((r) => r.property_id);
    const integration = await trx.selectFrom('integrations').select('horizon_days').where('id', '=', integrationId).executeTakeFirstOrThrow();
    await trx
      .insertInto('sync_jobs')
      .values({ integration_id: integrationId, property_ids: ids, types, created_at: new Date(now), started_at: null, finished_at: null })
      .execute();
    await trx.updateTable('sync_quota').set({ last_accepted_at: new Date(now) }).where('integration_id', '=', integrationId).execute();
    return { queued: ids.length, horizonDays: integration.horizon_days } as const;
  });
  if ('tooSoon' in outcome) {
    const retryAfter = outcome.tooSoon;
    throw fail(
      'SYNC_TOO_SOON',
      `One full sync per 24 hours. Retry after ${retryAfter} seconds.`,
      { retry_after: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
  deps.signals.emit('sync');
  return { queued_properties: outcome.queued, horizon_days: outcome.horizonDays, types, remaining };
}

/**
 * One property's regenerated events for one integration: property, inventory, then availability,
 * rates and restrictions for each whole month from today to the horizon's end (the order of a
 * property create).
 */
async function syncDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  types: readonly string[],
  target: EventTarget,
  today: string,
  settings: CalendarSettings,
): Promise<EventDraft[]> {
  const drafts: EventDraft[] = [];
  if (types.includes('property.changed')) drafts.push(await propertyEventDraft(trx, propertyId, target));
  if (types.includes('inventory.changed')) drafts.push(await inventoryEventDraft(trx, propertyId, target));
  const calendarKinds = (['availability', 'rates', 'restrictions'] as const).filter((k) => types.includes(`${k}.changed`));
  if (calendarKinds.length > 0) {
    drafts.push(...(await calendarEventDrafts(trx, propertyId, [...calendarKinds], horizonWindows(today, target.horizonDays), target, settings)));
  }
  return drafts;
}

/**
 * Works one step of a job: the next property's events and the job's progress commit together, so a
 * crash neither loses nor repeats a property. Returns false when the job is finished.
 */
async function syncStep(deps: Deps, jobId: number, lease: Lease): Promise<boolean> {
  return withEvents(deps, async (trx) => {
    // a runner whose claim passed to another writes nothing (holdLease throws)
    await holdLease(trx, lease);
    const job = await trx.selectFrom('sync_jobs').selectAll().where('id', '=', jobId).forUpdate().executeTakeFirst();
    if (!job || job.finished_at) return false;
    const now = deps.clock.now();
    if (job.next_index >= job.property_ids.length) {
      await trx.updateTable('sync_jobs').set({ finished_at: now, started_at: job.started_at ?? now }).where('id', '=', jobId).execute();
      return false;
    }
    const propertyId = job.property_ids[job.next_index];
    const today = kolkataDate(now);
    // The property's calendar lock, the one every writer of its calendar, units and settings takes,
    // before anything is read: the state regenerated here and the sequences allocated for it are
    // then both after every write that committed before, and before every write that follows. Read
    // without it, a write committing between the read and the allocation would hold a lower
    // sequence than these older payloads, and a partner applying events in order would keep them.
    // Sync events are the service's own regeneration, not an echo of a partner write, so they carry
    // origin `doorloom` (a receiver that ignores its own echoes must still apply them). A property
    // no longer covered (or gone) records nothing (appendEvents joins coverage).
    if (await lockProperty(trx, propertyId)) {
      await appendEvents(trx, {
        clock: deps.clock,
        propertyId,
        actorIntegrationId: null,
        onlyIntegrationId: job.integration_id,
        build: (target) => syncDrafts(trx, propertyId, job.types, target, today, deps.config),
      });
    }
    await trx
      .updateTable('sync_jobs')
      .set({ next_index: job.next_index + 1, started_at: job.started_at ?? now })
      .where('id', '=', jobId)
      .execute();
    return true;
  });
}

export interface SyncRunner {
  kick(): void;
  stop(): Promise<void>;
}

/**
 * Works through accepted syncs in the background, one job at a time per claim (a job survives its
 * worker: the claim is a lease that expires, see webhooks.claims.ts, and progress is in the job row).
 */
export function startSyncRunner(deps: Deps, options: { claims?: Claims; pollMs?: number } = {}): SyncRunner {
  const claims = options.claims ?? createClaims(deps);
  let stopping = false;
  let running: Promise<void> | null = null;
  let again = false;
  const gate = new FailureGate('sync runner', deps.log);

  async function work(): Promise<void> {
    do {
      again = false;
      const jobs = await deps.db.selectFrom('sync_jobs').select('id').where('finished_at', 'is', null).orderBy('id').limit(20).execute();
      for (const { id } of jobs) {
        if (stopping) return;
        const lease = await claims.tryClaim('sync', id);
        if (!lease) continue;
        try {
          while (!stopping && claims.holds(lease) && (await syncStep(deps, id, lease)));
        } catch (error) {
          if (!(error instanceof LeaseLostError)) throw error;
          deps.log.warn({ syncJobId: id }, 'sync job stopped here: another process holds its claim now');
        } finally {
          await claims.release(lease);
        }
      }
    } while (again && !stopping);
  }

  const kick = () => {
    if (stopping || !gate.open) return;
    if (running) {
      again = true;
      return;
    }
    running = work()
      .then(() => gate.succeeded(), (error) => gate.failed(error))
      .finally(() => {
        running = null;
      });
  };
  deps.signals.on('sync', kick);
  const timer = setInterval(kick, options.pollMs ?? 1_000);
  timer.unref();
  setImmediate(kick);

  return {
    kick,
    async stop() {
      stopping = true;
      clearInterval(timer);
      deps.signals.off('sync', kick);
      await running;
      if (!options.claims) await claims.close();
    },
  };
}
