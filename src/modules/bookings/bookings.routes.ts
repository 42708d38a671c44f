import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData, sendJson } from '../../http/envelope.js';
import { completeWith, idempotent } from '../../http/idempotency.js';
import { idsBeforeBody, parseId } from '../../http/params.js';
import { envelope, errorResponses, IdempotencyKeyHeaders } from '../../http/schemas.js';
import { absentBodyIsEmpty, bodyRequired, bodyValidation } from '../../http/validation.js';
import { createRules, NOT_AN_OBJECT, updateRules } from './bookings.input.js';
import type { BookingView } from './bookings.payloads.js';
import {
  BookingObject,
  CancelBookingBody,
  CreateBookingBody,
  CreatedBooking,
  ExternalParams,
  HostCreateBookingBody,
  IdParams,
  IfMatchHeaders,
  ListBookingsQuery,
  Pagination,
  UpdateBookingBody,
  type CancelBookingInput,
  type CreateBookingInput,
  type HostCreateBookingInput,
  type ListBookingsQueryInput,
  type UpdateBookingInput,
} from './bookings.schemas.js';
import { cancelBooking, createBooking, getBooking, hostCreateBooking, listBookings, updateBooking } from './bookings.service.js';
import type { Viewer } from './bookings.sql.js';

/**
 * Bodies are validated once, by Fastify, against the route's schema plus the rules that compare
 * fields. A missing property reference is PROPERTY_NOT_MAPPED (the service's answer) rather than
 * a validation failure; on POST /bookings validation runs after the Idempotency-Key is claimed
 * (preValidation), so a 422 is a stored refusal too. PATCH takes no body as `{}`; cancel takes no
 * body or `null` as `{}`.
 */
const updateBody = bodyValidation({ notAnObject: NOT_AN_OBJECT, rules: updateRules });
const cancelBody = bodyValidation({ notAnObject: NOT_AN_OBJECT });

/** Reads and writes of one booking carry its revision as the ETag. */
export function sendBooking(reply: FastifyReply, status: number, message: string, booking: BookingView) {
  reply.header('etag', `"${booking.revision}"`);
  return sendData(reply, status, message, booking);
}

const ifMatchOf = (headers: Record<string, unknown>) => (typeof headers['if-match'] === 'string' ? headers['if-match'] : undefined);

type IdRoute = { Params: Static<typeof IdParams> };
type ExternalRoute = { Params: Static<typeof ExternalParams> };
type Update<Route> = Route & { Body: UpdateBookingInput };
type Cancel<Route> = Route & { Body: CancelBookingInput };

/** The partner's booking endpoints (contract: Booking reads, POST /bookings; decisions §3, §4). */
export function registerBookingRoutes(api: FastifyInstance, deps: Deps): void {
  const tags = ['bookings'];
  const viewerOf = (request: { integration: { id: number } }): Viewer => ({ integrationId: request.integration.id });
  const stayRules = { maxStayNights: deps.config.maxStayNights };

  api.post<{ Body: CreateBookingInput }>(
    '/bookings',
    {
      ...idempotent(deps),
      validatorCompiler: bodyValidation({ notAnObject: NOT_AN_OBJECT, answeredLater: ['property'], rules: createRules(stayRules) }),
      schema: {
        summary: 'Create a booking (requires Idempotency-Key)',
        tags,
        headers: IdempotencyKeyHeaders,
        body: CreateBookingBody,
        response: {
          201: envelope(CreatedBooking, 'Booking created'),
          200: envelope(CreatedBooking, 'A booking with this external_booking_id already exists (data.duplicate true)'),
          ...errorResponses(401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      // the idempotency record is completed by the booking's own transaction
      const answer = await createBooking(deps, request.integration.id, request.body, (trx, stored) => completeWith(request, trx, stored));
      // the revision to send back as If-Match, as every other answer of one booking carries it
      return sendJson(reply.header('etag', `"${answer.revision}"`), answer.status, answer.body);
    },
  );

  api.get<{ Querystring: ListBookingsQueryInput }>(
    '/bookings',
    {
      schema: {
        summary: 'List bookings, oldest change first',
        tags,
        querystring: ListBookingsQuery,
        response: {
          200: Type.Composite([envelope(Type.Array(BookingObject)), Type.Object({ pagination: Pagination })]),
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { data, pagination } = await listBookings(deps, request.integration.id, request.query);
      return sendData(reply, 200, 'Bookings retrieved.', data, { pagination });
    },
  );

  api.get<IdRoute>(
    '/bookings/:id',
    {
      schema: { summary: 'One booking by its id', tags, params: IdParams, response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 429) } },
    },
    async (request, reply) =>
      sendBooking(reply, 200, 'Booking retrieved.', await getBooking(deps, viewerOf(request), { id: parseId(request.params.id, 'booking') })),
  );

  api.get<ExternalRoute>(
    '/bookings/external/:external_booking_id',
    {
      schema: {
        summary: 'One booking by the partner’s external_booking_id (URL-encoded)',
        tags,
        params: ExternalParams,
        response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) =>
      sendBooking(reply, 200, 'Booking retrieved.', await getBooking(deps, viewerOf(request), { externalId: request.params.external_booking_id })),
  );

  const updateSchema = (params: typeof IdParams | typeof ExternalParams, summary: string) => ({
    summary,
    tags,
    params,
    headers: IfMatchHeaders,
    body: UpdateBookingBody,
    response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 409, 412, 422, 429) },
  });
  const cancelSchema = (params: typeof IdParams | typeof ExternalParams, summary: string) => ({
    summary,
    tags,
    params,
    headers: IfMatchHeaders,
    body: CancelBookingBody,
    response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 412, 422, 429) },
  });

  api.patch<Update<IdRoute>>(
    '/bookings/:id',
    {
      preValidation: [idsBeforeBody({ id: 'booking' }), bodyRequired],
      validatorCompiler: updateBody,
      schema: updateSchema(IdParams, 'Update a booking'),
    },
    async (request, reply) => {
      const { booking, changed } = await updateBooking(
        deps,
        viewerOf(request),
        { id: parseId(request.params.id, 'booking') },
        request.body,
        ifMatchOf(request.headers),
      );
      return sendBooking(reply, 200, changed ? 'Booking updated.' : 'Nothing to change.', booking);
    },
  );

  api.patch<Update<ExternalRoute>>(
    '/bookings/external/:external_booking_id',
    { preValidation: bodyRequired, validatorCompiler: updateBody, schema: updateSchema(ExternalParams, 'Update a booking by external_booking_id') },
    async (request, reply) => {
      const { booking, changed } = await updateBooking(
        deps,
        viewerOf(request),
        { externalId: request.params.external_booking_id },
        request.body,
        ifMatchOf(request.headers),
      );
      return sendBooking(reply, 200, changed ? 'Booking updated.' : 'Nothing to change.', booking);
    },
  );

  api.post<Cancel<IdRoute>>(
    '/bookings/:id/cancel',
    {
      preValidation: [idsBeforeBody({ id: 'booking' }), absentBodyIsEmpty(true)],
      validatorCompiler: cancelBody,
      schema: cancelSchema(IdParams, 'Cancel a booking (idempotent)'),
    },
    async (request, reply) => {
      const { booking, changed } = await cancelBooking(
        deps,
        viewerOf(request),
        { id: parseId(request.params.id, 'booking') },
        request.body,
        ifMatchOf(request.headers),
      );
      return sendBooking(reply, 200, changed ? 'Booking cancelled.' : 'The booking was already cancelled.', booking);
    },
  );

  api.post<Cancel<ExternalRoute>>(
    '/bookings/external/:external_booking_id/cancel',
    {
      preValidation: absentBodyIsEmpty(true),
      validatorCompiler: cancelBody,
      schema: cancelSchema(ExternalParams, 'Cancel a booking by external_booking_id (idempotent)'),
    },
    async (request, reply) => {
      const { booking, changed } = await cancelBooking(
        deps,
        viewerOf(request),
        { externalId: request.params.external_booking_id },
        request.body,
        ifMatchOf(request.headers),
      );
      return sendBooking(reply, 200, changed ? 'Booking cancelled.' : 'The booking was already cancelled.', booking);
    },
  );
}

