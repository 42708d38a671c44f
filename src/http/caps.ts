import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { failureBody } from './envelope.js';
import { AppError } from './errors.js';

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
        return new AppError(400, 'INVALID_JSON', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
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
        return new AppError(413, 'PAYLOAD_TOO_LARGE', `An array in the request body has more than ${MAX_ARRAY_ENTRIES} entries.`);
      }
    } else {
      continue;
    }
    if (values > MAX_JSON_VALUES) {
      return new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body holds more than ${MAX_JSON_VALUES} values.`);
    }
  }
  return null;
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'The request line and headers are larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request was not received in time.'],
};

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers and request line over
 * 16 KiB, malformed HTTP, a body that does not arrive) still answer in the envelope, then close.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'BAD_REQUEST', 'The request is not well-formed HTTP.'];
  const body = JSON.stringify(failureBody(code, message));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Router-level refusals (a malformed percent-encoding in the path, an over-long path segment) in the envelope. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(failureBody('URI_TOO_LONG', 'A path segment of the request is too long.'));
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send(failureBody('BAD_REQUEST', 'The request path is not valid (malformed percent-encoding).'));
    return;
  }
  void reply.code(500).send(failureBody('INTERNAL_ERROR', 'Something went wrong on our side. Retry later.'));
}
