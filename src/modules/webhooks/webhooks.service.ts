import { dataClock } from '../../lib/clock.js';
import type { Deps } from '../../deps.js';
import { notFound, resumeOfDisabled } from '../../http/errors.js';
import { formatTimestamp, formatTimestampOrNull } from '../../lib/time.js';
import { findIntegration } from '../integrations/integrations.sql.js';
import { resumeDelivery } from './webhooks.outcomes.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { attemptLog, eventAttemptsNewestFirst, scheduledRetry } from './webhooks.sql.js';
import { wakeDelivery } from '../events/events.unit.js';

/**
 * Staff resume (decisions §9): a paused integration becomes active with its failures reset, and the
 * blocked event goes at once with a fresh ladder. On an active integration that is backing off it
 * cuts the wait short the same way. A disabled one is re-enabled by PATCH status, not here.
 */
export async function resumeWebhook(deps: Deps, integrationId: number): Promise<void> {
  const current = await findIntegration(deps.db, integrationId);
  if (!current) throw notFound('No such integration.');
  if (current.status === 'disabled') throw resumeOfDisabled();
  if (
    await unitOfWork(deps, (uow) =>
      resumeDelivery(uow, integrationId, { at: dataClock(deps.clock, 'deliveryRetries', { integrationId }).now(), from: ['active', 'paused'] }),
    )
  ) {
    deps.log.warn({ integrationId, slug: current.slug, wasPaused: current.status === 'paused' }, 'webhook delivery resumed by staff');
  }
  await wakeDelivery(deps, [integrationId]);
}

type AttemptLogRow = Awaited<ReturnType<typeof attemptLog>>[number];

/** One attempt as the staff API shows it (the attempt log, oldest or newest first). */
export function attemptView(r: AttemptLogRow) {
  return {
    id: r.id,
    attempted_at: formatTimestamp(r.attempted_at),
    event: { id: r.event_id, type: r.event_type, sequence: r.sequence },
    attempt: r.attempt,
    success: r.success,
    status_code: r.status_code,
    error: r.error,
    duration_ms: r.duration_ms,
    response_body: r.response_body,
    worker: r.worker,
  };
}

/** One page of the attempt log, oldest first after the attempt id `after`. */
export async function deliveryLog(deps: Deps, integrationId: number, after: number, limit: number) {
  if (!(await findIntegration(deps.db, integrationId))) throw notFound('No such integration.');
  const rows = await attemptLog(deps.db, integrationId, after, limit + 1);
  const page = rows.slice(0, limit);
  return {
    data: page.map(attemptView),
    cursor: { next_after: page.length > 0 ? page[page.length - 1].id : after, has_more: rows.length > limit },
  };
}

/**
 * GET /deliveries: the integration's own event attempts, newest first, paged by attempt id like
 * replay pages by sequence. `next_attempt_at` is set on the failed attempt whose retry is scheduled.
 */
export async function partnerDeliveries(deps: Deps, integrationId: number, before: number | null, limit: number) {
  const [rows, retry] = await Promise.all([eventAttemptsNewestFirst(deps.db, integrationId, before, limit + 1), scheduledRetry(deps.db, integrationId)]);
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => ({
      id: r.id,
      attempted_at: formatTimestamp(r.attempted_at),
      sequence: r.sequence!,
      type: r.event_type,
      event_id: r.event_id,
      attempt: r.attempt ?? 1,
      success: r.success,
      status_code: r.status_code,
      error: r.error,
      duration_ms: r.duration_ms,
      // An answer from a non-public address is the service's network's, not the partner's to read.
      response_body: r.private_answer ? null : r.response_body,
      next_attempt_at: retry && retry.attemptId === r.id ? formatTimestampOrNull(retry.at) : null,
    })),
    cursor: { next_before: page.length > 0 ? page[page.length - 1].id : before, has_more: rows.length > limit },
  };
}
