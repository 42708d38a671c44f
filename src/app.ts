import swagger from '@fastify/swagger';
import { lazyRequestLogger } from './http/request-logger.js';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { proxyTrust } from './config.js';
import type { Deps } from './deps.js';
import { integrationAuth, staffAuth } from './modules/integrations/integrations.auth.js';
import { checkJsonShape, clientErrorHandler, frameworkErrors, nulCharactersIn, refuseNulInUrl } from './http/caps.js';
import { sendError, sendFailure } from './http/envelope.js';
import { finishOpenApi } from './http/openapi-finish.js';
import { isDatabaseUnavailable } from './db/database.js';
import { AppError, databaseUnavailable, validationFailed, type ErrorCode } from './http/errors.js';
import { installRateLimit } from './http/rate-limit.js';
import { toFieldErrors, validatorCompiler } from './http/validation.js';
import { registerStaffIntegrationRoutes } from './modules/integrations/integrations.routes.js';
import { registerAccountRoutes, registerStaffAccountRoutes } from './modules/accounts/accounts.routes.js';
import { registerStaffClockRoutes } from './modules/clock/clock.routes.js';
import { probeClockRow } from './modules/clock/clock.sql.js';
import { registerStaffJobRoutes } from './modules/jobs/jobs.routes.js';
import { registerPropertyRoutes, registerStaffPropertyRoutes } from './modules/properties/properties.routes.js';
import { registerCalendarRoutes, registerStaffCalendarRoutes } from './modules/calendar/calendar.routes.js';
import { calendarEventDrafts, calendarSettings } from './modules/calendar/calendar.payloads.js';
import type { CalendarDrafts } from './modules/properties/properties.payloads.js';
import { registerEventRoutes } from './modules/events/events.routes.js';
import { registerSyncRoutes } from './modules/sync/sync.routes.js';
import { registerDeliveryRoutes, registerStaffWebhookRoutes } from './modules/webhooks/webhooks.routes.js';
import { eventDeliveryColumns } from './modules/webhooks/webhooks.sql.js';
import { registerBookingRoutes, registerStaffBookingRoutes } from './modules/bookings/bookings.routes.js';
import { registerStaffListingRoutes } from './modules/console/console.routes.js';
import { registerConsole } from './modules/console/console.assets.js';
import { registerStaffAlertRoutes } from './modules/alerts/alerts.routes.js';
import { registerMetrics } from './modules/metrics/metrics.routes.js';
import { isHiddenSandboxRequest, registerSandboxRoutes, sandboxGate } from './modules/sandbox/sandbox.routes.js';

export const API_PREFIX = '/api/integrations/v1';
export const STAFF_PREFIX = '/api/staff/v1';
export const BODY_LIMIT = 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
let requestCounter = 0;

export interface BuildOptions {
  /** The process's pino logger; without one, requests are not logged (tests). */
  logger?: FastifyBaseLogger;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** From now on /healthz and /readyz answer 503 and every answer closes its connection (the SIGTERM drain). */
    beginDrain(): void;
  }
}

/** Client errors of a status the table has a code for, refused by Fastify or a plugin; any other is BAD_REQUEST (400). */
const CLIENT_REFUSALS: Partial<Record<number, [ErrorCode, string]>> = {
  412: ['PRECONDITION_FAILED', 'A precondition of the request (If-Match, If-Unmodified-Since) does not hold.'],
  416: ['RANGE_NOT_SATISFIABLE', 'The requested range cannot be served.'],
};

