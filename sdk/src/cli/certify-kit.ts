import { generateWebhookSecret } from '../webhooks.js';
import { Scenario, type FakeEvent } from './certify-events.js';
import { deliveryHeaders, describe, isSuccess, post, schemeWords, type Signing } from './certify-send.js';
import { sequenceRule } from './certify-state.js';

/**
 * The receiver conformance kit behind `doorloom-partner certify`: fictional but contract-shaped
 * deliveries (certify-events.ts), signed as the service signs its own and sent to the partner's
 * receiver (certify-send.ts), each judged by the answer; with a state URL, one more check reads the
 * receiver's state back (certify-state.ts).
 */

export type CertifyScheme = 'stripe' | 'standard' | 'both';

export interface CertifyOptions {
  /** The receiver's URL (the one configured as the integration's webhook URL). */
  receiver: string;
  /** The secret deliveries are signed with (`whsec_…`). */
  secret: string;
  /** Which signature headers the receiver accepts; `both` sends both on each delivery, as the service does. */
  scheme: CertifyScheme;
  /** The answer deadline in milliseconds (the integration's timeout_seconds). */
  timeoutMs: number;
  /** A mirror-shaped read API (`…/mirror/properties/{id}/availability`), for the sequence rule. */
  stateUrl?: string;
  /** Sent as `Authorization: Bearer …` on state reads. */
  readToken?: string;
  /** Told about each check as it finishes. */
  onCheck?: (check: CheckResult) => void;
}

export interface Evidence {
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  /** From the request until the whole answer was read. */
  ms: number;
  /** What was sent. */
  sent: string;
  /** What a conforming receiver does. */
  expected: string;
  /** Why the check failed without a status to blame (no answer, a state read that disagreed). */
  error: string | null;
}

export interface CheckResult {
  name: string;
  passed: boolean;
  evidence: Evidence;
}

export interface CertifyReport {
  passed: boolean;
  checks: CheckResult[];
}

/** The contract's signature tolerance, either side of `t`. */
const TOLERANCE_SECONDS = 300;
/** How far outside the tolerance the stale and future timestamps are: room for clock skew between hosts. */
const OUTSIDE_TOLERANCE_SECONDS = TOLERANCE_SECONDS + 30;
const LARGE_PROPERTY_UNITS = 50;

/**
 * Runs every check against the receiver, one delivery at a time, in a fixed order. Each check's
 * name is stable: scripts look for the name of the one that failed.
 */
