import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { formatTimestamp, formatTimestampOrNull } from '../../lib/time.js';
import { findIntegration } from '../integrations/integrations.sql.js';
import { attemptView } from '../webhooks/webhooks.service.js';
import { selectDeliveryStates } from '../webhooks/webhooks.sql.js';
import { selectBrandPage, selectIntegrationPage, type IntegrationFilters } from '../integrations/integrations.listing.sql.js';
import { countCoverageByIntegration, countPropertiesByBrand, selectStaffPropertyPage } from '../properties/properties.listing.sql.js';
import {
  attemptsPerMinute,
  backlogByIntegration,
  backlogMovements,
  eventDeliveryPage,
  lastAttemptsOf,
  recentAttempts,
  type DeliveryStatus,
} from '../webhooks/webhooks.stats.sql.js';

/**
 * The staff API's read-only views over every integration: what the console (and any operator's
 * script) lists, filters and charts. Each figure comes from the module that owns it.
 */

interface PageQuery {
  page?: number;
  per_page?: number;
}

function paging(query: PageQuery) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

const pagination = (page: number, perPage: number, total: number) => ({ page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) });

async function requireIntegration(deps: Deps, id: number) {
  const row = await findIntegration(deps.db, id);
  if (!row) throw notFound('No such integration.');
  return row;
}

export async function listBrands(deps: Deps, query: PageQuery & { q?: string }) {
  const p = paging(query);
  const { rows, total } = await selectBrandPage(deps.db, { q: query.q ?? null, limit: p.limit, offset: p.offset });
  const properties = await countPropertiesByBrand(
    deps.db,
    rows.map((r) => r.id),
  );
  return {
    data: rows.map((r) => ({
      id: r.id,
      name: r.name,
      plan: { active: r.plan_active },
      sandbox: r.sandbox,
      integrations: Number(r.integrations ?? 0),
      properties: properties.get(r.id) ?? 0,
      created_at: formatTimestamp(r.created_at),
    })),
    pagination: pagination(p.page, p.perPage, total),
  };
}

export async function listIntegrations(
  deps: Deps,
  query: PageQuery & { status?: IntegrationFilters['status']; paused?: boolean; brand_id?: number; q?: string },
) {
  const p = paging(query);
  const filters: IntegrationFilters = { status: query.status ?? null, paused: query.paused ?? null, brandId: query.brand_id ?? null, q: query.q ?? null };
  const { rows, total } = await selectIntegrationPage(deps.db, filters, p);
  const ids = rows.map((r) => r.id);
  const [backlog, states, covered] = await Promise.all([
    backlogByIntegration(deps.db, ids),
    selectDeliveryStates(deps.db, ids),
    countCoverageByIntegration(deps.db, ids),
  ]);
  const now = deps.clock.nowMs();
  return {
    data: rows.map((r) => {
      const b = backlog.get(r.id);
      const s = states.get(r.id);
      return {
        id: r.id,
        slug: r.slug,
        name: r.name,
        brand: { id: r.brand_id, name: r.brand_name },
        status: r.status,
        paused_at: formatTimestampOrNull(s?.paused_at ?? null),
        paused_reason: s?.paused_reason ?? null,
        webhook_url: r.webhook_url,
        consecutive_failures: s?.consecutive_failures ?? 0,
        last_success_at: formatTimestampOrNull(s?.last_success_at ?? null),
        last_failure_at: formatTimestampOrNull(s?.last_failure_at ?? null),
        next_attempt_at: formatTimestampOrNull(s?.next_attempt_at ?? null),
        last_sequence: r.last_sequence,
        undelivered_events: b?.undelivered ?? 0,
        oldest_undelivered_at: formatTimestampOrNull(b?.oldestAt ?? null),
        oldest_undelivered_age_seconds: b?.oldestAt ? Math.max(0, Math.floor((now - b.oldestAt.getTime()) / 1000)) : null,
        covered_properties: covered.get(r.id) ?? 0,
        created_at: formatTimestamp(r.created_at),
      };
    }),
    pagination: pagination(p.page, p.perPage, total),
  };
}

