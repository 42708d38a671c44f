import { dataClock } from '../../lib/clock.js';
/** The partner's snapshot reads (contract: Snapshots): availability, rates or restrictions of a window, with its watermark. */
import type { Deps } from '../../deps.js';
import { successJson } from '../../http/envelope.js';
import { FieldErrorCollector, notFound } from '../../http/errors.js';
import { addDays, DATE_MESSAGE, daysBetween, isValidDate, kolkataDate, type DateWindow } from '../../lib/time.js';
import { statementTemplate } from '../../db/statement-template.js';
import { lastSequenceQuery } from '../integrations/integrations.sql.js';
import { coveredPropertyBy, propertyRefId, requireCoveredProperty } from '../properties/properties.resolve.js';
import { buildPayload, calendarSettings, type CalendarKind } from './calendar.payloads.js';
import { SnapshotCache } from './calendar.snapshot-cache.js';
import {
  knownHoldsOf,
  snapshotDataOf,
  snapshotDataQuery,
  snapshotHeadOf,
  snapshotHeadQuery,
  type KnownHolds,
  type SnapshotHead,
  type UnitHolds,
} from './calendar.sql.js';

export const SNAPSHOT_MAX_NIGHTS = 92;
export const SNAPSHOT_HORIZON_DAYS = 730;

/** Checks a snapshot window (contract: Snapshots); every refusal of the window is keyed on `to`. */
export function validateSnapshotWindow(query: { from?: unknown; to?: unknown }, today: string): DateWindow {
  const errors = new FieldErrorCollector();
  const { from, to } = query;
  if (from === undefined || from === '') errors.add('from', 'is required');
  else if (!isValidDate(from)) errors.add('from', DATE_MESSAGE);
  if (to === undefined || to === '') errors.add('to', 'is required');
  else if (!isValidDate(to)) errors.add('to', DATE_MESSAGE);
  errors.throwIfAny();
  const window = { from: from as string, to: to as string };
  const horizon = addDays(today, SNAPSHOT_HORIZON_DAYS);
  if (window.to < window.from) errors.add('to', 'must be on or after from');
  else if (daysBetween(window.from, window.to) + 1 > SNAPSHOT_MAX_NIGHTS) {
    errors.add('to', `the window must not exceed ${SNAPSHOT_MAX_NIGHTS} days (from ${window.from}, at most ${addDays(window.from, SNAPSHOT_MAX_NIGHTS - 1)})`);
  }
  if (window.to > horizon) errors.add('to', `must not be more than ${SNAPSHOT_HORIZON_DAYS} days ahead of today (at most ${horizon})`);
  errors.throwIfAny();
  return window;
}

export interface Snapshot {
  sequence: number;
  property: { doorloom_id: number; external_id: string | null };
  window: DateWindow;
  /** The payload, as JSON (an availability payload may be one built earlier at the same inputs version). */
  dataJson: string;
}

/**
 * A snapshot of one payload type for one window, with its watermark.
 *
 * Why the watermark is safe: the sequence and the payload come from ONE statement, i.e. one
 * database snapshot. Every write records its events (bumping integrations.last_sequence) in the
 * same transaction as the change itself. So a concurrent write is either committed before our
 * snapshot (its change is in the payload AND its events are at or below the watermark, already
 * included) or not (its change is absent AND its events get sequences above the watermark, which
 * the partner applies on top). No write can be missing both from the payload and from the events
 * after the watermark. On PGlite statements are serialised outright, which gives the same
 * guarantee.
 *
 * An availability payload built earlier is sent again when the statement that reads the watermark
 * finds the property's calendar at the version it was built at (calendar.snapshot-cache.ts): the
 * payload is then the one this database snapshot would build. On the 92-night, 50-unit bench
 * property, repeated reads went from a p50 of 2.3 to 0.7 ms on PostgreSQL (CPU per read: service
 * 1.35 → 0.55 ms, PostgreSQL 1.2 → 0.1 ms) and from 3.8 to 1.0 ms on PGlite. The first read after
 * a change makes both statements: 2.0–2.2 ms on PostgreSQL, 3.8–4.0 on PGlite (after the holds
 * query of calendar.sql was reworked). Checking the version inside the big statement instead (one
 * round trip either way) measured 0.9 / 1.6 ms for repeated reads and 2.6 / 4.1 after a change (at
 * 2.7 / 4.8 for this way then): every read then builds and sends the whole calendar query, and
 * PGlite, which runs no named statements, plans it.
 *
 * A rebuild after a change reads again only the holds of units whose hold version moved (see the
 * unit_hold_versions migration); the others come from the entry it replaces. Measured in-process on
 * a slow host, the rebuild's statement (with its parse) went from 1.6–2.1 to 0.9–1.2 ms on
 * PostgreSQL and from 2.4–2.6 to 1.0–1.2 ms on PGlite, whether no unit's holds moved (a host edit)
 * or five of the fifty did (a booking). Through the routes, reads after a host edit interleaved
 * with reads whose kept holds were dropped: p50 4.3 against 5.1 ms on PostgreSQL, 3.2 against 4.6
 * ms on PGlite.
 */
