import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DoorloomEvent } from './events.js';

/**
 * Webhook verification. Every delivery is signed twice over the raw body bytes, once per scheme,
 * with one signature per live secret (two during a secret rotation):
 *
 * - `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: hex HMAC-SHA256 of `<t>.<body>`
 *   keyed by the whole secret string (`whsec_…` as UTF-8): the contract's scheme, and Stripe's.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64> …`,
 *   base64 HMAC-SHA256 of `<id>.<t>.<body>` keyed by the base64 decoding of the part after `whsec_`.
 */
export type SignatureScheme = 'service' | 'standard';

export interface WebhookVerifyOptions {
  /** Every live secret: the current one and, during a rotation, the previous one. */
  secrets: string | readonly string[];
  /** Seconds the signature's timestamp may differ from now, either way: finite, 0 or more. Default 300. */
  toleranceSeconds?: number;
  /** The current time in ms (default Date.now). */
  now?: () => number;
  /**
   * Which scheme to check. `auto` (default) checks X-Service-Signature when the request has one and
   * Standard Webhooks otherwise; a present but failing signature is never excused by the other.
   */
  scheme?: SignatureScheme | 'auto';
}

/** Headers as Node's IncomingMessage, a fetch Headers, or a plain object of either case. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export type WebhookVerificationFailure = 'missing_signature' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_body';

/** The request is not a genuine, fresh delivery: answer it 401 and do not apply it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifiedSignature {
  scheme: SignatureScheme;
  /** The signature's timestamp (unix seconds). */
  timestamp: number;
  /** Which of the given secrets matched (0 = the first). */
  secretIndex: number;
}

const DEFAULT_TOLERANCE = 300;
const SECRET_PREFIX = 'whsec_';
/** A shorter HMAC key is guessable; `whsec_` alone would decode to an empty key that signs anything. */
const MIN_KEY_BYTES = 16;

/** A webhook secret in the service's format: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

interface PreparedSecret {
  service: Buffer;
  standard: Buffer;
}

function prepare(secret: string): PreparedSecret {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return { service: Buffer.from(secret, 'utf8'), standard: Buffer.from(encoded, 'base64') };
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value.join(',') : value;
}

function toBuffer(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** Constant-time comparison of two signatures; unequal lengths are a mismatch (length is public). */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A verifier for one set of secrets (prepared once). `verify` checks the signature over the raw
 * body and returns the parsed event; `verifySignature` only checks.
 */
export function createWebhookVerifier(options: WebhookVerifyOptions) {
  const list = typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets];
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('webhook verification needs at least one non-empty secret');
  }
  const scheme = options.scheme ?? 'auto';
  const secrets = list.map(prepare);
  for (const [index, secret] of secrets.entries()) {
    if (scheme !== 'standard' && secret.service.length < MIN_KEY_BYTES) {
      throw new TypeError(`webhook secret ${index} is shorter than ${MIN_KEY_BYTES} bytes`);
    }
    if (scheme !== 'service' && secret.standard.length < MIN_KEY_BYTES) {
      throw new TypeError(`webhook secret ${index} decodes to a key shorter than ${MIN_KEY_BYTES} bytes (expected whsec_ followed by base64)`);
    }
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError(`toleranceSeconds must be a finite number of seconds, 0 or more (got ${String(tolerance)})`);
  }
  const now = options.now ?? Date.now;

  function fresh(timestamp: number): void {
    const skew = Math.floor(now() / 1000) - timestamp;
    if (Math.abs(skew) > tolerance) {
      throw new WebhookVerificationError(
        'timestamp_out_of_tolerance',
        `signature timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'old' : 'ahead'} (tolerance ${tolerance} s)`,
      );
    }
  }

  function parseTimestamp(value: string | undefined): number {
    if (value === undefined || !/^\d{1,12}$/.test(value.trim()))
      throw new WebhookVerificationError('malformed_signature', 'signature timestamp is not a number of seconds');
    return Number(value.trim());
  }

  function verifyService(raw: Buffer, value: string): VerifiedSignature {
    let t: string | undefined;
    const candidates: Buffer[] = [];
    for (const part of value.split(',')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim();
      const v = part.slice(eq + 1).trim();
      if (key === 't') t = v;
      else if (key === 'v1' && /^[0-9a-f]{64}$/i.test(v)) candidates.push(Buffer.from(v, 'hex'));
    }
    const timestamp = parseTimestamp(t);
    if (candidates.length === 0) throw new WebhookVerificationError('malformed_signature', 'X-Service-Signature carries no v1 signature');
    fresh(timestamp);
    for (const [index, secret] of secrets.entries()) {
      const expected = createHmac('sha256', secret.service).update(`${timestamp}.`).update(raw).digest();
      // Every candidate is compared (no early exit on the first), so timing tells nothing about which.
      let match = false;
      for (const c of candidates) match = sameBytes(expected, c) || match;
      if (match) return { scheme: 'service', timestamp, secretIndex: index };
    }
    throw new WebhookVerificationError('signature_mismatch', 'no X-Service-Signature value matches a live secret');
  }

  function verifyStandard(raw: Buffer, id: string | undefined, t: string | undefined, value: string): VerifiedSignature {
    if (id === undefined || id === '') throw new WebhookVerificationError('malformed_signature', 'webhook-id is missing');
    const timestamp = parseTimestamp(t);
    const candidates: Buffer[] = [];
    for (const part of value.split(' ')) {
      const [version, signature] = part.split(',', 2);
      if (version === 'v1' && signature && /^[A-Za-z0-9+/]+=*$/.test(signature)) candidates.push(Buffer.from(signature, 'base64'));
    }
    if (candidates.length === 0) throw new WebhookVerificationError('malformed_signature', 'webhook-signature carries no v1 signature');
    fresh(timestamp);
    for (const [index, secret] of secrets.entries()) {
      const expected = createHmac('sha256', secret.standard).update(`${id}.${timestamp}.`).update(raw).digest();
      let match = false;
      for (const c of candidates) match = sameBytes(expected, c) || match;
      if (match) return { scheme: 'standard', timestamp, secretIndex: index };
    }
    throw new WebhookVerificationError('signature_mismatch', 'no webhook-signature value matches a live secret');
  }

  function verifySignature(rawBody: string | Uint8Array, headers: HeadersLike): VerifiedSignature {
    const raw = toBuffer(rawBody);
    const service = header(headers, 'x-service-signature');
    const standard = header(headers, 'webhook-signature');
    const useService = scheme === 'service' || (scheme === 'auto' && service !== undefined);
    if (useService) {
      if (service === undefined) throw new WebhookVerificationError('missing_signature', 'X-Service-Signature header is missing');
      return verifyService(raw, service);
    }
    if (standard === undefined) {
      throw new WebhookVerificationError(
        'missing_signature',
        scheme === 'standard' ? 'webhook-signature header is missing' : 'no signature header (X-Service-Signature or webhook-signature)',
      );
    }
    return verifyStandard(raw, header(headers, 'webhook-id'), header(headers, 'webhook-timestamp'), standard);
  }

  function verify(rawBody: string | Uint8Array, headers: HeadersLike): DoorloomEvent {
    verifySignature(rawBody, headers);
    return parseWebhookEvent(rawBody);
  }

  /** True when the delivery is genuine and fresh (for handlers that take a yes/no check). */
  function accepts(rawBody: string | Uint8Array, headers: HeadersLike): boolean {
    try {
      verifySignature(rawBody, headers);
      return true;
    } catch (error) {
      if (error instanceof WebhookVerificationError) return false;
      throw error;
    }
  }

  return { verify, verifySignature, accepts };
}

