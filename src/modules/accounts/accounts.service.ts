import type { Selectable } from 'kysely';
import type { Deps } from '../../deps.js';
import type { DB } from '../../db/schema.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { notFound, validationFailed } from '../../http/errors.js';
import { API_VERSION } from '../../lib/contract.js';
import { formatTimestampOrNull } from '../../lib/time.js';
import { isUniqueViolation } from '../../lib/unique-violation.js';
import { forgetIntegration } from '../integrations/integrations.auth.js';
import {
  insertIntegration,
  newIntegrationSlug,
  reloadBrandClocks,
  slugTaken,
  updateIntegrationRow,
  type CreateIntegrationInput,
  type UpdateIntegrationInput,
  type WebhookInput,
} from '../integrations/integrations.service.js';
import { findIntegration, loadIntegrationWithFigures, type FigureSources } from '../integrations/integrations.sql.js';
import type { IntegrationsTable } from '../integrations/integrations.tables.js';
import { wakeDelivery } from '../events/events.unit.js';
import { coverageSource } from '../properties/properties.sql.js';
import { resumeDelivery } from '../webhooks/webhooks.outcomes.js';
import { resumeWebhook } from '../webhooks/webhooks.service.js';
import { deliveryStateSource, insertDeliveryState, pendingHead } from '../webhooks/webhooks.sql.js';
import { targetPolicy, webhookUrlProblem } from '../webhooks/webhooks.url.js';

/*
 * An integration as a whole: its record (integrations), its delivery state (webhooks) and its
 * coverage (properties). Integrations sits below the other two, so what needs all three (GET /me,
 * the staff view, an integration's create and change) is composed here.
 */

type IntegrationRow = Selectable<IntegrationsTable>;

/**
 * GET /me is what partners poll, and its figures (the integration, its brand, its events and its
 * coverage) change far less often than it is read. So the view is kept per integration until this
 * process writes one of those tables (each writer notes it in TableChanges after its commit). Other
 * processes sharing PostgreSQL (WORKERS above 1, other nodes) write unseen here: with PostgreSQL
 * an entry also expires after VIEW_SHARED_MS. The embedded engine has a single process.
 */
const VIEW_TABLES: (keyof DB)[] = ['integrations', 'brands', 'events', 'coverage', 'webhook_delivery_state'];
export const VIEW_SHARED_MS = 1000;
const VIEW_CACHE_MAX = 10_000;
type View = ReturnType<typeof buildView>;

/** Integration views by id, with the write version they were read at (one per app: registerAccountRoutes). */
export type IntegrationViewCache = Map<number, { version: number; until: number; view: View }>;

const figureSources = (db: Deps['db']): FigureSources => ({ delivery: deliveryStateSource(db), coverage: coverageSource(db) });

/** The Integration resource of GET /me. */
export async function integrationView(deps: Deps, cache: IntegrationViewCache, integrationId: number): Promise<View> {
  const { changes } = deps.state;
  const version = changes.version(VIEW_TABLES);
  const now = deps.clock.nowMs();
  const hit = cache.get(integrationId);
  if (hit && hit.version === version && hit.until > now) return hit.view;
  const view = await loadView(deps, integrationId);
  // Kept only if nothing was written while it was read (it may predate that write).
  if (changes.version(VIEW_TABLES) === version) {
    if (cache.size >= VIEW_CACHE_MAX) cache.clear();
    cache.set(integrationId, { version, until: deps.engine === 'postgres' ? now + VIEW_SHARED_MS : Infinity, view });
  }
  return view;
}

async function loadView(deps: Deps, integrationId: number) {
  const loaded = await loadIntegrationWithFigures(deps.db, figureSources(deps.db), integrationId);
  if (!loaded) throw notFound('No such integration.');
  return buildView(loaded.integration, loaded.figures);
}