export async function readSnapshot(
  deps: Deps,
  integrationId: number,
  propertyRef: string,
  kind: CalendarKind,
  query: { from?: unknown; to?: unknown },
  options: { refresh?: boolean } = {},
): Promise<Snapshot> {
  let window: DateWindow;
  try {
    window = validateSnapshotWindow(query, kolkataDate(dataClock(deps.clock, 'today', { integrationId }).now()));
  } catch (error) {
    // An unknown property answers 404 whatever the query.
    await requireCoveredProperty(deps.db, integrationId, propertyRef);
    throw error;
  }
  const snapshot = (head: SnapshotHead, dataJson: string): Snapshot => ({
    sequence: head.lastSequence,
    property: { doorloom_id: head.property.id, external_id: head.property.external_id },
    window,
    dataJson,
  });
  const ask: SnapshotAsk = { integrationId, ref: propertyRef, refId: propertyRefId(propertyRef) };
  const cache = kind === 'availability' ? deps.state.snapshots : null;
  const key = SnapshotCache.key(integrationId, propertyRef, window.from, window.to);
  // This process is rebuilding the window after its own write (calendar.snapshot-refresh.ts): the
  // version is checked while the rebuild runs, and the rebuilt entry served if it is still current.
  const rebuilding = options.refresh ? undefined : cache?.rebuilding(key);
  const [checked] = rebuilding ? await Promise.all([loadSnapshotHead(deps, ask), rebuilding.done]) : [undefined];
  const cached = cache?.get(key);
  let knownHolds = null;
  const mark = deps.state.snapshots.touchMark();
  // Written by this process since it was kept: the version moved, no need to ask (hint only).
  if (cached && !rebuilding && deps.state.snapshots.touchedSince(cached)) knownHolds = cached.holds;
  else if (cached) {
    const head = checked ?? (await loadSnapshotHead(deps, ask));
    if (!head) throw notFound('No such property.');
    if (head.property.id === cached.propertyId && head.version === cached.version) {
      if (!options.refresh) {
        cached.read = true;
        deps.metrics?.availabilitySnapshot('kept');
      }
      return snapshot(head, cached.json);
    }
    // The property's version moved: its units whose hold version stands keep their holds.
    if (head.property.id === cached.propertyId) knownHolds = cached.holds;
  }
  // One statement, so one database snapshot: the watermark and the calendar agree.
  const read = await loadSnapshotData(deps, ask, window, kind, knownHolds);
  if (!read) throw notFound('No such property.');
  const dataJson = JSON.stringify(buildPayload(kind, read.data, window, calendarSettings(deps.config)));
  if (kind === 'availability') deps.metrics?.availabilitySnapshot(options.refresh ? 'rebuilt_after_write' : 'built');
  if (cache && read.version !== null) {
    cache.set(key, {
      request: { integrationId, propertyRef, window },
      propertyId: read.property.id,
      version: read.version,
      touch: deps.state.snapshots.touchSince(read.property.id, mark),
      json: dataJson,
      holds: read.holds,
      read: !options.refresh,
    });
  } else cache?.delete(key);
  return snapshot(read, dataJson);
}

/** What a snapshot's statements are asked for; whether the segment can be a service id shapes them. */
export interface SnapshotAsk {
  integrationId: number;
  ref: string;
  refId: number | null;
}
type RefShape = 'id' | 'ref';
const refShapeOf = (ask: SnapshotAsk): RefShape => (ask.refId === null ? 'ref' : 'id');

/**
 * The snapshot statements, built once per shape (db/statement-template.ts). Measured in-process on
 * the bench property (92 nights, 50 units): measured with the bench.
 */
const headStatement = statementTemplate((v: SnapshotAsk, shape: RefShape, db) =>
  snapshotHeadQuery(coveredPropertyBy(db, v.integrationId, v.ref, shape === 'id' ? v.refId : null), lastSequenceQuery(db, v.integrationId)),
);
const dataStatement = statementTemplate(
  (v: SnapshotAsk & { from: string; to: string; knownIds: number[]; knownVersions: string[] }, shape: `${RefShape} ${CalendarKind}`, db) => {
    const [ref, kind] = shape.split(' ') as [RefShape, CalendarKind];
    const property = coveredPropertyBy(db, v.integrationId, v.ref, ref === 'id' ? v.refId : null);
    return snapshotDataQuery(db, property, lastSequenceQuery(db, v.integrationId), { from: v.from, to: v.to }, kind, v.integrationId, {
      ids: v.knownIds,
      versions: v.knownVersions,
    });
  },
);

/** The snapshot's head statement (snapshotHeadQuery) for `ask`; exported for its test. */
export function snapshotHeadStatement(ask: SnapshotAsk) {
  return headStatement<Parameters<typeof snapshotHeadOf>[0]>(refShapeOf(ask), ask);
}

/** The snapshot's data statement (snapshotDataQuery) for `ask`; exported for its test. */
export function snapshotDataStatement(ask: SnapshotAsk, window: DateWindow, kind: CalendarKind, known: KnownHolds) {
  const values = { ...ask, from: window.from, to: window.to, knownIds: known.ids, knownVersions: known.versions };
  return dataStatement<{ doc: string | null }>(`${refShapeOf(ask)} ${kind}`, values);
}

async function loadSnapshotHead(deps: Deps, ask: SnapshotAsk): Promise<SnapshotHead | null> {
  const { rows } = await snapshotHeadStatement(ask).execute(deps.db);
  return snapshotHeadOf(rows[0]);
}

async function loadSnapshotData(deps: Deps, ask: SnapshotAsk, window: DateWindow, kind: CalendarKind, knownHolds: UnitHolds | null) {
  const { rows } = await snapshotDataStatement(ask, window, kind, knownHoldsOf(knownHolds)).execute(deps.db);
  return snapshotDataOf(rows[0], window, kind, knownHolds);
}

/** A snapshot's response body: the success envelope around it. */
export function snapshotBody(message: string, s: Snapshot): string {
  const head = JSON.stringify({ sequence: s.sequence, property: s.property, window: s.window });
  return successJson(message, `${head.slice(0, -1)},"data":${s.dataJson}}`);
}