const shuttingDown = (reply: FastifyReply) => sendFailure(reply, 'SHUTTING_DOWN', 'This node is shutting down; retry on another.');

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  // Set once the limiter is installed: router-level refusals are counted and carry its fields too.
  // eslint-disable-next-line prefer-const -- Fastify's options below read it before the limiter exists.
  let countUnrouted: ((request: FastifyRequest, reply: FastifyReply) => Promise<void>) | undefined;
  const requestTimeout = deps.config.requestTimeoutMs;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger, childLoggerFactory: lazyRequestLogger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    // A request (headers and body) must arrive whole within REQUEST_TIMEOUT_SECONDS, its headers
    // within 10 s of that; a stalled client is answered 408 REQUEST_TIMEOUT (clientErrorHandler)
    // and disconnected. Node checks the bounds every connectionsCheckingInterval.
    requestTimeout,
    http: {
      headersTimeout: Math.min(requestTimeout, 10_000),
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestTimeout / 4))),
    },
    // An idle keep-alive connection is closed after this (above common load balancers' 60 s).
    keepAliveTimeout: 72_000,
    // On close (after the drain): a request still arriving on an open connection is served, with
    // Connection: close, rather than refused with a 503 outside the envelope; idle connections are closed.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    // request.ip (rate limits, the staff lockout, request logs) is the X-Forwarded-For address
    // only when the peer is a proxy listed in TRUST_PROXY; otherwise the peer's own address.
    trustProxy: deps.config.trustProxy.length > 0 ? proxyTrust(deps.config.trustProxy) : false,
    genReqId(req) {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req-${process.pid}-${(++requestCounter).toString(36)}`;
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Refusals before routing (oversized headers, malformed HTTP or paths) answer in the envelope too.
    clientErrorHandler,
    frameworkErrors: (error, request, reply) => frameworkErrors(error, request, reply, countUnrouted),
    ajv: { customOptions: { allErrors: true } },
  });

  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the wire for OpenAPI; serialising with them would silently drop
  // fields they do not list, so answers are plain JSON.stringify.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // JSON only. An empty body is "no body" (POST /sync and cancel take optional bodies).
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    const refused = checkJsonShape(body as string); // too deep or too many values: refused before parsing
    if (refused) return done(refused, undefined);
    // With a callback the parser returns nothing to wait for.
    void parseJson(req, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const nul = nulCharactersIn(body as string, value); // text PostgreSQL cannot store
      return nul ? done(nul, undefined) : done(null, value);
    });
  });
  if (deps.config.trustProxy.length === 0) warnOfUntrustedForwarding(app, deps);
  // NUL in a path or query parameter: before any route's own hooks (an Idempotency-Key is not claimed).
  app.addHook('preValidation', refuseNulInUrl);

  // Draining (SIGTERM) or closing: health checks answer 503 so a proxy takes the node out, and an
  // answer sent from now on closes its connection, so keep-alive clients move elsewhere rather than
  // hold the server open (requests already in flight still get their answer).
  let draining = false;
  app.decorate('beginDrain', () => {
    draining = true;
  });
  app.addHook('preClose', async () => {
    draining = true;
  });
  // Every answer names its request (set here rather than in an onRequest hook of its own: one
  // hook less on every request, and onSend runs for every answer, errors included).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });

  // Before the API scope: its onRoute hook classifies the API's routes into rate tiers.
  const rateLimiter = installRateLimit(app, deps, API_PREFIX);
  countUnrouted = rateLimiter.countUnrouted;

  installErrorHandling(app);
  registerMetrics(app, deps);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Doorloom Partner Integration API',
        version: '2026-09',
        description: 'Partner API under /api/integrations/v1 and the platform staff API under /api/staff/v1.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    // Named components, every status and header, webhooks: see openapi-finish.ts.
    transformObject: (document) => finishOpenApi(('openapiObject' in document ? document.openapiObject : document.swaggerObject) as never) as never,
  });
  // The human-readable reference (Swagger UI), from the same document, in a scope of its own so
  // that its headers reach every /docs answer and nothing else.
  await app.register(async (docs) => {
    // Same origin as the console, whose staff token sits in sessionStorage: no framing, no foreign code.
    docs.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      done(null, payload);
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: { deepLinking: true, tryItOutEnabled: false },
      staticCSP: true,
      transformStaticCSP: docsCsp,
    });
    docs.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });
  registerConsole(app);
  // The process's own health only: with the database away the node stays in the proxy's pool and
  // its clients get the service's 503 DATABASE_UNAVAILABLE rather than the proxy's page.
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    if (draining) return shuttingDown(reply);
    return { success: true, message: 'OK', data: { status: 'ok' } };
  });
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    if (draining) return shuttingDown(reply);
    try {
      await probeClockRow(deps.db);
      return { success: true, message: 'Ready', data: { status: 'ready', database: deps.engine } };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) request.log.error({ err: error }, 'readiness check failed');
      return sendFailure(reply.header('retry-after', '5'), 'NOT_READY', 'The database is not answering.');
    }
  });

  // The calendar's events of a property's create, coverage and unit or price changes (properties sits below the calendar).
  const calendarDrafts: CalendarDrafts = (trx, propertyId, kinds, windows, target) =>
    calendarEventDrafts(trx, propertyId, kinds, windows, target, calendarSettings(deps.config));
  await app.register(
    async (api) => {
      api.addHook('onRequest', rateLimiter.guard(integrationAuth(deps)));
      registerAccountRoutes(api, deps);
      registerPropertyRoutes(api, deps, calendarDrafts);
      registerCalendarRoutes(api, deps);
      registerEventRoutes(api, deps, eventDeliveryColumns);
      registerSyncRoutes(api, deps);
      registerBookingRoutes(api, deps);
      registerDeliveryRoutes(api, deps);
    },
    { prefix: API_PREFIX },
  );

  // The sandbox's test helpers: to anyone but a sandbox brand's integration, an unknown path.
  await app.register(
    async (sandbox) => {
      const authenticate = integrationAuth(deps);
      const gate = sandboxGate(deps, { authenticate, authenticateAndCount: rateLimiter.guard(authenticate), countUnrouted: rateLimiter.countUnrouted });
      sandbox.addHook('onRequest', gate.onRequest);
      // Before the routes' own preValidation hooks (an Idempotency-Key is not claimed for a hidden route).
      sandbox.addHook('preValidation', gate.preValidation);
      registerSandboxRoutes(sandbox, deps);
    },
    { prefix: API_PREFIX },
  );

  await app.register(
    async (staff) => {
      staff.addHook('onRequest', staffAuth(deps));
      registerStaffIntegrationRoutes(staff, deps);
      registerStaffAccountRoutes(staff, deps);
      registerStaffClockRoutes(staff, deps);
      registerStaffJobRoutes(staff, deps);
      registerStaffPropertyRoutes(staff, deps, calendarDrafts);
      registerStaffCalendarRoutes(staff, deps);
      registerStaffWebhookRoutes(staff, deps);
      registerStaffBookingRoutes(staff, deps);
      registerStaffListingRoutes(staff, deps);
      registerStaffAlertRoutes(staff, deps);
    },
    { prefix: STAFF_PREFIX },
  );

  return app;
}

/**
 * Swagger UI's own strict policy (its scripts by hash, no inline handlers), never framed; without
 * upgrade-insecure-requests, which would break the page where the service is reached over plain HTTP.
 * Each directive keeps only keywords, hashes and `data:` (the icons inlined in its stylesheet):
 * no host and no scheme, so the page loads nothing that the service does not serve itself.
 */
export function docsCsp(header: string): string {
  const kept = header
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && !/^(frame-ancestors|upgrade-insecure-requests)\b/.test(directive))
    .map((directive) => {
      const [name, ...sources] = directive.split(/\s+/);
      return [name, ...sources.filter((source) => /^'[^']+'$/.test(source) || source === 'data:')].join(' ');
    });
  return [...kept, "frame-ancestors 'none'"].join('; ');
}

/** At most one warning a minute (real time) about X-Forwarded-For while no proxy is trusted. */
const FORWARDING_WARNING_MS = 60_000;

/**
 * Behind a proxy with TRUST_PROXY unset, every client shares the proxy's address: one lockout and
 * one rate-limit bucket for all. The header shows it; the warning says so, once a minute.
 */
function warnOfUntrustedForwarding(app: FastifyInstance, deps: Deps): void {
  let lastWarning = -Infinity;
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['x-forwarded-for'] !== undefined) {
      const now = performance.now();
      if (now - lastWarning >= FORWARDING_WARNING_MS) {
        lastWarning = now;
        deps.log.warn(
          { peer: request.ip },
          'a request carries X-Forwarded-For but TRUST_PROXY is unset: every client behind the proxy shares its address (rate limits, staff lockout); set TRUST_PROXY to the proxy addresses',
        );
      }
    }
    done();
  });
}

/** Every failure, expected or not, leaves in the contract's envelope; 5xx never say why. */
function installErrorHandling(app: FastifyInstance): void {
  // Known paths, so that a wrong method answers 405 rather than 404.
  const known = FindMyWay<HTTPVersion.V1>();
  app.addHook('onRoute', (route) => {
    // An unlisted route (the sandbox's) must not be named by a 405 to callers who may not use it.
    if (route.config?.unlisted) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        known.on(method as 'GET', route.url, () => {});
      } catch {
        // the same method and path registered twice (e.g. a HEAD twin); nothing to record
      }
    }
  });

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => m !== request.method && known.find(m as 'GET', path));
    if (allowed.length > 0) {
      return sendFailure(reply.header('allow', allowed.join(', ')), 'METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allowed.join(', ')}.`);
    }
    return sendFailure(reply, 'NOT_FOUND', 'No such endpoint.');
  });

  app.setErrorHandler(async (error: FastifyError | AppError, request, reply) => {
    if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      error = databaseUnavailable();
    }
    if (error instanceof AppError) return sendError(reply, error);
    if (error.validation) return sendError(reply, validationFailed(toFieldErrors(error.validation as never)));
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendFailure(reply, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        // An unknown path reads no body of another media type: a hidden route must not either.
        if (isHiddenSandboxRequest(request)) return sendFailure(reply, 'NOT_FOUND', 'No such endpoint.');
        return sendFailure(reply, 'UNSUPPORTED_MEDIA_TYPE', 'Send request bodies as Content-Type: application/json.');
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendFailure(reply, 'INVALID_JSON', 'The request body is not valid JSON.');
    }
    const status = error.statusCode ?? 500;
    // any other client error Fastify or a plugin refuses (a Content-Length that does not match the
    // body, a conditional or ranged request for a static file of the docs)
    if (status >= 400 && status < 500) {
      const [code, message] = CLIENT_REFUSALS[status] ?? ['BAD_REQUEST', 'The request could not be understood.'];
      return sendFailure(reply, code, message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendFailure(reply, 'INTERNAL_ERROR', 'Something went wrong on our side. Retry later.');
  });
}
