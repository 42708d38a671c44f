import { dataClock, type Clock } from '../../lib/clock.js';
import { ulid } from '../../lib/ids.js';
import { API_VERSION, type EventType } from '../../lib/contract.js';
import { formatTimestamp, type DateWindow } from '../../lib/time.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { insertEventsQuery, writtenEvents, type AppendTarget, type EventRow } from './events.sql.js';
import { notifyAtCommit } from './events.unit.js';

export type { AppendTarget } from './events.sql.js';
export { unitOfWork, type UnitOfWork } from '../../db/unit-of-work.js';

/** One integration about to receive events, as the payload builder needs to see it. */
export interface EventTarget {
  integrationId: number;
  slug: string;
  /** The integration's own external id for the property (its mapping), or null. */
  propertyExternalId: string | null;
  /** `partner` when this integration made the write, `doorloom` otherwise. */
  origin: 'partner' | 'doorloom';
  /** Days ahead this integration's events cover (see horizonWindows / clampToHorizon in lib/time). */
  horizonDays: number;
}

export interface EventDraft {
  type: EventType;
  window?: DateWindow | null;
  data: unknown;
}

export interface AppendOptions {
  clock: Clock;
  /** The property the events are about; null for integration-wide events. */
  propertyId: number | null;
  /** The integration whose API call made the change (origin `partner` for it); null for host and system changes. */
  actorIntegrationId: number | null;
  /**
   * Builds the events for one target. Payloads can differ per integration (each has its own
   * external ids), so this runs once per receiving integration; returning [] records nothing for it.
   */
  build: (target: EventTarget) => EventDraft[] | Promise<EventDraft[]>;
  /**
   * The receiving integrations, read by the caller in this transaction: the property's covering
   * ones (properties' selectAppendTargets, or coveringTargetsJson inside a statement of its own).
   */
  targets: AppendTarget[];
}

/**
 * What an append recorded. Its statements are sent ahead (UnitOfWork.send), so the maps fill as
 * their answers arrive: complete once the unit of work has committed.
 */
export interface AppendResult {
  /** Events recorded per integration id. */
  recorded: Map<number, number>;
  /** The integrations among them with a webhook URL and an event to send: the ones delivery wakes for. */
  deliverable: number[];
  /** Events recorded per kind (for /metrics). */
  types: Map<string, number>;
}

/**
 * Records events inside the caller's transaction, for every integration that covers the property
 * (or the one named), skipping disabled integrations. Sequences come from `integrations.last_sequence`
 * bumped under the integration's row lock, so they are gap-free and commit or roll back with the
 * write. Integrations are locked in id order so that concurrent writers cannot deadlock on them.
 * The unit of work wakes delivery once it has committed (notifyAtCommit for other processes). Nothing reads the events'
 * answers before the commit, so their statements are sent ahead and go out with the next read or
 * the COMMIT.
 *
 * Callers hold the lock that serialises the writers of what the payloads carry (for a property:
 * its lock, lockProperty, or a stronger lock of its row) from before `build`
 * reads until the commit: the payloads are then never older than their sequences.
 */
export async function appendEvents(uow: UnitOfWork, options: AppendOptions): Promise<AppendResult> {
  const { targets } = options;
  const recorded = new Map<number, number>();
  const deliverable: number[] = [];
  const types = new Map<string, number>();
  for (const target of targets) {
    // Each receiver's events carry the time of its brand's clock (a sandbox brand's own).
    const now = dataClock(options.clock, 'occurredAt', { integrationId: target.id }).now();
    const createdAt = formatTimestamp(now);
    const origin: 'partner' | 'doorloom' = target.id === options.actorIntegrationId ? 'partner' : 'doorloom';
    const drafts = await options.build({
      integrationId: target.id,
      slug: target.slug,
      propertyExternalId: target.external_id ?? null,
      origin,
      horizonDays: target.horizon_days,
    });
    if (drafts.length === 0) continue;

    // Each body is the envelope's JSON cut around its sequence, which only the database knows:
    // head || sequence || tail.
    const rows: EventRow[] = drafts.map((draft) => {
      const id = ulid(now.getTime());
      const window = draft.window ?? null;
      const rest = JSON.stringify({
        origin,
        version: API_VERSION,
        created_at: createdAt,
        integration: { id: target.id, slug: target.slug },
        property: options.propertyId === null ? null : { doorloom_id: options.propertyId, external_id: target.external_id ?? null },
        window,
        data: draft.data,
      });
      return {
        id,
        type: draft.type,
        from: window?.from ?? null,
        to: window?.to ?? null,
        head: `${JSON.stringify({ id, type: draft.type }).slice(0, -1)},"sequence":`,
        tail: `,${rest.slice(1)}`,
        status: target.webhook_event_types.includes(draft.type) ? 'pending' : 'skipped',
      };
    });
    const sends = target.has_webhook && rows.some((r) => r.status === 'pending');
    // What a target's events add to the result once written (nothing when the integration was
    // disabled after the read above).
    const record = (written: number) => {
      if (written === 0) return;
      const added = new Map<string, number>();
      for (const draft of drafts) added.set(draft.type, (added.get(draft.type) ?? 0) + 1);
      recorded.set(target.id, drafts.length);
      for (const [type, n] of added) types.set(type, (types.get(type) ?? 0) + n);
      if (sends) {
        deliverable.push(target.id);
        uow.wake(target.id);
      }
      uow.recorded(added);
    };
    if (sends) notifyAtCommit(uow, target.id);
    const head = { integrationId: target.id, origin, propertyId: options.propertyId, createdAt: now };
    // Each part writes nothing when the integration was disabled after the read above.
    let unanswered = Math.ceil(rows.length / 500);
    let written = 0;
    for (let i = 0; i < rows.length; i += 500) {
      uow.send(insertEventsQuery(head, rows.slice(i, i + 500)), (result) => {
        written += writtenEvents(result);
        if (--unanswered === 0) record(written);
      });
    }
    // The events, the integration's sequence and webhooks' undelivered count (insertEventsQuery).
    uow.touched('events', 'integrations', 'webhook_delivery_state');
  }
  return { recorded, deliverable, types };
}