export async function listIntegrationEvents(
  deps: Deps,
  integrationId: number,
  query: { after_sequence?: number; limit?: number; delivery_status?: DeliveryStatus },
) {
  await requireIntegration(deps, integrationId);
  const afterSequence = query.after_sequence ?? 0;
  const { rows, hasMore } = await eventDeliveryPage(deps.db, integrationId, {
    afterSequence,
    limit: query.limit ?? 100,
    status: query.delivery_status ?? null,
  });
  const last = await lastAttemptsOf(
    deps.db,
    integrationId,
    rows.filter((r) => r.delivery_status === 'pending' && r.attempts > 0).map((r) => r.id),
  );
  return {
    data: rows.map((r) => {
      const attempt = last.get(r.id);
      return {
        sequence: r.sequence,
        id: r.id,
        type: r.type,
        origin: r.origin,
        property_id: r.property_id,
        window: r.window_from && r.window_to ? { from: r.window_from, to: r.window_to } : null,
        created_at: formatTimestamp(r.created_at),
        delivery: {
          status: r.delivery_status,
          attempts: r.attempts,
          delivered_at: formatTimestampOrNull(r.delivered_at),
          last_attempt: attempt ? { attempted_at: formatTimestamp(attempt.attempted_at), status_code: attempt.status_code, error: attempt.error } : null,
        },
      };
    }),
    cursor: { next_after_sequence: rows.length > 0 ? rows[rows.length - 1].sequence : afterSequence, has_more: hasMore },
  };
}

export async function listStaffProperties(deps: Deps, query: PageQuery & { integration_id?: number; brand_id?: number }) {
  const p = paging(query);
  const { rows, total } = await selectStaffPropertyPage(deps.db, { integrationId: query.integration_id ?? null, brandId: query.brand_id ?? null }, p);
  return {
    data: rows.map((r) => ({
      id: r.id,
      brand_id: r.brand_id,
      name: r.name,
      status: r.status,
      city: r.city,
      external_id: r.external_id,
      covering_integrations: Number(r.covering_integrations ?? 0),
      created_at: formatTimestamp(r.created_at),
      updated_at: formatTimestamp(r.updated_at),
    })),
    pagination: pagination(p.page, p.perPage, total),
  };
}

export async function listRecentAttempts(deps: Deps, integrationId: number, query: { before?: number; limit?: number }) {
  await requireIntegration(deps, integrationId);
  const limit = query.limit ?? 50;
  const rows = await recentAttempts(deps.db, integrationId, query.before ?? null, limit + 1);
  const page = rows.slice(0, limit);
  return {
    data: page.map(attemptView),
    cursor: { next_before: page.length > 0 ? page[page.length - 1].id : null, has_more: rows.length > limit },
  };
}

const MINUTE_MS = 60_000;

/**
 * Attempts per minute and the backlog at the end of each minute, over the last `hours` hours of
 * the service clock, as columns (what a chart plots directly). The backlog curve is rebuilt from
 * the event log (recorded and delivered times), so it needs no sampling loop and covers any past
 * window the log still holds.
 */
export async function deliveryStats(deps: Deps, integrationId: number, hours: number) {
  await requireIntegration(deps, integrationId);
  const lastMinute = Math.floor(deps.clock.nowMs() / MINUTE_MS);
  const firstMinute = lastMinute - hours * 60 + 1;
  const from = new Date(firstMinute * MINUTE_MS);
  const to = new Date((lastMinute + 1) * MINUTE_MS);
  const [attempts, movements] = await Promise.all([attemptsPerMinute(deps.db, integrationId, from, to), backlogMovements(deps.db, integrationId, from, to)]);
  const byMinute = new Map(attempts.map((a) => [a.minute, a]));
  const minuteStarts: number[] = [];
  const success: number[] = [];
  const failure: number[] = [];
  const backlog: number[] = [];
  let level = movements.atStart;
  for (let m = firstMinute; m <= lastMinute; m++) {
    const a = byMinute.get(m);
    minuteStarts.push(m * 60);
    success.push(a?.success ?? 0);
    failure.push(a?.failure ?? 0);
    level += (movements.recorded.get(m) ?? 0) - (movements.delivered.get(m) ?? 0);
    backlog.push(Math.max(0, level));
  }
  return { from: formatTimestamp(from), to: formatTimestamp(to), step_seconds: 60, minute_starts: minuteStarts, success, failure, backlog };
}
