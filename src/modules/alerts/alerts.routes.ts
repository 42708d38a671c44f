import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { Pagination } from '../console/console.schemas.js';
import { evaluateAlerts } from './alerts.evaluate.js';
import { AlertListQuery, AlertRow } from './alerts.schemas.js';

/** GET /api/staff/v1/alerts: what holds now, critical first, paged like the other staff listings. */
export function registerStaffAlertRoutes(staff: FastifyInstance, deps: Deps): void {
  staff.get<{ Querystring: Static<typeof AlertListQuery> }>(
    '/alerts',
    {
      schema: {
        summary: 'Alerts holding now: undelivered bookings past 15 and 30 minutes, paused integrations',
        description:
          'Evaluated on each request from the delivery state (no Prometheus needed). Ordered critical first, then the longest-standing. ' +
          'The same alerts, with `status` firing or resolved, are POSTed to ALERT_WEBHOOK_URL when they start and end.',
        tags: ['staff'],
        querystring: AlertListQuery,
        response: { 200: Type.Composite([envelope(Type.Array(AlertRow)), Type.Object({ pagination: Pagination })]), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? 50;
      // alerts number at most three per integration: evaluated whole, then paged
      const all = (await evaluateAlerts(deps)).filter(
        (a) =>
          (!request.query.severity || a.severity === request.query.severity) &&
          (!request.query.integration_id || a.integration.id === request.query.integration_id),
      );
      const data = all.slice((page - 1) * perPage, page * perPage);
      const pagination = { page, per_page: perPage, total: all.length, last_page: Math.max(1, Math.ceil(all.length / perPage)) };
      return sendData(reply, 200, 'Alerts retrieved.', data, { pagination });
    },
  );
}
