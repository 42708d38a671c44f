import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { idempotent } from '../../http/idempotency.js';
import { idsBeforeBody, parseId } from '../../http/params.js';
import { envelope, errorResponses, IdempotencyKeyHeaders } from '../../http/schemas.js';
import { absentBodyIsEmpty, bodyRequired, bodyValidation } from '../../http/validation.js';
import { bulkCreateRules, bulkUpdateEntryRules, bulkUpdateRules, createRules, hostUpdateRules, updateRules } from './properties.input.js';
import {
  BulkCreateBody,
  BulkResult,
  BulkUpdateBody,
  CoverageBody,
  CoverageParams,
  CreatePropertyBody,
  HostUpdatePropertyBody,
  IdParams,
  ListQuery,
  Pagination,
  PropertyBlock,
  PropertyDetail,
  PropertyList,
  PropertyParams,
  StaffPropertyView,
  UpdatePropertyBody,
  type BulkCreateInput,
  type BulkUpdateBodyInput,
  type CoverageInput,
  type CreatePropertyInput,
  type HostUpdatePropertyInput,
  type ListQueryInput,
  type UpdatePropertyInput,
} from './properties.schemas.js';
import { bulkCreate, bulkUpdate } from './properties.bulk.js';
import type { CalendarDrafts } from './properties.payloads.js';
import { coverProperty, uncoverProperty } from './properties.coverage.js';
import { archiveProperty, hostCreateProperty, hostUpdateProperty, staffPropertyView } from './properties.host.js';
import { createChecked, getProperty, listProperties, updateProperty, type Actor } from './properties.service.js';

/**
 * Bodies are validated once, by Fastify, against the route's schema plus the rules that compare
 * fields. On the create endpoints validation runs after the Idempotency-Key is claimed
 * (preValidation), so a 422 is a stored refusal too.
 */
const createBody = bodyValidation({ rules: createRules });
const updateBody = bodyValidation({ rules: updateRules });

const actorOf = (request: { integration: { id: number; brandId: number } }): Actor => ({
  integrationId: request.integration.id,
  brandId: request.integration.brandId,
});

