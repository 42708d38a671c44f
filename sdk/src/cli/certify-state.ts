import type { FakeEvent, Scenario } from './certify-events.js';
import type { CertifyOptions, CheckResult } from './certify-kit.js';

/** certify's one check that reads the receiver's state back (`--state-url`). */

/**
 * The per-property, per-type sequence rule: a newer availability.changed, then an older one for
 * the same property and nights; the state read afterwards must still be the newer one.
 */
export async function sequenceRule(
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
  const newer = scenario.event(
    'availability.changed',
    property,
    scenario.availability(property, () => true),
    { window: true, sequence: newerSequence },
  );
  const older = scenario.event(
    'availability.changed',
    property,
    scenario.availability(property, () => false),
    { window: true, sequence: olderSequence, ageSeconds: 60 },
  );
  const sent = `property.changed seq ${setup.sequence}, then availability.changed seq ${newerSequence} (every night full), then seq ${olderSequence} (every night free) for property ${property.id}`;
  const expected = `the state read shows the newer event (seq ${newerSequence})`;
  const fail = (status: number | null, ms: number, error: string): CheckResult => ({ name, passed: false, evidence: { status, ms, sent, expected, error } });

  // These deliveries are steps of this one check.
  for (const [label, event] of [
    ['property.changed', setup],
    ['newer', newer],
    ['older', older],
  ] as const) {
    const result = await send(name, event, { note: label }, 'accept');
    if (!result.passed)
      return fail(
        result.evidence.status,
        result.evidence.ms,
        `the ${label} delivery was not accepted: ${result.evidence.error ?? `status ${result.evidence.status}`}`,
      );
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
      const res = await fetch(url, {
        headers: options.readToken ? { Authorization: `Bearer ${options.readToken}` } : {},
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = res.status;
      const text = await res.text();
      if (res.ok) {
        const body = JSON.parse(text) as {
          dates?: Array<Record<string, unknown>>;
          data?: { dates?: Array<Record<string, unknown>>; data?: { dates?: Array<Record<string, unknown>> } };
        };
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
        : fail(
            status,
            ms,
            `night ${night} reads available_units ${String(row.available_units)}: the older event (seq ${olderSequence}) replaced the newer one (${String(wanted.available_units)})`,
          );
    }
    if (Date.now() > deadline) return fail(status, ms, `night ${night} never appeared in the state: ${error}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
