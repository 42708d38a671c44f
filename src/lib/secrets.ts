import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** Parses a 32-byte key written as 64 hex characters or as base64. */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 bytes, written as 64 hex characters or base64');
  return key;
}

/**
 * AES-256-GCM for webhook secrets at rest: `v2.<iv>.<tag>.<ciphertext>`, each base64url, sealed
 * with the integration's id as associated data, so a ciphertext copied to another integration's
 * row does not open there. The tag is 16 bytes, pinned on both sides: Node would otherwise accept
 * a truncated tag, which is easier to forge.
 *
 * `v1` (no associated data) is what earlier versions wrote; openLegacy reads it only to seal it
 * again as v2 (resealWebhookSecrets, at start), and decrypt refuses it.
 */
export interface SecretBox {
  encrypt(plain: string, integrationId: number): string;
  decrypt(sealed: string, integrationId: number): string;
  /** A `v1` secret (no associated data), for resealing only. */
  openLegacy(sealed: string): string;
}

const TAG_BYTES = 16;
export const SEALED_VERSION = 'v2';
export const LEGACY_VERSION = 'v1';

const associatedData = (integrationId: number) => Buffer.from(`doorloom:integration:${integrationId}`, 'utf8');

function parts(sealed: string, version: string): { iv: Buffer; tag: Buffer; body: Buffer } {
  const [v, iv, tag, body, extra] = sealed.split('.');
  if (v !== version || !iv || !tag || body === undefined || extra !== undefined) throw new Error('unreadable sealed secret');
  const parsed = { iv: Buffer.from(iv, 'base64url'), tag: Buffer.from(tag, 'base64url'), body: Buffer.from(body, 'base64url') };
  if (parsed.iv.length !== 12 || parsed.tag.length !== TAG_BYTES) throw new Error('unreadable sealed secret');
  return parsed;
}

function open(key: Buffer, sealed: string, version: string, aad: Buffer | null): string {
  const { iv, tag, body } = parts(sealed, version);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    encrypt(plain, integrationId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(associatedData(integrationId));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [SEALED_VERSION, iv.toString('base64url'), tag.toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt: (sealed, integrationId) => open(key, sealed, SEALED_VERSION, associatedData(integrationId)),
    openLegacy: (sealed) => open(key, sealed, LEGACY_VERSION, null),
  };
}
