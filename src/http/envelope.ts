import type { FastifyReply } from 'fastify';

/** `{ success: true, message, data, ...extra }` — the contract's success envelope. */
export function successBody(message: string, data: unknown, extra?: Record<string, unknown>) {
  return { success: true, message, data, ...extra };
}

export function sendData(
  reply: FastifyReply,
  status: number,
  message: string,
  data: unknown,
  extra?: Record<string, unknown>,
): FastifyReply {
  return reply.code(status).send(successBody(message, data, extra));
}

export function failureBody(code: string, message: string, errors?: Record<string, unknown>) {
  return errors === undefined ? { success: false, message, code } : { success: false, message, code, errors };
}
