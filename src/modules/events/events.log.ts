import type { EventEmitter } from 'node:events';
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { ulid } from '../../lib/ids.js';
import { formatTimestamp, type DateWindow } from '../../lib/time.js';

export const API_VERSION = '2026-09';

export const EVENT_TYPES = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
  'booking.changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
  /** Record for this integration only (sync, or integration-wide events); otherwise every covering one. */
  onlyIntegrationId?: number;
  /**
   * Builds the events for one target. Payloads can differ per integration (each has its own
   * external ids), so this runs once per receiving integration; returning [] records nothing for it.
   */
  build: (target: EventTarget) => EventDraft[] | Promise<EventDraft[]>;
  /**
   * The receiving integrations, when the caller has read them in this transaction already (see
   * coveringTargetsJson); otherwise appendEvents reads them.
   */
  targets?: AppendTarget[];
}

/** A receiving integration as appendEvents reads it. */
export interface AppendTarget {
  id: number;
  slug: string;
  webhook_event_types: string[];
  horizon_days: number;
  /** A webhook URL is set: recorded events may be sent. */
  has_webhook: boolean;
  external_id?: string | null;
}

/**
 * The integrations covering a property as appendEvents reads them, as a JSON array expression
 * to embed in a caller's own statement (saving appendEvents the read): `propertyId` is an SQL
 * expression for the property's id.
 */
export function coveringTargetsJson(propertyId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(
    select coalesce(json_agg(json_build_object('id', i.id, 'slug', i.slug, 'webhook_event_types', i.webhook_event_types,
      'horizon_days', i.horizon_days, 'has_webhook', i.webhook_url is not null, 'external_id', c.external_id) order by i.id), '[]'::json)
    from integrations i join coverage c on c.integration_id = i.id and c.property_id = ${propertyId}
    where i.status != 'disabled'
  )`;
}

export interface AppendResult {
  /** Events recorded per integration id. */
  recorded: Map<number, number>;
  /** The integrations among them with a webhook URL and an event to send: the ones delivery wakes for. */
  deliverable: number[];
  /** Events recorded per kind (for /metrics). */
  types: Map<string, number>;
}

/** After the commit: wakes this process's delivery worker for what the append left to send. */
export function announceAppended(signals: EventEmitter, result: AppendResult | undefined): void {
  if (result && result.types.size > 0) signals.emit('recorded', result.types);
  if (result && result.deliverable.length > 0) signals.emit('events', result.deliverable);
}

/**
 * Records events inside the caller's transaction, for every integration that covers the property
 * (or the one named), skipping disabled integrations. Sequences come from `integrations.last_sequence`
 * bumped under the integration's row lock, so they are gap-free and commit or roll back with the
 * write. Integrations are locked in id order so that concurrent writers cannot deadlock on them.
 */
export async function appendEvents(trx: Transaction<DB>, options: AppendOptions): Promise<AppendResult> {
  let targets = options.targets;
  if (!targets) {
    let query = trx
      .selectFrom('integrations as i')
      .select(['i.id', 'i.slug', 'i.webhook_event_types', 'i.horizon_days'])
      .select((eb) => eb('i.webhook_url', 'is not', null).as('has_webhook'))
      .where('i.status', '!=', 'disabled')
      .orderBy('i.id');
    if (options.propertyId !== null) {
      query = query
        .innerJoin('coverage as c', (join) => join.onRef('c.integration_id', '=', 'i.id').on('c.property_id', '=', options.propertyId!))
        .select('c.external_id');
    }
    if (options.onlyIntegrationId !== undefined) query = query.where('i.id', '=', options.onlyIntegrationId);
    targets = (await query.execute()) as AppendTarget[];
  }

  const recorded = new Map<number, number>();
  const deliverable: number[] = [];
  const types = new Map<string, number>();
  const now = options.clock.now();
  const createdAt = formatTimestamp(now);
  for (const target of targets) {
    const origin: 'partner' | 'doorloom' = target.id === options.actorIntegrationId ? 'partner' : 'doorloom';
    const drafts = await options.build({
      integrationId: target.id,
      slug: target.slug,
      propertyExternalId: target.external_id ?? null,
      origin,
      horizonDays: target.horizon_days,
    });
    if (drafts.length === 0) continue;

    // One statement per target: the sequence bump (its row lock is held to commit, so no other
    // writer allocates in between) and the events numbered from it. Each body is the envelope's
    // JSON cut around its sequence, which only the database knows: head || sequence || tail.
    const rows = drafts.map((draft) => {
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
    // Rows as VALUES (plain parameters; text arrays would need every body escaped and parsed),
    // at most 500 a statement to stay under the bind-parameter limit.
    let written = 0;
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const values = sql.join(chunk.map((r, n) => sql`(${sql.lit(n + 1)}::int, ${r.id}::text, ${r.type}::text, ${r.from}::date, ${r.to}::date, ${r.head}::text, ${r.tail}::text, ${r.status}::text)`));
      const { rows: inserted } = await sql<{ n: number }>`
        with allocated as (
          update integrations set last_sequence = last_sequence + ${chunk.length}
          where id = ${target.id} and status != 'disabled'
          returning last_sequence - ${chunk.length} as base
        ), added as (
          insert into events (integration_id, sequence, id, type, origin, property_id, window_from, window_to, body, created_at, delivery_status)
          select ${target.id}::int, a.base + r.n, r.id, r.type, ${origin}::text, ${options.propertyId}::int, r.window_from, r.window_to,
                 r.head || (a.base + r.n)::text || r.tail, ${now}::timestamptz, r.status
          from allocated a, (values ${values}) as r(n, id, type, window_from, window_to, head, tail, status)
          returning 1
        )
        select count(*)::int as n from added
      `.execute(trx);
      written += inserted[0]?.n ?? 0;
      if (written === 0) break; // disabled after the read above: records nothing
    }
    if (written === 0) continue;
    recorded.set(target.id, drafts.length);
    for (const draft of drafts) types.set(draft.type, (types.get(draft.type) ?? 0) + 1);
    if (target.has_webhook && rows.some((r) => r.status === 'pending')) deliverable.push(target.id);
  }
  return { recorded, deliverable, types };
}