/** The staff view: the /me shape plus the delivery queue's head. */
export async function staffIntegrationView(deps: Deps, integrationId: number) {
  const loaded = await loadIntegrationWithFigures(deps.db, figureSources(deps.db), integrationId);
  if (!loaded) throw notFound('No such integration.');
  const { integration: row, figures } = loaded;
  const head = await pendingHead(deps.db, integrationId, figures.cursor);
  return {
    ...buildView(row, figures),
    delivery: {
      cursor_sequence: head ? head.sequence - 1 : row.last_sequence,
      next_attempt_at: formatTimestampOrNull(figures.delivery.next_attempt_at),
      attempts: head?.attempts ?? 0,
    },
  };
}

type Figures = NonNullable<Awaited<ReturnType<typeof loadIntegrationWithFigures>>>['figures'];

function buildView(row: IntegrationRow, figures: Figures) {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    brand: { id: row.brand_id, name: figures.brandName },
    api_version: API_VERSION,
    webhook: {
      configured: row.webhook_url !== null,
      url: row.webhook_url,
      event_types: row.webhook_event_types,
      timeout_seconds: row.webhook_timeout_seconds,
      last_sequence: row.last_sequence,
      undelivered_events: figures.undelivered,
      consecutive_failures: figures.delivery.consecutive_failures,
      last_success_at: formatTimestampOrNull(figures.delivery.last_success_at),
      last_failure_at: formatTimestampOrNull(figures.delivery.last_failure_at),
      paused_at: formatTimestampOrNull(figures.delivery.paused_at),
      paused_reason: figures.delivery.paused_reason,
    },
    horizon_days: row.horizon_days,
    covered_properties: figures.covered,
  };
}

/** A webhook URL staff set is refused (422) when webhooks' SSRF policy under this configuration refuses it. */
function checkWebhook(deps: Deps, webhook: WebhookInput | undefined): void {
  if (webhook?.url == null) return;
  const problem = webhookUrlProblem(webhook.url, targetPolicy(deps.config));
  if (problem) throw validationFailed({ 'webhook.url': [problem] });
}

/** Staff POST /integrations: the integration and its delivery state, made together. */
export async function createIntegration(deps: Deps, input: CreateIntegrationInput) {
  checkWebhook(deps, input.webhook);
  const slug = await newIntegrationSlug(deps, input);
  let created;
  try {
    created = await deps.db.transaction().execute(async (trx) => {
      const inserted = await insertIntegration(deps, trx, input, slug);
      await insertDeliveryState(trx, inserted.id);
      return inserted;
    });
  } catch (error) {
    // two creates racing for the same derived slug
    if (isUniqueViolation(error)) throw slugTaken(slug);
    throw error;
  }
  // An integration of a brand whose clock runs ahead reads that clock from its first request.
  if (deps.clock.brandOffsetSeconds(input.brand_id) !== 0) await reloadBrandClocks(deps);
  return { integration: await staffIntegrationView(deps, created.id), api_key: created.apiKey, webhook_secret: created.webhookSecret };
}

/** Staff PATCH /integrations/{id}; re-enabling starts delivery afresh from the queue's head. */
export async function updateIntegration(deps: Deps, integrationId: number, input: UpdateIntegrationInput) {
  checkWebhook(deps, input.webhook);
  const current = await findIntegration(deps.db, integrationId);
  if (!current) throw notFound('No such integration.');
  const now = deps.clock.now();
  await unitOfWork(deps, async (trx) => {
    updateIntegrationRow(trx, integrationId, input, now);
    if (input.status === 'active' && current.status !== 'active') {
      await resumeDelivery(trx, integrationId, { at: now, from: ['paused', 'disabled'] });
    }
  });
  if (input.status !== undefined && input.status !== current.status) await forgetIntegration(deps, integrationId);
  await wakeDelivery(deps, [integrationId]);
  return staffIntegrationView(deps, integrationId);
}

/** Staff resume of webhook delivery, answered with the staff view. */
export async function resumeIntegrationWebhook(deps: Deps, integrationId: number) {
  await resumeWebhook(deps, integrationId);
  return staffIntegrationView(deps, integrationId);
}