export async function certify(options: CertifyOptions): Promise<CertifyReport> {
  const { receiver, secret, scheme, timeoutMs } = options;
  const nowMs = Date.now();
  const scenario = new Scenario(nowMs);
  const wrongSecret = generateWebhookSecret();
  const checks: CheckResult[] = [];
  const record = (check: CheckResult) => {
    checks.push(check);
    options.onCheck?.(check);
  };
  const seconds = `${timeoutMs / 1000} s`;

  /** Sends one delivery and judges its answer. */
  async function send(
    name: string,
    event: FakeEvent,
    how: {
      signing?: Partial<Signing>;
      skewSeconds?: number;
      serialize?: (event: FakeEvent) => string;
      tamper?: (body: string) => string;
      drop?: string[];
      note: string;
    },
    expect: 'accept' | 'refuse',
  ): Promise<CheckResult> {
    const signed = how.serialize ? how.serialize(event) : JSON.stringify(event);
    const headers = deliveryHeaders(event, signed, {
      secrets: [secret],
      timestamp: Math.floor(Date.now() / 1000) + (how.skewSeconds ?? 0),
      scheme,
      ...how.signing,
    });
    for (const header of how.drop ?? []) delete headers[header];
    const body = how.tamper ? how.tamper(signed) : signed;
    const answer = await post(receiver, headers, body, timeoutMs);
    const passed = expect === 'accept' ? isSuccess(answer.status) : answer.status === 401;
    const result: CheckResult = {
      name,
      passed,
      evidence: {
        status: answer.status,
        ms: answer.ms,
        sent: describe(event, body, how.note),
        expected: expect === 'accept' ? `2xx within ${seconds}` : '401',
        error: answer.error,
      },
    };
    if (name === 'valid-delivery' && answer.timedOut) unanswered = answer.error;
    return result;
  }
  /**
   * Set when the valid delivery got no answer in time: the other checks are then reported failed
   * without being sent, since each would wait out the whole timeout too.
   */
  let unanswered: string | null = null;
  const notRun = (name: string, sent: string, expected: string): CheckResult => ({
    name,
    passed: false,
    evidence: { status: null, ms: 0, sent, expected, error: `not run: valid-delivery got ${unanswered}` },
  });
  const deliver = async (...args: Parameters<typeof send>) => {
    const [name, event, how, expect] = args;
    const result = unanswered
      ? notRun(name, describe(event, JSON.stringify(event), how.note), expect === 'accept' ? `2xx within ${seconds}` : '401')
      : await send(...args);
    record(result);
    return result;
  };

  const villa = scenario.property(3);
  const calendar = (offset: number) => scenario.availability(villa, (unit, night) => (night + unit + offset) % 4 === 0);
  // Kept aside so the replay is older than every delivery before it.
  const olderSequence = scenario.sequence();
  const valid = scenario.event('availability.changed', villa, calendar(0), { window: true });
  const signedBy = schemeWords(scheme);

  await deliver('valid-delivery', valid, { note: `signed with the secret (${signedBy})` }, 'accept');
  await deliver(
    'bad-signature',
    scenario.event('availability.changed', villa, calendar(1), { window: true }),
    { signing: { secrets: [wrongSecret] }, note: `signed with another secret (${signedBy})` },
    'refuse',
  );
  await deliver(
    'missing-signature',
    scenario.event('availability.changed', villa, calendar(1), { window: true }),
    { drop: ['X-Service-Signature', 'webhook-signature'], note: 'no X-Service-Signature and no webhook-signature header' },
    'refuse',
  );
  await deliver(
    'stale-timestamp',
    scenario.event('availability.changed', villa, calendar(1), { window: true, ageSeconds: OUTSIDE_TOLERANCE_SECONDS }),
    {
      skewSeconds: -OUTSIDE_TOLERANCE_SECONDS,
      note: `signed correctly with a timestamp ${OUTSIDE_TOLERANCE_SECONDS} s old (tolerance ${TOLERANCE_SECONDS} s)`,
    },
    'refuse',
  );
  await deliver(
    'future-timestamp',
    scenario.event('availability.changed', villa, calendar(1), { window: true }),
    {
      skewSeconds: OUTSIDE_TOLERANCE_SECONDS,
      note: `signed correctly with a timestamp ${OUTSIDE_TOLERANCE_SECONDS} s ahead (tolerance ${TOLERANCE_SECONDS} s)`,
    },
    'refuse',
  );
  await deliver(
    'tampered-body',
    scenario.event('availability.changed', villa, calendar(1), { window: true }),
    {
      // still valid JSON of the same shape: only a verification over the raw bytes notices
      tamper: (body) => body.replace(/"available_units":(\d+)/, (_, n: string) => `"available_units":${Number(n) + 1}`),
      note: 'signed correctly, then one available_units changed in the body',
    },
    'refuse',
  );
  await deliver(
    'raw-body',
    scenario.event('availability.changed', villa, calendar(2), { window: true }),
    {
      // verified over the bytes received, this is a valid delivery; verified over re-serialised JSON it is not
      serialize: (event) => JSON.stringify(event, null, 2),
      note: `the event as indented JSON, signed over exactly those bytes (${signedBy})`,
    },
    'accept',
  );
  await deliver(
    'rotation',
    scenario.event('availability.changed', villa, calendar(2), { window: true }),
    { signing: { secrets: [wrongSecret, secret] }, note: `two v1 values per header, only the second from the secret (${signedBy})` },
    'accept',
  );
  if (scheme === 'both' || scheme === 'stripe') {
    await deliver(
      'scheme-stripe',
      scenario.event('availability.changed', villa, calendar(3), { window: true }),
      { signing: { scheme: 'stripe' }, note: 'X-Service-Signature only, no webhook-* headers' },
      'accept',
    );
  }
  if (scheme === 'both' || scheme === 'standard') {
    await deliver(
      'scheme-standard',
      scenario.event('availability.changed', villa, calendar(0), { window: true }),
      { signing: { scheme: 'standard' }, note: 'webhook-id, webhook-timestamp and webhook-signature only, no X-Service-Signature' },
      'accept',
    );
  }
  await deliver('duplicate', valid, { note: `the valid-delivery event again, same id and sequence (${signedBy})` }, 'accept');
  await deliver(
    'replay-older',
    scenario.event('availability.changed', villa, calendar(1), { window: true, sequence: olderSequence, ageSeconds: 60 }),
    { note: `a new event with a sequence below those already accepted (${signedBy})` },
    'accept',
  );
  await deliver(
    'unknown-type',
    scenario.event('certify.unknown_kind', villa, { note: 'A kind added within the API version; a receiver answers 2xx and may ignore it.' }),
    { note: `an event type no receiver knows (${signedBy})` },
    'accept',
  );
  const resort = scenario.property(LARGE_PROPERTY_UNITS);
  // a busy month (nine nights in ten taken), so every unit lists many nights: about 30 KB in all
  const large = scenario.event(
    'availability.changed',
    resort,
    scenario.availability(resort, (unit, night) => (unit * 7 + night * 3) % 10 < 9),
    { window: true },
  );
  await deliver('large-payload', large, { note: `a month of availability for a ${LARGE_PROPERTY_UNITS}-unit property (${signedBy})` }, 'accept');

  if (options.stateUrl) {
    record(
      unanswered
        ? notRun('sequence-rule', 'a newer then an older availability.changed, then a state read', 'the state read shows the newer event')
        : await sequenceRule(scenario, options, send),
    );
  }

  return { passed: checks.every((c) => c.passed), checks };
}
