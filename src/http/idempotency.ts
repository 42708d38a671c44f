import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { StatementBatcher } from '../db/batcher.js';
import type { DB } from '../db/schema.js';
import type { IdempotencyKeysTable } from './http.tables.js';
import type { Deps } from '../deps.js';
import { randomToken } from '../lib/ids.js';
import { JSON_TYPE } from './envelope.js';
import { fail } from './errors.js';
import type { UnitOfWork } from '../db/unit-of-work.js';

/**
 * Idempotency of the create endpoints (decisions §8), one mechanism for all of them:
 *
 *   api.post('/bookings', { ...idempotent(deps), schema }, handler)
 *
 * `preValidation` checks the `Idempotency-Key`, then claims it by inserting the record (the primary
 * key conflicts for any other request with that key, in any process sharing the database) or
 * answers from the record: a replay of the stored response, 409 IN_PROGRESS, or 422
 * IDEMPOTENCY_KEY_REUSED. `onSend` stores whatever the claimed request answered, refusals
 * included, byte for byte; a 5xx releases the key so that the client's retry runs again.
 *
 * It runs before body validation on purpose: a 422 VALIDATION_FAILED is a stored refusal too, so
 * a corrected body needs a new key (the contract's retry guidance).
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-progress record older than this was left by a crashed request and may be taken over. */
export const IDEMPOTENCY_TAKEOVER_MS = 60 * 1000;
/** 8 to 128 visible ASCII characters. */
const KEY_RE = /^[\x21-\x7e]{8,128}$/;

interface Claim {
  integrationId: number;
  key: string;
  token: string;
}

/** A request's claim, and whether the transaction of its change stored its answer (completeWith). */
interface RequestClaim extends Claim {
  storedWithChange: boolean;
}

/** Requests that hold a claim; onSend stores their answer. */
const claims = new WeakMap<FastifyRequest, RequestClaim>();

/** JSON with object keys sorted at every depth (array order kept): key order is irrelevant. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 over method, path and the key-sorted JSON body. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body ?? null)}`, 'utf8')
    .digest('hex');
}

function requestPath(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export type ClaimOutcome = { kind: 'claimed'; token: string } | { kind: 'replay'; status: number; contentType: string; body: string };

const inProgress = () => fail('IN_PROGRESS', 'A request with this Idempotency-Key is still being processed. Retry in a few seconds.');

/**
 * Claims `key` for this request or says how to answer instead. Every step is one statement that
 * either wins or observes the winner, so concurrent requests (and processes) agree.
 */
export async function claimIdempotencyKey(
  db: Kysely<DB>,
  statements: IdempotencyStatements,
  input: { integrationId: number; key: string; method: string; path: string; fingerprint: string; nowMs: number },
): Promise<ClaimOutcome> {
  const now = new Date(input.nowMs);
  const fresh = (token: string) => ({
    fingerprint: input.fingerprint,
    request_method: input.method,
    request_path: input.path,
    state: 'in_progress' as const,
    claim_token: token,
    claimed_at: now,
    created_at: now,
    expires_at: new Date(input.nowMs + IDEMPOTENCY_TTL_MS),
    response_status: null,
    response_content_type: null,
    response_body: null,
  });

  // A few rounds at most: each lost race means another request changed the record just now.
  for (let round = 0; round < 4; round++) {
    const token = randomToken('', 24);
    if (await statements.insert.run({ integration_id: input.integrationId, key: input.key, ...fresh(token) })) return { kind: 'claimed', token };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('integration_id', '=', input.integrationId)
      .where('key', '=', input.key)
      .executeTakeFirst();
    if (!row) continue; // released by a failed request in between

    if (row.expires_at.getTime() <= input.nowMs) {
      // Forgotten after 24 hours: the key starts over, whatever it was used for.
      const replaced = await db
        .updateTable('idempotency_keys')
        .set(fresh(token))
        .where('integration_id', '=', input.integrationId)
        .where('key', '=', input.key)
        .where('claim_token', '=', row.claim_token)
        .returning('key')
        .executeTakeFirst();
      if (replaced) return { kind: 'claimed', token };
      continue;
    }

    if (row.fingerprint !== input.fingerprint) {
      throw fail('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request. Use a new key for a new request.');
    }
    if (row.state === 'completed') {
      return { kind: 'replay', status: row.response_status!, contentType: row.response_content_type!, body: row.response_body! };
    }
    if (input.nowMs - row.claimed_at.getTime() < IDEMPOTENCY_TAKEOVER_MS) throw inProgress();

    // Left in progress by a request that crashed: take it over (compare-and-swap on the token).
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ claim_token: token, claimed_at: now })
      .where('integration_id', '=', input.integrationId)
      .where('key', '=', input.key)
      .where('claim_token', '=', row.claim_token)
      .where('state', '=', 'in_progress')
      .returning('key')
      .executeTakeFirst();
    if (taken) return { kind: 'claimed', token };
  }
  throw inProgress();
}

/** Stores the claimed request's answer; a no-op when the claim was taken over meanwhile. */
export async function completeIdempotencyKey(
  statements: IdempotencyStatements,
  claim: Claim,
  response: { status: number; contentType: string; body: string },
): Promise<void> {
  await statements.complete.run({ ...claim, ...response });
}

type NewRecord = Insertable<IdempotencyKeysTable> & { integration_id: number; key: string };
type Completion = Claim & { status: number; contentType: string; body: string };

