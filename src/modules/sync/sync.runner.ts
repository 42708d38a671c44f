import { dataClock } from '../../lib/clock.js';
import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { FailureGate } from '../../lib/backoff.js';
import { horizonWindows, kolkataDate } from '../../lib/time.js';
import { calendarEventDrafts, type CalendarSettings } from '../calendar/calendar.payloads.js';
import { appendEvents, unitOfWork, type EventDraft, type EventTarget } from '../events/events.log.js';
import { lockProperty } from '../properties/properties.lock.js';
import { inventoryEventDraft, propertyEventDraft } from '../properties/properties.payloads.js';
import { selectAppendTargets } from '../properties/properties.sql.js';
import { createClaims, holdLease, LeaseLostError, type Claims, type Lease } from '../leases/leases.claims.js';
import { advanceSyncJob, lockSyncJob, selectOpenSyncJobs } from './sync.sql.js';

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
  return unitOfWork(deps, async (trx) => {
    // a runner whose claim passed to another writes nothing (holdLease throws)
    await holdLease(trx, lease);
    const job = await lockSyncJob(trx, jobId);
    if (!job || job.finished_at) return false;
    const now = deps.clock.now();
    if (job.next_index >= job.property_ids.length) {
      advanceSyncJob(trx, jobId, { finished_at: now, started_at: job.started_at ?? now });
      return false;
    }
    const propertyId = job.property_ids[job.next_index];
    const today = kolkataDate(dataClock(deps.clock, 'horizon', { integrationId: job.integration_id }).now());
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
        targets: await selectAppendTargets(trx, propertyId, job.integration_id),
        actorIntegrationId: null,
        build: (target) => syncDrafts(trx, propertyId, job.types, target, today, deps.config),
      });
    }
    advanceSyncJob(trx, jobId, { next_index: job.next_index + 1, started_at: job.started_at ?? now });
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
      const jobs = await selectOpenSyncJobs(deps.db, 20);
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
      .then(
        () => gate.succeeded(),
        (error) => gate.failed(error),
      )
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
