import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * X-Service-Signature (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`, HMAC-SHA256 of `<t>.<raw body>`
 * keyed by the secret), any v1 matching any secret, `t` within 300 s either way.
 */
export function verifySignature(rawBody: string, headers: IncomingHttpHeaders, secrets: string[], nowMs = Date.now()): boolean {
  const header = headers['x-service-signature'];
  if (typeof header !== 'string') return false;
  let t: string | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') t = value;
    else if (key === 'v1') signatures.push(value);
  }
  if (t === null || !/^\d+$/.test(t) || Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
    for (const candidate of signatures) {
      const given = Buffer.from(candidate, 'hex');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    }
  }
  return false;
}
