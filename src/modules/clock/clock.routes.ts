import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { notFound } from '../../http/errors.js';
import { envelope, errorResponses } from '../../http/schemas.js';
import { formatTimestamp } from '../../lib/time.js';
import { advanceClockOffset, loadClockOffset } from './clock.sql.js';

const ClockBody = Type.Object({
  advance_seconds: Type.Integer({ minimum: 0, maximum: 10 * 366 * 86400, description: 'Seconds to move the service clock forward' }),
});

/** The staff test-clock endpoints (TEST_CLOCK=1 only; 404 otherwise). */
export function registerStaffClockRoutes(staff: FastifyInstance, deps: Deps): void {
  const tags = ['staff'];
  const ClockView = Type.Object({ now: Type.String(), offset_seconds: Type.Integer() });
  const clockView = () => ({ now: formatTimestamp(deps.clock.now()), offset_seconds: Math.round(deps.clock.offsetSeconds()) });
  const requireTestClock = async () => {
    if (!deps.config.testClock) throw notFound('No such endpoint.');
  };

  staff.get(
    '/clock',
    {
      onRequest: requireTestClock,
      schema: { summary: 'The service clock (TEST_CLOCK=1 only)', tags, response: { 200: envelope(ClockView), ...errorResponses(401, 403, 404) } },
    },
    async (_request, reply) => {
      deps.clock.setOffsetSeconds(await loadClockOffset(deps.db));
      return sendData(reply, 200, 'Service clock.', clockView());
    },
  );

  staff.post<{ Body: Static<typeof ClockBody> }>(
    '/clock',
    {
      onRequest: requireTestClock,
      schema: {
        summary: 'Move the service clock forward (TEST_CLOCK=1 only)',
        tags,
        body: ClockBody,
        response: { 200: envelope(ClockView), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      await advanceServiceClock(deps, request.body.advance_seconds);
      return sendData(reply, 200, 'Service clock moved.', clockView());
    },
  );
}

/** Moves the test clock forward (staff and the sandbox); work that fell due runs within about a second. */
export async function advanceServiceClock(deps: Deps, seconds: number): Promise<void> {
  deps.clock.setOffsetSeconds(await advanceClockOffset(deps.db, seconds));
  deps.signals.emit('clock');
}