export type SignatureVerifier = ReturnType<typeof createWebhookVerifier>;

/** The User-Agent of the service's deliveries, for the API version the body is stamped with. */
export const webhookUserAgent = (version: string) => `Doorloom-Webhooks/${version}`;

export interface SignDeliveryOptions {
  /** Every live secret, the current one first (during a rotation both sign, as the service does). */
  secrets: string | readonly string[];
  /** The event's id (`X-Service-Event-Id` and `webhook-id`). */
  id: string;
  /** The integration's slug (`X-Service-Integration`). */
  slug: string;
  /** The exact body bytes to send. */
  body: string;
  /** The API version for the User-Agent (the event's `version`). */
  version: string;
  /** Signing time, unix seconds (default now). */
  timestamp?: number;
}

/**
 * Every header of a delivery as the service writes it: both signature schemes over `body`, one
 * signature per secret in each. A receiver that verifies the service's deliveries verifies these.
 */
export function signDelivery(options: SignDeliveryOptions): Record<string, string> {
  const list = typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets];
  if (list.length === 0) throw new TypeError('signing needs at least one secret');
  const keys = list.map(prepare);
  const { id, body } = options;
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': webhookUserAgent(options.version),
    'X-Service-Integration': options.slug,
    'X-Service-Event-Id': id,
    'X-Service-Signature': `t=${timestamp},${keys.map((k) => `v1=${createHmac('sha256', k.service).update(`${timestamp}.`).update(body).digest('hex')}`).join(',')}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((k) => `v1,${createHmac('sha256', k.standard).update(`${id}.${timestamp}.`).update(body).digest('base64')}`).join(' '),
  };
}

/**
 * Verifies one delivery from its raw body bytes (never a re-serialised object) and headers, and
 * returns the event. Throws WebhookVerificationError: answer 401 and do not apply it.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeadersLike, options: WebhookVerifyOptions): DoorloomEvent {
  return createWebhookVerifier(options).verify(rawBody, headers);
}

/**
 * Parses a (verified) body into an event. Unknown kinds are passed through as they are, so a new
 * kind within the version does not break a receiver.
 */
export function parseWebhookEvent(rawBody: string | Uint8Array): DoorloomEvent {
  let value: unknown;
  try {
    value = JSON.parse(typeof rawBody === 'string' ? rawBody : toBuffer(rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'body is not JSON');
  }
  if (typeof value !== 'object' || value === null || typeof (value as { type?: unknown }).type !== 'string') {
    throw new WebhookVerificationError('invalid_body', 'body is not an event envelope (no type)');
  }
  return value as DoorloomEvent;
}
