import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { EventEnvelope } from './api.js';
import type { SyncEngine } from './engine.js';

/**
 * Checks a delivery's signature over the raw body bytes (true: genuine), e.g.
 * `createWebhookVerifier({ secrets }).accepts`.
 */
export type WebhookVerifier = (rawBody: Buffer, headers: IncomingHttpHeaders) => boolean | Promise<boolean>;

/** Bodies above this are refused before they are read whole. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * A node:http handler for webhook deliveries: reads the raw body, verifies it, hands the event to
 * the engine and answers 200 only once the event's state is durable. A bad signature is a 401; a
 * body that is not an event a 400; a failure to store a 500, so the service delivers it again.
 */
export function webhookHandler(engine: SyncEngine, verify: WebhookVerifier) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch {
      return reply(413, { success: false, code: 'PAYLOAD_TOO_LARGE', message: 'The body is too large.' });
    }
    let genuine: boolean;
    try {
      genuine = await verify(raw, req.headers);
    } catch {
      genuine = false;
    }
    if (!genuine) return reply(401, { success: false, code: 'INVALID_SIGNATURE', message: 'The signature does not verify.' });
    let event: EventEnvelope;
    try {
      event = JSON.parse(raw.toString('utf8')) as EventEnvelope;
    } catch {
      return reply(400, { success: false, code: 'INVALID_JSON', message: 'The body is not JSON.' });
    }
    if (!event || typeof event !== 'object' || typeof event.type !== 'string') {
      return reply(400, { success: false, code: 'INVALID_EVENT', message: 'The body is not an event.' });
    }
    try {
      const result = await engine.receive(event);
      reply(200, { success: true, message: result });
    } catch {
      reply(500, { success: false, code: 'NOT_STORED', message: 'The event could not be stored; send it again.' });
    }
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