/** The partner's property endpoints; `calendar` gives the calendar's events its writes record after their own. */
export function registerPropertyRoutes(api: FastifyInstance, deps: Deps, calendar: CalendarDrafts): void {
  const tags = ['properties'];

  api.get<{ Querystring: ListQueryInput }>(
    '/properties',
    {
      schema: {
        summary: 'List covered properties',
        tags,
        querystring: ListQuery,
        response: { 200: Type.Composite([envelope(PropertyList), Type.Object({ pagination: Pagination })]), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const { data, pagination } = await listProperties(deps, request.integration.id, request.query);
      return sendData(reply, 200, 'Properties retrieved.', data, { pagination });
    },
  );

  api.post<{ Body: CreatePropertyInput }>(
    '/properties',
    {
      ...idempotent(deps),
      validatorCompiler: createBody,
      schema: {
        summary: 'Create a property (requires Idempotency-Key)',
        tags,
        headers: IdempotencyKeyHeaders,
        body: CreatePropertyBody,
        response: { 201: envelope(PropertyBlock), ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => sendData(reply, 201, 'Property created.', await createChecked(deps, actorOf(request), request.body, calendar)),
  );

  api.post<{ Body: BulkCreateInput }>(
    '/properties/bulk',
    {
      ...idempotent(deps),
      validatorCompiler: bodyValidation({ batch: { field: 'properties', entryRules: createRules }, rules: bulkCreateRules }),
      schema: {
        summary: 'Create up to 25 properties (requires Idempotency-Key)',
        tags,
        headers: IdempotencyKeyHeaders,
        body: BulkCreateBody,
        response: { 201: envelope(BulkResult), 200: envelope(BulkResult), ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => {
      const { allCreated, data } = await bulkCreate(deps, actorOf(request), request.body, calendar);
      return allCreated ? sendData(reply, 201, 'Properties created.', data) : sendData(reply, 200, 'Batch processed; some properties were not created.', data);
    },
  );

  api.put<{ Body: BulkUpdateBodyInput }>(
    '/properties/bulk',
    {
      validatorCompiler: bodyValidation({ batch: { field: 'properties', entryRules: bulkUpdateEntryRules }, rules: bulkUpdateRules }),
      schema: {
        summary: 'Update up to 25 properties',
        tags,
        body: BulkUpdateBody,
        response: { 200: envelope(BulkResult), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Batch processed.', await bulkUpdate(deps, actorOf(request), request.body, calendar)),
  );

  api.get<{ Params: Static<typeof PropertyParams> }>(
    '/properties/:property',
    {
      schema: {
        summary: 'One covered property (the Property block with its input groups)',
        tags,
        params: PropertyParams,
        response: { 200: envelope(PropertyDetail), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Property retrieved.', await getProperty(deps, request.integration.id, request.params.property)),
  );

  api.put<{ Params: Static<typeof PropertyParams>; Body: UpdatePropertyInput }>(
    '/properties/:property',
    {
      preValidation: bodyRequired,
      validatorCompiler: updateBody,
      schema: {
        summary: 'Update a property (present groups applied, absent ones untouched)',
        tags,
        params: PropertyParams,
        body: UpdatePropertyBody,
        response: { 200: envelope(PropertyBlock), ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Property updated.', await updateProperty(deps, actorOf(request), request.params.property, request.body, calendar)),
  );
}

/** Host actions and coverage on the staff API (decisions §9). */
export function registerStaffPropertyRoutes(staff: FastifyInstance, deps: Deps, calendar: CalendarDrafts): void {
  const tags = ['staff'];

  staff.post<{ Params: Static<typeof IdParams>; Body: CreatePropertyInput }>(
    '/brands/:id/properties',
    {
      preValidation: idsBeforeBody({ id: 'brand' }),
      validatorCompiler: createBody,
      schema: {
        summary: 'Host creates a property (covered by no integration yet)',
        tags,
        params: IdParams,
        body: CreatePropertyBody,
        response: { 201: envelope(StaffPropertyView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => sendData(reply, 201, 'Property created.', await hostCreateProperty(deps, parseId(request.params.id, 'brand'), request.body)),
  );

  staff.get<{ Params: Static<typeof IdParams> }>(
    '/properties/:id',
    {
      schema: {
        summary: 'Read a property (host view)',
        tags,
        params: IdParams,
        response: { 200: envelope(StaffPropertyView), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Property retrieved.', await staffPropertyView(deps, parseId(request.params.id, 'property'))),
  );

  staff.patch<{ Params: Static<typeof IdParams>; Body: HostUpdatePropertyInput }>(
    '/properties/:id',
    {
      preValidation: [idsBeforeBody({ id: 'property' }), bodyRequired],
      validatorCompiler: bodyValidation({ rules: hostUpdateRules }),
      schema: {
        summary: 'Host edits a property (address, occupancy, prices, …)',
        tags,
        params: IdParams,
        body: HostUpdatePropertyBody,
        response: { 200: envelope(StaffPropertyView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) =>
      sendData(reply, 200, 'Property updated.', await hostUpdateProperty(deps, parseId(request.params.id, 'property'), request.body, calendar)),
  );

  staff.post<{ Params: Static<typeof IdParams> }>(
    '/properties/:id/archive',
    {
      schema: { summary: 'Host archives a property', tags, params: IdParams, response: { 200: envelope(StaffPropertyView), ...errorResponses(401, 403, 404) } },
    },
    async (request, reply) => sendData(reply, 200, 'Property archived.', await archiveProperty(deps, parseId(request.params.id, 'property'))),
  );

  const CoverageView = Type.Object({
    integration_id: Type.Integer(),
    property_id: Type.Integer(),
    external_id: Type.Union([Type.String(), Type.Null()]),
    coverage: Type.String(),
  });

  staff.put<{ Params: Static<typeof CoverageParams>; Body: CoverageInput }>(
    '/integrations/:id/coverage/:property_id',
    {
      // The body is optional (no body: cover without a mapping).
      preValidation: [idsBeforeBody({ id: 'integration', property_id: 'property' }), absentBodyIsEmpty()],
      validatorCompiler: bodyValidation(),
      schema: {
        summary: 'Cover a property of the integration’s brand (sends it the initial state)',
        tags,
        params: CoverageParams,
        body: CoverageBody,
        response: { 201: envelope(CoverageView), 200: envelope(CoverageView), ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const { created, data } = await coverProperty(
        deps,
        parseId(request.params.id, 'integration'),
        parseId(request.params.property_id, 'property'),
        request.body,
        calendar,
      );
      return sendData(reply, created ? 201 : 200, created ? 'Property covered.' : 'Property already covered.', data);
    },
  );

  staff.delete<{ Params: Static<typeof CoverageParams> }>(
    '/integrations/:id/coverage/:property_id',
    {
      schema: {
        summary: 'Stop covering a property',
        tags,
        params: CoverageParams,
        response: {
          200: envelope(Type.Object({ integration_id: Type.Integer(), property_id: Type.Integer(), coverage: Type.String() })),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request, reply) =>
      sendData(
        reply,
        200,
        'Coverage removed.',
        await uncoverProperty(deps, parseId(request.params.id, 'integration'), parseId(request.params.property_id, 'property')),
      ),
  );
}
