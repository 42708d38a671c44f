import type { FastifyRequest } from 'fastify';
import { notFound } from './errors.js';

/** A numeric path id; anything else names nothing, so it answers 404 like a missing record. */
export function parseId(value: unknown, what = 'record'): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value)) throw notFound(`No such ${what}.`);
  const n = Number(value);
  if (n > 2147483647) throw notFound(`No such ${what}.`);
  return n;
}

/**
 * Checks a route's numeric path ids before its body is validated: a malformed id names nothing,
 * so it answers 404 whatever the body holds. `names` maps each path parameter to what it names.
 */
export function idsBeforeBody(names: Record<string, string>) {
  return async (request: FastifyRequest): Promise<void> => {
    const params = request.params as Record<string, unknown>;
    for (const [param, what] of Object.entries(names)) parseId(params[param], what);
  };
}
