import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { failureBody, sendError, sendFailure } from './envelope.js';
import { AppError, ERROR_STATUS, fail, notFound, validationFailed, type ErrorCode } from './errors.js';

/**
 * Generic request caps, before any module sees a request. Per-field caps (units per property,
 * id lengths, page sizes, …) belong to each module's schemas.
 *
 * A body of at most 1 MiB can still be built to be expensive: nested a hundred thousand levels
 * deep (recursive code downstream overflows the stack), or holding hundreds of thousands of values
 * (every one an error object under all-errors validation; `uniqueItems` is quadratic). The largest
 * legitimate body (a bulk update of 25 properties with 50 units each) nests 5 levels and holds
 * about 10,000 values; its longest array is 500 entries (`property_ids` of a sync).
 */
export const MAX_JSON_DEPTH = 32;
export const MAX_ARRAY_ENTRIES = 1000;
export const MAX_JSON_VALUES = 20_000;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;

/**
 * One pass over the text, before JSON.parse: refuses what nests too deep or holds too much, so such
 * a body costs a scan and never becomes objects. Malformed text is left for JSON.parse to refuse.
 */
export function checkJsonShape(text: string): AppError | null {
  // per open container: 1 for an array (then its entries so far), 0 for an object
  const isArray = new Uint8Array(MAX_JSON_DEPTH + 1);
  const entries = new Uint32Array(MAX_JSON_DEPTH + 1);
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === MAX_JSON_DEPTH) {
        return fail('INVALID_JSON', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
      }
      depth++;
      isArray[depth] = c === OPEN_ARRAY ? 1 : 0;
      entries[depth] = 1;
      values++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      values++;
      if (isArray[depth] === 1 && ++entries[depth] > MAX_ARRAY_ENTRIES) {
        return fail('PAYLOAD_TOO_LARGE', `An array in the request body has more than ${MAX_ARRAY_ENTRIES} entries.`);
      }
    } else {
      continue;
    }
    if (values > MAX_JSON_VALUES) {
      return fail('PAYLOAD_TOO_LARGE', `The request body holds more than ${MAX_JSON_VALUES} values.`);
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// NUL characters

/**
 * PostgreSQL text cannot hold U+0000: a NUL that reached a query would fail it (a 500). JSON can
 * only carry one as the escape `\u0000` inside a string, so only bodies whose text has that escape
 * are walked; every string (or key) holding one is refused on its dotted path.
 */
const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

export function nulCharactersIn(text: string, value: unknown): AppError | null {
  if (!text.includes('\\u0000')) return null;
  const errors: Record<string, string[]> = {};
  const walk = (node: unknown, path: string) => {
    if (Object.keys(errors).length >= 20) return;
    if (typeof node === 'string') {
      if (node.includes(NUL)) errors[path || 'body'] = [NUL_MESSAGE];
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, path ? `${path}.${i}` : String(i)));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        const at = path ? `${path}.${key}` : key;
        if (key.includes(NUL)) errors[at.replaceAll(NUL, '') || 'body'] = [`has a key that ${NUL_MESSAGE}`];
        else walk(item, at);
      }
    }
  };
  walk(value, '');
  return Object.keys(errors).length > 0 ? validationFailed(errors) : null;
}

/**
 * preValidation hook: a NUL in a path parameter names nothing (404, like any unknown id); one in
 * a query parameter the route takes is a 422 on that parameter (unknown parameters are ignored,
 * NUL or not).
 */
export function refuseNulInUrl(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  // Node's HTTP parser refuses a raw NUL in the request line, so one arrives only as %00: a URL
  // without it needs no look at its parameters (a callback hook: no promise per request).
  if (!request.url.includes('%00')) return done();
  try {
    refuseNulInParameters(request);
    done();
  } catch (error) {
    done(error as Error);
  }
}

function refuseNulInParameters(request: FastifyRequest): void {
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (Object.values(params).some((v) => typeof v === 'string' && v.includes(NUL))) throw notFound('Not found.');
  const known = (request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (known && !(name in known)) continue;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes(NUL))) errors[name || 'query'] = [NUL_MESSAGE];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request line and headers are larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers and request line over
 * 16 KiB, malformed HTTP, a body that does not arrive) still answer in the envelope, then close.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? ['BAD_REQUEST', 'The request is not well-formed HTTP.'];
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(failureBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Router-level refusals (a malformed percent-encoding in the path, an over-long path segment) in the
 * envelope. No hook runs for them, so `count` (the rate limiter's, for paths under the API prefix)
 * is called here: such requests count and answer the X-RateLimit fields like any other.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
  count?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
): void {
  reply.header('x-request-id', request.id);
  if (!count) return answerFrameworkError(error, reply);
  count(request, reply).then(
    () => answerFrameworkError(error, reply),
    (refusal: unknown) => {
      if (!(refusal instanceof AppError)) return answerFrameworkError(error, reply);
      void sendError(reply, refusal);
    },
  );
}

function answerFrameworkError(error: FastifyError, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendFailure(reply, 'URI_TOO_LONG', 'A path segment of the request is too long.');
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    void sendFailure(reply, 'BAD_REQUEST', 'The request path is not valid (malformed percent-encoding).');
    return;
  }
  void sendFailure(reply, 'INTERNAL_ERROR', 'Something went wrong on our side. Retry later.');
}