/** Host bookings and host changes on the staff API (decisions §9): origin `doorloom` everywhere. */
export function registerStaffBookingRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];
  const host: Viewer = { host: true };

  staff.post<IdRoute & { Body: HostCreateBookingInput }>(
    '/properties/:id/bookings',
    {
      preValidation: idsBeforeBody({ id: 'property' }),
      validatorCompiler: bodyValidation({ notAnObject: NOT_AN_OBJECT, rules: createRules({ maxStayNights: deps.config.maxStayNights }) }),
      schema: {
        summary: 'Host makes a booking on a property',
        tags,
        params: IdParams,
        body: HostCreateBookingBody,
        response: { 201: envelope(BookingObject), ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => sendBooking(reply, 201, 'Booking created.', await hostCreateBooking(deps, parseId(request.params.id, 'property'), request.body)),
  );

  staff.get<IdRoute>(
    '/bookings/:id',
    { schema: { summary: 'Read a booking (host view)', tags, params: IdParams, response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => sendBooking(reply, 200, 'Booking retrieved.', await getBooking(deps, host, { id: parseId(request.params.id, 'booking') })),
  );

  staff.patch<Update<IdRoute>>(
    '/bookings/:id',
    {
      preValidation: [idsBeforeBody({ id: 'booking' }), bodyRequired],
      validatorCompiler: updateBody,
      schema: {
        summary: 'Host changes a booking (including completed and refunded)',
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: UpdateBookingBody,
        response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 409, 412, 422) },
      },
    },
    async (request, reply) => {
      const { booking, changed } = await updateBooking(deps, host, { id: parseId(request.params.id, 'booking') }, request.body, ifMatchOf(request.headers));
      return sendBooking(reply, 200, changed ? 'Booking updated.' : 'Nothing to change.', booking);
    },
  );

  staff.post<Cancel<IdRoute>>(
    '/bookings/:id/cancel',
    {
      preValidation: [idsBeforeBody({ id: 'booking' }), absentBodyIsEmpty(true)],
      validatorCompiler: cancelBody,
      schema: {
        summary: 'Host cancels a booking (idempotent)',
        tags,
        params: IdParams,
        headers: IfMatchHeaders,
        body: CancelBookingBody,
        response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 412, 422) },
      },
    },
    async (request, reply) => {
      const { booking, changed } = await cancelBooking(deps, host, { id: parseId(request.params.id, 'booking') }, request.body, ifMatchOf(request.headers));
      return sendBooking(reply, 200, changed ? 'Booking cancelled.' : 'The booking was already cancelled.', booking);
    },
  );
}
