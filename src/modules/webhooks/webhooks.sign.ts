import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { API_VERSION } from '../../lib/contract.js';

export const USER_AGENT = `Doorloom-Webhooks/${API_VERSION}`;
const SECRET_PREFIX = 'whsec_';

/**
 * A live webhook secret, prepared once per batch as key objects (a raw key is imported again on
 * every HMAC otherwise): the string itself keys the `X-Service-Signature` HMAC (the Stripe
 * scheme), the base64 decoding of the part after `whsec_` keys the Standard Webhooks one.
 */
export interface SigningKey {
  serviceKey: KeyObject;
  standardKey: KeyObject;
}

export function signingKey(secret: string): SigningKey {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return { serviceKey: createSecretKey(Buffer.from(secret, 'utf8')), standardKey: createSecretKey(Buffer.from(encoded, 'base64')) };
}

/** Hex HMAC-SHA256 of `<t>.<body>` keyed by the whole secret string (decisions §7). */
export function serviceSignature(key: SigningKey, timestamp: number, body: string): string {
  return createHmac('sha256', key.serviceKey).update(`${timestamp}.`).update(body).digest('hex');
}

/** Base64 HMAC-SHA256 of `<id>.<t>.<body>` keyed by the decoded secret (Standard Webhooks). */
export function standardSignature(key: SigningKey, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', key.standardKey).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/**
 * Every header of one delivery. `keys` are the live secrets, the current one first, so during a
 * rotation both schemes carry one signature per secret, the new secret's first.
 */
export function deliveryHeaders(options: { slug: string; id: string; timestamp: number; body: string; keys: SigningKey[] }): Record<string, string> {
  const { slug, id, timestamp, body, keys } = options;
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'User-Agent': USER_AGENT,
    'X-Service-Integration': slug,
    'X-Service-Event-Id': id,
    'X-Service-Signature': `t=${timestamp},${keys.map((k) => `v1=${serviceSignature(k, timestamp, body)}`).join(',')}`,
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((k) => `v1,${standardSignature(k, id, timestamp, body)}`).join(' '),
  };
}
