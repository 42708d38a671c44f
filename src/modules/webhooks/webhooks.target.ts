import { serviceClock } from '../../lib/clock.js';
import type { Deps } from '../../deps.js';
import { API_VERSION } from '../../lib/contract.js';
import { ulid } from '../../lib/ids.js';
import { formatTimestamp } from '../../lib/time.js';
import { webhookSigningSecrets } from '../integrations/integrations.service.js';
import type { SendResult, Sender } from './webhooks.send.js';
import { deliveryHeaders, signingKey, type SigningKey } from './webhooks.sign.js';
import type { DeliveryState } from './webhooks.sql.js';

/** Where and how one integration's events go, read from its delivery state. */
export interface Target {
  url: URL | null;
  urlProblem: string | null;
  keys: SigningKey[];
  types: Set<string>;
  timeoutMs: number;
  slug: string;
}

/** Delivery headers signed for one event at one second. */
export interface Signed {
  id: string;
  timestamp: number;
  headers: Record<string, string>;
}

export async function targetOf(deps: Deps, state: DeliveryState): Promise<Target> {
  let url: URL | null = null;
  let urlProblem: string | null = null;
  try {
    url = new URL(state.webhook_url!);
  } catch {
    urlProblem = 'INVALID_URL: the webhook URL cannot be parsed';
  }
  return {
    url,
    urlProblem,
    keys: (await webhookSigningSecrets(deps, state.id)).map(signingKey),
    types: new Set(state.webhook_event_types),
    timeoutMs: state.webhook_timeout_seconds * 1000,
    slug: state.slug,
  };
}

/** An event's delivery headers, signed at the current second of the service clock. */
export function signEvent(deps: Deps, target: Target, id: string, body: string): Signed {
  const timestamp = Math.floor(serviceClock(deps.clock, 'signatures').nowMs() / 1000);
  return { id, timestamp, headers: deliveryHeaders({ slug: target.slug, id, timestamp, body, keys: target.keys }) };
}

/** One event on its way: `presigned` holds headers signed ahead, used when they are this event's and still of the current second. */
export interface Outgoing {
  id: string;
  body: string;
  presigned?: Signed | null;
  /** Handed the function that cuts the request off. */
  cancellable: (cancel: (() => void) | null) => void;
}

/** Posts one event to the target (a URL that cannot be parsed fails without a request) and counts the attempt. */
export async function sendEvent(deps: Deps, sender: Sender, target: Target, event: Outgoing): Promise<SendResult> {
  let result: SendResult;
  if (!target.url) {
    result = { ok: false, status: null, error: target.urlProblem, durationMs: 0, body: null };
  } else {
    const { presigned } = event;
    const fresh = !!presigned && presigned.id === event.id && presigned.timestamp === Math.floor(serviceClock(deps.clock, 'signatures').nowMs() / 1000);
    const { headers } = fresh ? presigned : signEvent(deps, target, event.id, event.body);
    result = await sender.send({ url: target.url, headers, body: event.body, timeoutMs: target.timeoutMs, cancellable: event.cancellable });
  }
  deps.metrics?.deliveryAttempt(result);
  return result;
}

/**
 * Posts one event and signs the following one while it is on the wire (the two HMACs of a 3.7 KB
 * body were ~10 % of the stream's CPU): in the loop's check phase, once this request has been
 * written. Those headers are for use once this one is answered 2xx; an answer that comes first
 * leaves the next event to be signed as it is sent (`presigned` null).
 */
export async function sendSigningNext(
  deps: Deps,
  sender: Sender,
  target: Target,
  event: Outgoing,
  following: { id: string; type: string; body: string } | undefined,
): Promise<{ result: SendResult; presigned: Signed | null }> {
  let presigned: Signed | null = null;
  const sending = sendEvent(deps, sender, target, event);
  const signing =
    following && target.url && target.types.has(following.type)
      ? setImmediate(() => (presigned = signEvent(deps, target, following.id, following.body)))
      : null;
  const result = await sending;
  if (signing) clearImmediate(signing);
  return { result, presigned };
}

/** A paused integration's ping at `at` (its brand's clock): its event id and body. */
export function pingEvent(state: DeliveryState, at: number): { id: string; body: string } {
  const id = ulid(at);
  const body = JSON.stringify({
    id,
    type: 'ping',
    sequence: null,
    origin: 'doorloom',
    version: API_VERSION,
    created_at: formatTimestamp(at),
    integration: { id: state.id, slug: state.slug },
    property: null,
    window: null,
    data: {},
  });
  return { id, body };
}
