import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { parseId } from '../../http/params.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import {
  AttemptCursor,
  AttemptRow,
  BrandListQuery,
  BrandRow,
  DeliveryStats,
  EventCursor,
  EventListQuery,
  EventRow,
  IdParams,
  IntegrationListQuery,
  IntegrationRow,
  Pagination,
  PropertyListQuery,
  PropertyRow,
  RecentAttemptsQuery,
  StatsQuery,
} from './console.schemas.js';
import { deliveryStats, listBrands, listIntegrationEvents, listIntegrations, listRecentAttempts, listStaffProperties } from './console.staff.js';

const paged = <T extends object>(row: T) => Type.Composite([envelope(Type.Array(row as never)), Type.Object({ pagination: Pagination })]);
const cursored = <T extends object, C extends object>(row: T, cursor: C) =>
  Type.Composite([envelope(Type.Array(row as never)), Type.Object({ cursor: cursor as never })]);

/** Staff listings across brands and integrations, and the delivery figures the console charts. */
export function registerStaffListingRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];

  staff.get<{ Querystring: Static<typeof BrandListQuery> }>(
    '/brands',
    { schema: { summary: 'List brands', tags, querystring: BrandListQuery, response: { 200: paged(BrandRow), ...errorResponses(401, 403, 422) } } },
    async (request, reply) => {
      const { data, pagination } = await listBrands(deps, request.query);
      return sendData(reply, 200, 'Brands retrieved.', data, { pagination });
    },
  );

  staff.get<{ Querystring: Static<typeof IntegrationListQuery> }>(
    '/integrations',
    {
      schema: {
        summary: 'List integrations with their delivery health',
        tags,
        querystring: IntegrationListQuery,
        response: { 200: paged(IntegrationRow), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { data, pagination } = await listIntegrations(deps, request.query);
      return sendData(reply, 200, 'Integrations retrieved.', data, { pagination });
    },
  );

  staff.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof EventListQuery> }>(
    '/integrations/:id/events',
    {
      schema: {
        summary: "An integration's events with their delivery state, in sequence order",
        tags,
        params: IdParams,
        querystring: EventListQuery,
        response: { 200: cursored(EventRow, EventCursor), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { data, cursor } = await listIntegrationEvents(deps, parseId(request.params.id, 'integration'), request.query);
      return sendData(reply, 200, 'Events retrieved.', data, { cursor });
    },
  );

  staff.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof RecentAttemptsQuery> }>(
    '/integrations/:id/deliveries/recent',
    {
      schema: {
        summary: 'Webhook delivery attempts, newest first',
        tags,
        params: IdParams,
        querystring: RecentAttemptsQuery,
        response: { 200: cursored(AttemptRow, AttemptCursor), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { data, cursor } = await listRecentAttempts(deps, parseId(request.params.id, 'integration'), request.query);
      return sendData(reply, 200, 'Delivery attempts retrieved.', data, { cursor });
    },
  );

  staff.get<{ Params: Static<typeof IdParams>; Querystring: Static<typeof StatsQuery> }>(
    '/integrations/:id/delivery-stats',
    {
      schema: {
        summary: 'Delivery attempts per minute and the backlog over the last hours',
        tags,
        params: IdParams,
        querystring: StatsQuery,
        response: { 200: envelope(DeliveryStats), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Delivery statistics retrieved.', await deliveryStats(deps, parseId(request.params.id, 'integration'), request.query.hours ?? 24)),
  );

  staff.get<{ Querystring: Static<typeof PropertyListQuery> }>(
    '/properties',
    {
      schema: {
        summary: 'List properties of a brand or covered by an integration',
        tags,
        querystring: PropertyListQuery,
        response: { 200: paged(PropertyRow), ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { data, pagination } = await listStaffProperties(deps, request.query);
      return sendData(reply, 200, 'Properties retrieved.', data, { pagination });
    },
  );
}
