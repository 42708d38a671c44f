import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { authenticateStaff, bearerToken } from '../integrations/integrations.auth.js';
import { sendFailure } from '../../http/envelope.js';
import { AppError, fail } from '../../http/errors.js';
import { guardStaff } from '../../http/rate-limit.staff.js';
import { digestsEqual, sha256Hex } from '../../lib/secrets.js';

/**
 * GET /metrics (Prometheus text format) and the hook that counts every answered request. Readable
 * with a staff token or METRICS_TOKEN, so that Prometheus needs no staff power.
 */
export function registerMetrics(app: FastifyInstance, deps: Deps): void {
  const metrics = deps.metrics;
  if (!metrics) return;

  // A callback hook, not an async one: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // the route template, never the raw path: label values stay bounded
    metrics.httpRequest(request.routeOptions.url ?? null, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const metricsTokenHash = deps.config.metricsToken ? sha256Hex(deps.config.metricsToken) : null;
  const staff = authenticateStaff(deps);
  // METRICS_TOKEN is judged like a staff token: under the staff API's rate limits and failure lockout.
  const authenticate = guardStaff(deps, async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerToken(request);
    if (metricsTokenHash && token && digestsEqual(sha256Hex(token), metricsTokenHash)) return;
    try {
      await staff(request, reply);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) {
        throw fail('UNAUTHENTICATED', 'A staff token or the METRICS_TOKEN is required: send Authorization: Bearer <token>.');
      }
      throw error;
    }
  });

  app.get('/metrics', { schema: { hide: true }, onRequest: authenticate }, async (request, reply) => {
    let text: string;
    try {
      text = await metrics.text();
    } catch (error) {
      request.log.warn({ err: error }, 'metrics could not be gathered');
      return sendFailure(reply, 'METRICS_UNAVAILABLE', 'The metrics could not be gathered. Retry later.');
    }
    return reply.code(200).header('cache-control', 'no-store').type(metrics.contentType).send(text);
  });
}
