import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError, fail } from './errors.js';
import { sha256Hex } from '../lib/secrets.js';
import { recordVerified, verifiedLately } from './staff-lockout.js';
import type { AuthHook } from './rate-limit.js';
import { addressBucket, rateLimited, usage, windowOf, type Tier } from './rate-limit.tiers.js';

/** The staff API's limits: the failed-authentication lockout and the per-address call limit. */

/** Credentials this runtime authenticated a moment ago (Deps.state.knownStaffCredentials): hash → until (ms). */
export type KnownCredentials = Map<string, number>;
const KNOWN_MS = 10 * 60_000;
const KNOWN_MAX = 1_000;

function lockedOut(limit: number, retryAfter: number): AppError {
  return fail(
    'RATE_LIMITED',
    `Too many failed authentications from this address: at most ${limit} a minute. Retry after ${retryAfter} seconds.`,
    { retry_after: retryAfter },
    { 'retry-after': String(retryAfter) },
  );
}

/** A failed authentication is a presented credential that names nothing (a guess): a 401 to a request that carried one. */
const isGuess = (error: unknown, request: FastifyRequest) => error instanceof AppError && error.status === 401 && request.headers.authorization !== undefined;

/**
 * Runs one staff authentication (`evaluate`, which throws a 401 AppError for a wrong credential)
 * under the lockout of the request's source address (`staff-auth-failures`, bucketed by addressBucket):
 *
 * - an address at STAFF_AUTH_FAILURE_LIMIT failures in the window is locked out until the window
 *   ends. A credential that verified from that address within the last 24 hours
 *   (staff-lockout.ts) is still evaluated, so a guesser cannot lock the address's staff out; any
 *   other credential gets 429 without being evaluated, the right one included, so the lockout still
 *   slows guessing and the status tells a guesser nothing;
 * - a credential not authenticated by this runtime lately is counted as a failure before it is
 *   evaluated, and the count is given back when it turns out right (or not a guess: an integration
 *   key, 403). So a burst of concurrent guesses gets exactly the remaining allowance evaluated and the
 *   rest refused, wherever the counts live (PostgreSQL: shared by every process);
 * - a credential authenticated lately (known good) is evaluated without the advance count, so a
 *   staff script's parallel calls do not use up the allowance; if it fails now (revoked), it counts.
 *
 * Used by the staff API, /metrics (METRICS_TOKEN included) and the partner API for staff-shaped
 * bearers. Without rate limits (RATE_LIMITS=off) it only evaluates.
 */
export async function staffAttempt(deps: Deps, request: FastifyRequest, evaluate: () => Promise<void>): Promise<void> {
  if (!deps.config.rateLimits) return evaluate();
  const limit = deps.config.staffAuthFailureLimit;
  const store = deps.state.rateCounters;
  const { window, resetSeconds } = windowOf(deps);
  const address = addressBucket(request.ip);
  const bucket = `staff-fail:${address}`;
  const header = request.headers.authorization;
  const credential = typeof header === 'string' ? sha256Hex(header) : null;
  const known = deps.state.knownStaffCredentials;
  const knownUntil = credential === null ? undefined : known.get(credential);

  /** Evaluates without the advance count; a wrong credential counts as a failure. */
  const evaluateCounted = async () => {
    try {
      await evaluate();
    } catch (error) {
      if (!isGuess(error, request)) throw error;
      if (credential !== null) known.delete(credential);
      const [failed] = await store.hit(window, [bucket]);
      if (failed > limit) throw lockedOut(limit, resetSeconds);
      throw error;
    }
    if (credential !== null) await recordVerified(deps, address, credential);
  };
  /** The address is locked out: only a credential that verified from it lately is evaluated. */
  const whileLockedOut = async () => {
    if (credential === null || !(await verifiedLately(deps, address, credential))) throw lockedOut(limit, resetSeconds);
    await evaluateCounted();
  };

  // An address this process already knows to be locked out costs no count (a flood of guesses).
  if (store.seen(window, bucket) >= limit) return whileLockedOut();

  if (credential === null || (knownUntil !== undefined && knownUntil > deps.clock.nowMs())) {
    if ((await store.read(window, bucket)) >= limit) return whileLockedOut();
    return evaluateCounted();
  }

  // Counted before it is evaluated.
  const [attempt] = await store.hit(window, [bucket]);
  if (attempt > limit) {
    await store.release(window, bucket);
    return whileLockedOut();
  }
  try {
    await evaluate();
  } catch (error) {
    if (!isGuess(error, request)) await store.release(window, bucket);
    throw error;
  }
  await store.release(window, bucket);
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(credential, deps.clock.nowMs() + KNOWN_MS);
  await recordVerified(deps, address, credential);
}

/**
 * Wraps the staff API's authentication hook with its two limits per source address (bucketed by
 * addressBucket), in the same windows and counters as the integrations API: every call counts against
 * `staff-ip` (STAFF_RATE_LIMIT, 600 a minute by default), refused ones included, before the token
 * is looked at; and the authentication runs under the failure lockout (staffAttempt).
 *
 * Refusals are 429 `RATE_LIMITED` with Retry-After (seconds to the window's end).
 */
export function guardStaff(deps: Deps, authenticate: AuthHook): AuthHook {
  if (!deps.config.rateLimits) return authenticate;
  const overall: Tier = { name: 'staff-ip', limit: deps.config.staffRateLimit, covers: 'staff API calls from one source address' };
  return async function rateLimitedStaffAuthentication(request, reply) {
    const store = deps.state.rateCounters;
    const { window, resetSeconds } = windowOf(deps);
    const address = addressBucket(request.ip);
    const [count] = await store.hit(window, [`staff-ip:${address}`]);
    // No X-RateLimit fields here: those are the integrations API's contract; a 429 says Retry-After.
    if (usage(overall, count).exceeded) throw rateLimited(overall, resetSeconds);
    await staffAttempt(deps, request, () => authenticate(request, reply));
  };
}
