import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { AppError, notFound } from '../../http/errors.js';
import { idempotent } from '../../http/idempotency.js';
import { idsBeforeBody, parseId } from '../../http/params.js';
import { envelope, errorResponses, IdempotencyKeyHeaders } from '../../http/schemas.js';
import { absentBodyIsEmpty, bodyValidation } from '../../http/validation.js';
import { createRules, NOT_AN_OBJECT } from '../bookings/bookings.input.js';
import { BookingObject } from '../bookings/bookings.schemas.js';
import { sendBooking } from '../bookings/bookings.routes.js';
import { brandIsSandbox } from '../integrations/integrations.sql.js';
import { PropertyDetail } from '../properties/properties.schemas.js';
import {
  ClockAnswer,
  HostEditAnswer,
  SandboxBlockBody,
  SandboxBookingBody,
  SandboxBookingParams,
  SandboxCancelBody,
  SandboxClockBody,
  SandboxPropertyParams,
  SandboxRateBody,
  SandboxRestrictionBody,
  SandboxUnblockBody,
} from './sandbox.schemas.js';
import {
  sandboxAdvanceClock,
  sandboxClock,
  sandboxArchive,
  sandboxBlock,
  sandboxHostBooking,
  sandboxHostCancel,
  sandboxRateOverride,
  sandboxRestrictionOverride,
  sandboxUnblock,
} from './sandbox.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Left out of the 405 answer's Allow list (app.ts), so a wrong method names nothing. */
    unlisted?: boolean;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => unknown;

/** Runs an onRequest hook written either way (callback or promise). */
function run(hook: Hook, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const result = hook(request, reply, (error) => (error ? reject(error) : resolve()));
    if (result instanceof Promise) result.then(() => resolve(), reject);
  });
}

