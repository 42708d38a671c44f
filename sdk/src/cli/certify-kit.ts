import { randomBytes, randomInt } from 'node:crypto';
import { signDelivery } from '../webhooks.js';

/**
 * The receiver conformance kit behind `doorloom-partner certify`: fictional but contract-shaped
 * deliveries, signed as the service signs its own, each sent to the partner's receiver and judged
 * by the answer.
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
const API_VERSION = '2026-09';
const SECRET_PREFIX = 'whsec_';
const LARGE_PROPERTY_UNITS = 50;

/** A webhook secret in the service's format: `whsec_` and 32 random bytes in base64. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

// -------------------------------------------------------------------------------------------------
// Signing: exactly the service's headers (signDelivery), less the scheme the receiver does not claim.

interface Signing {
  /** The secrets to sign with, in header order. */
  secrets: string[];
  timestamp: number;
  scheme: CertifyScheme;
}

function deliveryHeaders(event: FakeEvent, body: string, signing: Signing): Record<string, string> {
  const headers = signDelivery({ secrets: signing.secrets, id: event.id, slug: event.integration.slug, body, version: event.version, timestamp: signing.timestamp });
  if (signing.scheme === 'standard') delete headers['X-Service-Signature'];
  if (signing.scheme === 'stripe') for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) delete headers[name];
  return headers;
}

