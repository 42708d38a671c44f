import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { dailyJobs } from './jobs.daily.js';
import type { Deps } from '../../deps.js';
import { sendData } from '../../http/envelope.js';
import { notFound } from '../../http/errors.js';
import { envelope, errorResponses } from '../../http/schemas.js';

const Params = Type.Object({ name: Type.String({ description: 'inactive-sweep, retention or horizon-roll' }) });

/** Staff: run a daily job now (it still runs on its own once a day). */
export function registerStaffJobRoutes(staff: FastifyInstance, deps: Deps): void {
  staff.post<{ Params: Static<typeof Params> }>(
    '/jobs/:name/run',
    {
      schema: {
        summary: 'Run a background job now',
        tags: ['staff'],
        params: Params,
        response: { 200: envelope(Type.Object({ job: Type.String(), result: Type.Unknown() })), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const job = dailyJobs.find((j) => j.name === request.params.name);
      if (!job) throw notFound('No such job.');
      const result = await job.run(deps);
      return sendData(reply, 200, 'Job ran.', { job: job.name, result: result ?? null });
    },
  );
}
