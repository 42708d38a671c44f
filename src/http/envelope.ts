import type { FastifyReply } from 'fastify';
import { ERROR_STATUS, type AppError, type ErrorCode } from './errors.js';

/** `{ success: true, message, data, ...extra }` — the contract's success envelope. */
export function successBody(message: string, data: unknown, extra?: Record<string, unknown>) {
  return { success: true, message, data, ...extra };
}

/** successBody for data already serialised (a cached payload): the same bytes JSON.stringify would give. */
export function successJson(message: string, dataJson: string): string {
  return `{"success":true,"message":${JSON.stringify(message)},"data":${dataJson}}`;
}

/** The Content-Type of every JSON answer (Fastify's own for a serialised object). */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends a body built by successJson; Fastify passes a string with a JSON type through unserialised. */
export function sendJson(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(body);
}

export function sendData(reply: FastifyReply, status: number, message: string, data: unknown, extra?: Record<string, unknown>): FastifyReply {
  return reply.code(status).send(successBody(message, data, extra));
}

export function failureBody(code: ErrorCode, message: string, errors?: Record<string, unknown>) {
  return errors === undefined ? { success: false, message, code } : { success: false, message, code, errors };
}

/** Answers `code` in the failure envelope, with the status ERROR_STATUS gives it. */
export function sendFailure(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  return reply.code(ERROR_STATUS[code]).send(failureBody(code, message));
}

/** Answers a thrown AppError: its status, its extra headers, the failure envelope. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).send(failureBody(error.code, error.message, error.errors));
}
