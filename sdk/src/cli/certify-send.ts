import { signDelivery } from '../webhooks.js';
import type { FakeEvent } from './certify-events.js';
import type { CertifyScheme } from './certify-kit.js';

/**
 * certify's sending: exactly the service's headers (signDelivery), less the scheme the receiver
 * does not claim, posted with the integration's deadline.
 */

export interface Signing {
  /** The secrets to sign with, in header order. */
  secrets: string[];
  timestamp: number;
  scheme: CertifyScheme;
}

export function deliveryHeaders(event: FakeEvent, body: string, signing: Signing): Record<string, string> {
  const headers = signDelivery({
    secrets: signing.secrets,
    id: event.id,
    slug: event.integration.slug,
    body,
    version: event.version,
    timestamp: signing.timestamp,
  });
  if (signing.scheme === 'standard') delete headers['X-Service-Signature'];
  if (signing.scheme === 'stripe') for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) delete headers[name];
  return headers;
}

export interface Answer {
  status: number | null;
  ms: number;
  error: string | null;
  timedOut: boolean;
}

export async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: controller.signal });
    // the answer counts once it is whole, as the service's own deadline does
    await res.arrayBuffer();
    return { status: res.status, ms: Math.round(performance.now() - started), error: null, timedOut: false };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    if (controller.signal.aborted) return { status: null, ms, error: `no complete answer within ${timeoutMs / 1000} s`, timedOut: true };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ? `${cause.code}: ${cause.message ?? ''}`.trim() : (cause?.message ?? (error as Error).message);
    return { status: null, ms, error: reason, timedOut: false };
  } finally {
    clearTimeout(timer);
  }
}

export const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

export function describe(event: FakeEvent, body: string, how: string): string {
  return `${event.type} seq ${event.sequence} id ${event.id}${event.property ? ` property ${event.property.doorloom_id}` : ''}, ${body.length} bytes, ${how}`;
}

export function schemeWords(scheme: CertifyScheme): string {
  return scheme === 'both' ? 'X-Service-Signature and webhook-signature' : scheme === 'stripe' ? 'X-Service-Signature only' : 'webhook-signature only';
}