export interface SandboxGateOptions {
  /** The integrations API's key check, counting nothing. */
  authenticate: Hook;
  /** The same check wrapped by the rate limiter (what every other partner route runs). */
  authenticateAndCount: Hook;
  /** What the service does for a request under the prefix that matches no route (counts the address). */
  countUnrouted: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

const hidden = new WeakSet<FastifyRequest>();

/** Whether the request reached a sandbox route it may not see (answered as an unknown path). */
export const isHiddenSandboxRequest = (request: FastifyRequest): boolean => hidden.has(request);

/**
 * Hooks of the sandbox scope. A request that is not from an active sandbox integration is answered
 * exactly as a path the service does not have, step by step: counted per address only when it
 * arrives (so the same rate-limit fields, and the same 429 over the limit), its body then read as
 * any body is (so malformed JSON, a wrong media type or an oversized body get the same 4xx), and
 * then 404 NOT_FOUND "No such endpoint." instead of the route. Nothing tells that the routes exist.
 */
export function sandboxGate(deps: Deps, options: SandboxGateOptions) {
  return {
    onRequest: sandboxOnly,
    preValidation: async (request: FastifyRequest): Promise<void> => {
      if (hidden.has(request)) throw notFound('No such endpoint.');
    },
  };

  async function sandboxOnly(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let authenticated = true;
    try {
      await run(options.authenticate, request, reply);
    } catch (error) {
      // A refused credential is hidden like the rest; anything else (the database away) is not.
      if (!(error instanceof AppError && (error.status === 401 || error.status === 403))) throw error;
      authenticated = false;
    }
    if (!authenticated || !(await brandIsSandbox(deps.db, request.integration.brandId))) {
      await options.countUnrouted(request, reply);
      hidden.add(request);
      return;
    }
    await run(options.authenticateAndCount, request, reply);
  }
}

/**
 * The test-helper routes under /sandbox (tag Sandbox). `config.unlisted` keeps them out of the
 * 405 answer for a wrong method, which would name them to any caller.
 */
export function registerSandboxRoutes(api: FastifyInstance, deps: Deps): void {
  const tags = ['Sandbox'];
  const config = { unlisted: true };
  const integrationOf = (request: FastifyRequest) => request.integration.id;
  const edit = (summary: string, description: string, body: object) => ({
    config,
    schema: {
      summary,
      description,
      tags,
      params: SandboxPropertyParams,
      body,
      response: { 200: envelope(HostEditAnswer), ...errorResponses(401, 403, 404, 422, 429) },
    },
  });
  const hostAction =
    'Acts as the host would through the staff API, so it records exactly the events that host action records (origin `doorloom`, to every integration covering the property).';

  api.post<{ Params: Static<typeof SandboxPropertyParams>; Body: Static<typeof SandboxBookingBody> }>(
    '/sandbox/properties/:property/bookings',
    {
      config,
      ...idempotent(deps),
      validatorCompiler: bodyValidation({ notAnObject: NOT_AN_OBJECT, rules: createRules({ maxStayNights: deps.config.maxStayNights }) }),
      schema: {
        summary: 'Sandbox: the host makes a booking on a covered property (requires Idempotency-Key)',
        description: `${hostAction} Records booking.changed and availability.changed for the held nights. Availability is checked as for any host booking (409 UNAVAILABLE).`,
        tags,
        params: SandboxPropertyParams,
        headers: IdempotencyKeyHeaders,
        body: SandboxBookingBody,
        response: { 201: envelope(BookingObject), ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      sendBooking(reply, 201, 'Host booking created.', await sandboxHostBooking(deps, integrationOf(request), request.params.property, request.body)),
  );

  api.post<{ Params: Static<typeof SandboxBookingParams>; Body: Static<typeof SandboxCancelBody> }>(
    '/sandbox/bookings/:id/cancel',
    {
      config,
      preValidation: [idsBeforeBody({ id: 'booking' }), absentBodyIsEmpty(true)],
      validatorCompiler: bodyValidation({ notAnObject: NOT_AN_OBJECT }),
      schema: {
        summary: 'Sandbox: the host cancels a booking on a covered property (idempotent)',
        description: `${hostAction} Records booking.changed and availability.changed for the freed nights; a booking already cancelled answers 200 unchanged and records nothing.`,
        tags,
        params: SandboxBookingParams,
        body: SandboxCancelBody,
        response: { 200: envelope(BookingObject), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request, reply) => {
      const { changed, booking } = await sandboxHostCancel(deps, integrationOf(request), parseId(request.params.id, 'booking'), request.body);
      return sendBooking(reply, 200, changed ? 'Booking cancelled by the host.' : 'The booking was already cancelled.', booking);
    },
  );

  api.post<{ Params: Static<typeof SandboxPropertyParams>; Body: Static<typeof SandboxBlockBody> }>(
    '/sandbox/properties/:property/block',
    edit('Sandbox: the host blocks nights', `${hostAction} Records availability.changed per calendar month touched.`, SandboxBlockBody),
    async (request, reply) => sendData(reply, 200, 'Nights blocked.', await sandboxBlock(deps, integrationOf(request), request.params.property, request.body)),
  );

  api.post<{ Params: Static<typeof SandboxPropertyParams>; Body: Static<typeof SandboxUnblockBody> }>(
    '/sandbox/properties/:property/unblock',
    edit(
      'Sandbox: the host lifts blocks (either scope) from nights',
      `${hostAction} Records availability.changed per calendar month touched.`,
      SandboxUnblockBody,
    ),
    async (request, reply) =>
      sendData(reply, 200, 'Nights unblocked.', await sandboxUnblock(deps, integrationOf(request), request.params.property, request.body)),
  );

  api.post<{ Params: Static<typeof SandboxPropertyParams>; Body: Static<typeof SandboxRateBody> }>(
    '/sandbox/properties/:property/rate-override',
    edit(
      'Sandbox: the host overrides the price of nights',
      `${hostAction} Records rates.changed per calendar month touched (source "override").`,
      SandboxRateBody,
    ),
    async (request, reply) =>
      sendData(reply, 200, 'Rates overridden.', await sandboxRateOverride(deps, integrationOf(request), request.params.property, request.body)),
  );

  api.post<{ Params: Static<typeof SandboxPropertyParams>; Body: Static<typeof SandboxRestrictionBody> }>(
    '/sandbox/properties/:property/restriction-override',
    edit(
      'Sandbox: the host sets restrictions of nights (min stay, stop sell, …)',
      `${hostAction} Records restrictions.changed per calendar month touched.`,
      SandboxRestrictionBody,
    ),
    async (request, reply) =>
      sendData(reply, 200, 'Restrictions overridden.', await sandboxRestrictionOverride(deps, integrationOf(request), request.params.property, request.body)),
  );

  api.post<{ Params: Static<typeof SandboxPropertyParams> }>(
    '/sandbox/properties/:property/archive',
    {
      config,
      schema: {
        summary: 'Sandbox: the host archives a covered property',
        description: `${hostAction} Records property.changed (status archived); archiving an archived property records nothing.`,
        tags,
        params: SandboxPropertyParams,
        response: { 200: envelope(PropertyDetail), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Property archived.', await sandboxArchive(deps, integrationOf(request), request.params.property)),
  );

  const brandClock =
    'The clock is the calling integration’s brand’s own: it drives that brand’s data (today for bookings and snapshots, the horizon and its roll, events’ created_at and retention, the 24-hour re-sync window, the delivery retry ladder, pause and probe). Rate limits, staff tokens, leases, idempotency records and webhook signature timestamps stay on the service clock, so receivers verify every delivery.';

  api.get(
    '/sandbox/clock',
    {
      config,
      schema: {
        summary: 'Sandbox: the brand’s clock',
        description: brandClock,
        tags,
        response: { 200: envelope(ClockAnswer), ...errorResponses(401, 403, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Brand clock.', sandboxClock(deps, request.integration.brandId)),
  );

  api.post<{ Body: Static<typeof SandboxClockBody> }>(
    '/sandbox/clock/advance',
    {
      config,
      schema: {
        summary: 'Sandbox: move the brand’s clock forward by whole days',
        description: `${brandClock} Forward only. The horizon roll and event retention that fell due run before the answer; deliveries and retries within about a second.`,
        tags,
        body: SandboxClockBody,
        response: { 200: envelope(ClockAnswer), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => sendData(reply, 200, 'Brand clock moved.', await sandboxAdvanceClock(deps, request.integration.brandId, request.body.days)),
  );
}