const recordKey = (r: { integration_id: number; key: string }) => `${r.integration_id}\n${r.key}`;
const byRecordKey = <T extends { integration_id: number; key: string }>(a: T, b: T) =>
  a.integration_id - b.integration_id || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * Claims and completions run through StatementBatcher: the requests that arrive while one such
 * statement runs share the next. Rows go in key order, the same in every process, so concurrent
 * statements cannot deadlock on each other.
 */
export function createIdempotencyStatements(db: Kysely<DB>) {
  return {
    /** Inserts new records; true for each one inserted (false: the key exists). */
    insert: new StatementBatcher<NewRecord, boolean>(async (records) => {
      // A key twice in one batch: the first is inserted, the second finds it, as one statement later.
      const first = new Map<string, NewRecord>();
      for (const r of records) if (!first.has(recordKey(r))) first.set(recordKey(r), r);
      const inserted = await db
        .insertInto('idempotency_keys')
        .values([...first.values()].sort(byRecordKey))
        .onConflict((oc) => oc.columns(['integration_id', 'key']).doNothing())
        .returning(['integration_id', 'key'])
        .execute();
      const won = new Set(inserted.map(recordKey));
      return records.map((r) => first.get(recordKey(r)) === r && won.has(recordKey(r)));
    }),
    complete: new StatementBatcher<Completion, void>(async (items) => {
      await completionQuery(items).execute(db);
      return items.map(() => undefined);
    }),
  };
}

/** Completes the records of `items` (each still held by its claim's token) with their answers. */
function completionQuery(items: Completion[]): RawBuilder<unknown> {
  const rows = items.map((c) => ({ integration_id: c.integrationId, key: c.key, c })).sort(byRecordKey);
  const values = sql.join(
    rows.map(({ c }) => sql`(${c.integrationId}::int, ${c.key}::text, ${c.token}::text, ${c.status}::int, ${c.contentType}::text, ${c.body}::text)`),
  );
  return sql`
    update idempotency_keys k
    set state = 'completed', response_status = v.status, response_content_type = v.content_type, response_body = v.body
    from (values ${values}) as v(integration_id, key, token, status, content_type, body)
    where k.integration_id = v.integration_id and k.key = v.key and k.claim_token = v.token
  `;
}

/**
 * Stores `request`'s answer in the transaction that makes the request's change (a booking create
 * does), so that the record is completed by the same commit as the change; onSend then stores
 * nothing. It must be the transaction's last statement: after it only the commit can fail, and a
 * failed commit is answered 5xx, which releases the key as for any other 5xx. A no-op when the
 * request holds no claim.
 */
export async function completeWith(request: FastifyRequest, uow: UnitOfWork, answer: { status: number; body: string }): Promise<void> {
  const claim = claims.get(request);
  if (!claim) return;
  const { integrationId, key, token } = claim;
  // Sent ahead: it goes out with the unit of work's COMMIT, and fails it if it fails.
  uow.send(completionQuery([{ integrationId, key, token, status: answer.status, contentType: JSON_TYPE, body: answer.body }]));
  claim.storedWithChange = true;
}

/** The batched claim and completion statements of one runtime (Deps.state.idempotency). */
export type IdempotencyStatements = ReturnType<typeof createIdempotencyStatements>;

/** Forgets a claim (the request failed on our side; the client's retry should run again). */
export async function releaseIdempotencyKey(db: Kysely<DB>, claim: Claim): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('integration_id', '=', claim.integrationId)
    .where('key', '=', claim.key)
    .where('claim_token', '=', claim.token)
    .execute();
}

/** Deletes records past their 24 hours (a replaced key would be overwritten anyway; this bounds the table). */
export async function purgeExpiredIdempotencyKeys(db: Kysely<DB>, nowMs: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', new Date(nowMs)).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}

/**
 * The route hooks that make a create endpoint idempotent. Spread them into the route options of an
 * integrations-API route (they need `request.integration`).
 */
export function idempotent(deps: Deps) {
  return {
    async preValidation(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const header = request.headers['idempotency-key'];
      const key = typeof header === 'string' ? header : undefined;
      if (key === undefined || !KEY_RE.test(key)) {
        throw fail('IDEMPOTENCY_KEY_REQUIRED', 'Send an Idempotency-Key header of 8 to 128 visible ASCII characters, unique per create attempt.');
      }
      const integrationId = request.integration.id;
      const path = requestPath(request);
      const outcome = await claimIdempotencyKey(deps.db, deps.state.idempotency, {
        integrationId,
        key,
        method: request.method,
        path,
        fingerprint: requestFingerprint(request.method, path, request.body),
        nowMs: deps.clock.nowMs(),
      });
      if (outcome.kind === 'claimed') {
        claims.set(request, { integrationId, key, token: outcome.token, storedWithChange: false });
        return undefined;
      }
      // A string payload with its Content-Type set goes out as these exact bytes.
      return reply.code(outcome.status).header('content-type', outcome.contentType).header('idempotent-replayed', 'true').send(outcome.body);
    },

    async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const claim = claims.get(request);
      if (!claim) return payload;
      claims.delete(request);
      try {
        if (reply.statusCode >= 500) {
          await releaseIdempotencyKey(deps.db, claim);
        } else if (!claim.storedWithChange) {
          // Serialized, a payload is a string or a Buffer (no create answers with a stream).
          const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
          const contentType = String(reply.getHeader('content-type') ?? JSON_TYPE);
          const { integrationId, key, token } = claim;
          await completeIdempotencyKey(deps.state.idempotency, { integrationId, key, token }, { status: reply.statusCode, contentType, body });
        }
      } catch (error) {
        // The answer itself stands; the record stays in progress and is taken over after 60 s.
        request.log.error({ err: error }, 'could not store the idempotent response');
      }
      return payload;
    },
  };
}