// -------------------------------------------------------------------------------------------------
// Events in the contract's envelope, about fictional properties

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (48-bit millisecond time, 80 random bits, Crockford base32), as event ids are. */
export function ulid(timeMs = Date.now()): string {
  let time = '';
  let t = Math.floor(timeMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[randomInt(32)];
  return time + rand;
}

interface FakeEvent {
  id: string;
  type: string;
  sequence: number;
  origin: 'partner' | 'doorloom';
  version: string;
  created_at: string;
  integration: { id: number; slug: string };
  property: { doorloom_id: number; external_id: string | null } | null;
  window: { from: string; to: string } | null;
  data: Record<string, unknown>;
}

interface FakeProperty {
  id: number;
  externalId: string;
  units: Array<{ inventory_id: number; external_unit_id: string; name: string }>;
}

const pad = (n: number) => String(n).padStart(2, '0');
const IST_OFFSET_MS = 5.5 * 3600 * 1000;

/** An instant as the service writes it: seconds, in +05:30. */
function timestampOf(ms: number): string {
  const d = new Date(Math.floor(ms / 1000) * 1000 + IST_OFFSET_MS);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+05:30`;
}

/** Every night of next month (Asia/Kolkata), the one-calendar-month window events never exceed. */
function nextMonth(nowMs: number): string[] {
  const today = new Date(nowMs + IST_OFFSET_MS);
  const first = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1));
  const nights: string[] = [];
  for (let d = first; d.getUTCMonth() === first.getUTCMonth(); d = new Date(d.getTime() + 86_400_000)) {
    nights.push(d.toISOString().slice(0, 10));
  }
  return nights;
}

/**
 * The fictional integration, properties and sequences of one run. Ids and sequences are far above
 * what a real integration reaches, and random per run, so they never overwrite a real property's
 * state nor collide with an earlier run against the same receiver.
 */
class Scenario {
  readonly integration = { id: 900_000 + randomInt(100_000), slug: 'doorloom-certify' };
  private nextSequence: number;
  private nextId = 9_000_000_000 + randomInt(1_000_000) * 1000;
  readonly nights: string[];

  constructor(private readonly nowMs: number) {
    this.nextSequence = 1_000_000_000 + randomInt(1_000_000) * 1000;
    this.nights = nextMonth(nowMs);
  }

  sequence(): number {
    return this.nextSequence++;
  }

  property(units: number): FakeProperty {
    const id = this.nextId++;
    return {
      id,
      externalId: `CERTIFY-${id}`,
      units: Array.from({ length: units }, (_, i) => ({ inventory_id: id * 100 + i + 1, external_unit_id: `CERTIFY-${id}-U${i + 1}`, name: `Cottage ${i + 1}` })),
    };
  }

  event(type: string, property: FakeProperty | null, data: Record<string, unknown>, options: { sequence?: number; window?: boolean; ageSeconds?: number } = {}): FakeEvent {
    const at = this.nowMs - (options.ageSeconds ?? 0) * 1000;
    return {
      id: ulid(at),
      type,
      sequence: options.sequence ?? this.sequence(),
      origin: 'doorloom',
      version: API_VERSION,
      created_at: timestampOf(at),
      integration: this.integration,
      property: property ? { doorloom_id: property.id, external_id: property.externalId } : null,
      window: options.window ? { from: this.nights[0], to: this.nights[this.nights.length - 1] } : null,
      data,
    };
  }

  /**
   * An availability.changed payload for the month: `busy(unit, night)` says whether a unit is held
   * or blocked that night.
   */
  availability(property: FakeProperty, busy: (unit: number, night: number) => boolean): Record<string, unknown> {
    const total = property.units.length;
    const units = property.units.map((u, i) => ({ ...u, unavailable: this.nights.filter((_, n) => busy(i, n)) }));
    const dates = this.nights.map((date, n) => {
      const taken = property.units.filter((_, i) => busy(i, n)).length;
      return { date, available_units: total - taken, total_units: total, is_blocked: false, block_scope: null, units_cap: null };
    });
    return { total_units: total, units, dates };
  }

  /** property.changed's data: the Property block with its units. */
  propertyChanged(property: FakeProperty): Record<string, unknown> {
    return {
      property: {
        doorloom_id: property.id,
        external_id: property.externalId,
        coverage: 'active',
        name: `Certification Villa ${property.id}`,
        property_type: 'villa',
        status: 'active',
        is_master: true,
        master_property_id: property.id,
        units: property.units.map((u, i) => ({ ...u, code: null, is_active: true, is_default: i === 0, max_occupancy: 4, deleted: false })),
      },
    };
  }
}

// -------------------------------------------------------------------------------------------------
// Sending

interface Answer {
  status: number | null;
  ms: number;
  error: string | null;
  timedOut: boolean;
}

async function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<Answer> {
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

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

function describe(event: FakeEvent, body: string, how: string): string {
  return `${event.type} seq ${event.sequence} id ${event.id}${event.property ? ` property ${event.property.doorloom_id}` : ''}, ${body.length} bytes, ${how}`;
}

function schemeWords(scheme: CertifyScheme): string {
  return scheme === 'both' ? 'X-Service-Signature and webhook-signature' : scheme === 'stripe' ? 'X-Service-Signature only' : 'webhook-signature only';
}

// -------------------------------------------------------------------------------------------------
// The checks

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
    how: { signing?: Partial<Signing>; skewSeconds?: number; serialize?: (event: FakeEvent) => string; tamper?: (body: string) => string; drop?: string[]; note: string },
    expect: 'accept' | 'refuse',
  ): Promise<CheckResult> {
    const signed = how.serialize ? how.serialize(event) : JSON.stringify(event);
    const headers = deliveryHeaders(event, signed, { secrets: [secret], timestamp: Math.floor(Date.now() / 1000) + (how.skewSeconds ?? 0), scheme, ...how.signing });
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
    { skewSeconds: -OUTSIDE_TOLERANCE_SECONDS, note: `signed correctly with a timestamp ${OUTSIDE_TOLERANCE_SECONDS} s old (tolerance ${TOLERANCE_SECONDS} s)` },
    'refuse',
  );
  await deliver(
    'future-timestamp',
    scenario.event('availability.changed', villa, calendar(1), { window: true }),
    { skewSeconds: OUTSIDE_TOLERANCE_SECONDS, note: `signed correctly with a timestamp ${OUTSIDE_TOLERANCE_SECONDS} s ahead (tolerance ${TOLERANCE_SECONDS} s)` },
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
    record(unanswered ? notRun('sequence-rule', 'a newer then an older availability.changed, then a state read', 'the state read shows the newer event') : await sequenceRule(scenario, options, send));
  }

  return { passed: checks.every((c) => c.passed), checks };
}

/**
 * The per-property, per-type sequence rule: a newer availability.changed, then an older one for
 * the same property and nights; the state read afterwards must still be the newer one.
 */
async function sequenceRule(
  scenario: Scenario,
  options: CertifyOptions,
  send: (name: string, event: FakeEvent, how: { note: string }, expect: 'accept') => Promise<CheckResult>,
): Promise<CheckResult> {
  const name = 'sequence-rule';
  const property = scenario.property(2);
  const setup = scenario.event('property.changed', property, scenario.propertyChanged(property));
  const olderSequence = scenario.sequence();
  const newerSequence = scenario.sequence();
  // newer: both units taken on every night; older: all free
  const newer = scenario.event('availability.changed', property, scenario.availability(property, () => true), { window: true, sequence: newerSequence });
  const older = scenario.event('availability.changed', property, scenario.availability(property, () => false), { window: true, sequence: olderSequence, ageSeconds: 60 });
  const sent = `property.changed seq ${setup.sequence}, then availability.changed seq ${newerSequence} (every night full), then seq ${olderSequence} (every night free) for property ${property.id}`;
  const expected = `the state read shows the newer event (seq ${newerSequence})`;
  const fail = (status: number | null, ms: number, error: string): CheckResult => ({ name, passed: false, evidence: { status, ms, sent, expected, error } });

  // These deliveries are steps of this one check.
  for (const [label, event] of [['property.changed', setup], ['newer', newer], ['older', older]] as const) {
    const result = await send(name, event, { note: label }, 'accept');
    if (!result.passed) return fail(result.evidence.status, result.evidence.ms, `the ${label} delivery was not accepted: ${result.evidence.error ?? `status ${result.evidence.status}`}`);
  }

  const base = options.stateUrl!.replace(/\/+$/, '');
  const prefix = /\/mirror$/.test(base) ? base : `${base}/mirror`;
  const night = scenario.nights[0];
  const url = `${prefix}/properties/${property.id}/availability?from=${night}&to=${night}`;
  const wanted = (newer.data.dates as Array<Record<string, unknown>>)[0];
  const started = performance.now();
  const deadline = Date.now() + options.timeoutMs;
  // A receiver may apply after answering: the read is repeated until the night shows, within the timeout.
  for (;;) {
    let status: number | null = null;
    let row: Record<string, unknown> | undefined;
    let error: string;
    try {
      const res = await fetch(url, { headers: options.readToken ? { Authorization: `Bearer ${options.readToken}` } : {}, signal: AbortSignal.timeout(options.timeoutMs) });
      status = res.status;
      const text = await res.text();
      if (res.ok) {
        const body = JSON.parse(text) as { dates?: Array<Record<string, unknown>>; data?: { dates?: Array<Record<string, unknown>>; data?: { dates?: Array<Record<string, unknown>> } } };
        const dates = body.dates ?? body.data?.dates ?? body.data?.data?.dates ?? [];
        row = dates.find((d) => d.date === night);
      }
      error = row ? '' : `GET ${url}: ${status} ${text.slice(0, 200)}`;
    } catch (e) {
      error = `GET ${url}: ${(e as Error).message}`;
    }
    const ms = Math.round(performance.now() - started);
    if (row) {
      const same = row.available_units === wanted.available_units;
      return same
        ? { name, passed: true, evidence: { status, ms, sent, expected, error: null } }
        : fail(status, ms, `night ${night} reads available_units ${String(row.available_units)}: the older event (seq ${olderSequence}) replaced the newer one (${String(wanted.available_units)})`);
    }
    if (Date.now() > deadline) return fail(status, ms, `night ${night} never appeared in the state: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
