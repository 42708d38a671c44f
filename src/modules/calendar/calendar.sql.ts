import { sql, type Compilable, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { fromEpochDay, toEpochDay, type DateWindow } from '../../lib/time.js';
import type { BlockScope, CalendarNightsTable } from './calendar.tables.js';
import { inputsVersionOf } from '../properties/properties.lock.js';
import { activeUnitsSource, activeUnitsWithAliases, pricingQuery } from '../properties/properties.sql.js';

type Q = Kysely<DB> | Transaction<DB>;

export type CalendarKind = 'availability' | 'rates' | 'restrictions';

export interface PricingRow {
  weekday_base_price: number;
  weekday_per_night_occupancy: number;
  weekday_extra_adult_price: number;
  weekday_extra_child_price: number;
  weekend_base_price: number;
  weekend_per_night_occupancy: number;
  weekend_extra_adult_price: number;
  weekend_extra_child_price: number;
  gst_applicable: boolean;
  price_includes_gst: boolean;
}

export interface UnitRow {
  id: number;
  name: string;
  /** The receiving integration's alias for the unit; null without one (or without an integration). */
  external_unit_id: string | null;
}

export type NightRow = Omit<CalendarNightsTable, 'property_id'>;

export interface RulesRow {
  min_stay: number | null;
  max_stay: number | null;
  min_advance_days: number | null;
  max_advance_days: number | null;
}

/**
 * Everything the three payloads need for one property over a span of nights, read with a fixed,
 * small number of set-based queries (never one per night or per window): the builders slice it
 * per window in memory.
 */
export interface CalendarData {
  propertyId: number;
  pricing: PricingRow | null;
  /** Active units in position order. */
  units: UnitRow[];
  nights: Map<string, NightRow>;
  /** night → unit id → scope */
  unitBlocks: Map<string, Map<number, BlockScope>>;
  /** night → the unit ids held that night (active units only, each once) */
  holds: Map<string, number[]>;
  mealPlans: Array<{ code: string; adult_price: number; child_price: number }>;
  rules: RulesRow | null;
}

/** The calendar parts of a document, as the database sends them (see calendarOf). */
interface CalendarDoc {
  nights: NightRow[];
  pricing?: PricingRow | null;
  meal_plans?: CalendarData['mealPlans'];
  rules?: RulesRow | null;
  units?: Array<UnitRow & { position: number }>;
  unit_blocks?: Array<{ unit_id: number; night: string; block_scope: BlockScope }>;
  holds?: Array<[unit_id: number, offsets: number[]]>;
}

/**
 * Loads the calendar of a property for `span` (inclusive). `kinds` limits the reads to what the
 * requested payloads use; `integrationId` picks whose unit aliases appear (null: none).
 */
export async function loadCalendarData(
  db: Q,
  propertyId: number,
  span: DateWindow,
  kinds: ReadonlySet<CalendarKind>,
  integrationId: number | null,
  options: { excludeBookingId?: number | null } = {},
): Promise<CalendarData> {
  // One round trip: each part is aggregated to JSON inside the database and the whole answer
  // arrives as one text value. Row-by-row transfer costs far more than the queries themselves
  // (on PGlite every value crosses the WebAssembly boundary): ~3,000 holds of a busy 50-unit
  // property over 92 nights take ~30 ms as rows and ~5 ms as one JSON document.
  const parts = calendarParts(db, sql`${propertyId}::int`, span, kinds, integrationId, options);
  const { rows } = await sql<{ doc: string }>`select ${jsonObject(parts)}::text as doc`.execute(db);
  return calendarFromRow(propertyId, rows[0], span);
}

/** The calendar of loadCalendarData's row (property `propertyId`, read for `span`). */
export function calendarFromRow(propertyId: number, row: unknown, span: DateWindow): CalendarData {
  return calendarOf(propertyId, JSON.parse((row as { doc: string }).doc) as CalendarDoc, span);
}

/**
 * A snapshot's reads in one statement, so in one database snapshot without a transaction around
 * them: the property named by `property` (a query of its id and the integration's external_id,
 * or none), the integration's last sequence (the snapshot's watermark) and the calendar of
 * `span`. Its row goes to snapshotDataOf (null when the property query finds nothing). One
 * statement instead of five round trips (begin, property, sequence, calendar, commit): the 92-night,
 * 50-unit availability snapshot's p50 is 5.3–6.0 ms on PostgreSQL against 9.8–10.4 ms.
 *
 * Availability reads the holds as versioned per unit: `known` gives the units and hold versions
 * whose nights the caller already has (knownHoldsOf), which are not read again.
 */
export function snapshotDataQuery(
  db: Q,
  property: Compilable<{ id: number; external_id: string | null }>,
  lastSequence: Compilable<{ last_sequence: number | string }>,
  span: DateWindow,
  kind: CalendarKind,
  integrationId: number,
  known: KnownHolds,
): RawBuilder<{ doc: string | null }> {
  const parts = calendarParts(db, sql`(select id from prop)`, span, new Set([kind]), integrationId, kind === 'availability' ? { known } : {});
  return sql<{ doc: string | null }>`
    with prop as (${property})
    select case when exists (select 1 from prop) then json_build_object(
      'property', (select row_to_json(prop) from prop),
      'last_sequence', (${lastSequence}),
      'version', ${inputsVersionOf(sql`(select id from prop)`)},
      'calendar', ${jsonObject(parts)}
    )::text end as doc
  `;
}

/** The units and hold versions whose nights a rebuild already has, as snapshotDataQuery takes them. */
export interface KnownHolds {
  ids: number[];
  versions: string[];
}

export function knownHoldsOf(holds: UnitHolds | null): KnownHolds {
  const known: KnownHolds = { ids: [], versions: [] };
  for (const [unitId, { version }] of holds ?? []) {
    if (version === null) continue;
    known.ids.push(unitId);
    known.versions.push(version);
  }
  return known;
}

/** snapshotDataQuery's row: the head, the calendar, and (availability) the holds per unit. */
export function snapshotDataOf(
  row: { doc: string | null } | undefined,
  span: DateWindow,
  kind: CalendarKind,
  knownHolds: UnitHolds | null,
): (SnapshotHead & { data: CalendarData; holds: UnitHolds | null }) | null {
  if (row?.doc == null) return null;
  const doc = JSON.parse(row.doc) as {
    property: SnapshotHead['property'];
    last_sequence: number | string;
    version: string | null;
    calendar: Omit<CalendarDoc, 'holds'> & { holds?: VersionedHolds };
  };
  const holds = kind === 'availability' ? mergeHolds(doc.calendar.holds ?? [], knownHolds) : null;
  const calendar: CalendarDoc = { ...doc.calendar, holds: holds ? heldUnits(holds) : undefined };
  return {
    property: doc.property,
    lastSequence: Number(doc.last_sequence),
    version: doc.version,
    data: calendarOf(doc.property.id, calendar, span),
    holds,
  };
}

/**
 * The nights (offsets from the window's first) each active unit holds in one window, with the
 * unit's hold version they were read at (null: the unit has no version yet). Kept with a cached
 * snapshot, so that its rebuild reads again only the holds of units whose version moved.
 */
export type UnitHolds = Map<number, { version: string | null; nights: number[] | null }>;

/** Per active unit: [id, version] when the known holds stand, [id, version, nights] when read. */
type VersionedHolds = Array<[unitId: number, version: string | null] | [unitId: number, version: string | null, nights: number[] | null]>;

function mergeHolds(rows: VersionedHolds, known: UnitHolds | null): UnitHolds {
  const out: UnitHolds = new Map();
  for (const row of rows) {
    const [unitId, version] = row;
    if (row.length === 3) {
      out.set(unitId, { version, nights: row[2] });
      continue;
    }
    const kept = known?.get(unitId);
    // the statement reuses only what it was given, at the same version
    if (!kept || kept.version !== version) throw new Error(`holds of unit ${unitId} were neither read nor known at version ${version}`);
    out.set(unitId, kept);
  }
  return out;
}

function heldUnits(holds: UnitHolds): Array<[number, number[]]> {
  const out: Array<[number, number[]]> = [];
  for (const [unitId, { nights }] of holds) if (nights) out.push([unitId, nights]);
  return out;
}

/** What a snapshot reads besides the calendar: the property, the watermark, the property's inputs version. */
export interface SnapshotHead {
  property: { id: number; external_id: string | null };
  lastSequence: number;
  /** The property's inputs version (inputsVersionOf); null before its first touchInputsVersion. */
  version: string | null;
}

/**
 * snapshotDataQuery without the calendar, in one statement: enough to serve a snapshot built at a
 * version that still stands. Its row goes to snapshotHeadOf (null when the property query finds
 * nothing).
 */
export function snapshotHeadQuery(
  property: Compilable<{ id: number; external_id: string | null }>,
  lastSequence: Compilable<{ last_sequence: number | string }>,
): RawBuilder<SnapshotHeadRow> {
  return sql<SnapshotHeadRow>`
    with prop as (${property})
    select prop.id, prop.external_id, (${lastSequence}) as last_sequence,
      ${inputsVersionOf(sql`prop.id`)} as version
    from prop
  `;
}

interface SnapshotHeadRow {
  id: number;
  external_id: string | null;
  last_sequence: number | string;
  version: string | null;
}

export function snapshotHeadOf(row: SnapshotHeadRow | undefined): SnapshotHead | null {
  if (!row) return null;
  return { property: { id: row.id, external_id: row.external_id }, lastSequence: Number(row.last_sequence), version: row.version };
}

/**
 * Moves the hold versions of the units in `units` (a query with a `unit_id` column, each unit
 * once), part of the statement that writes their holds (see the unit_hold_versions migration).
 */
export function touchUnitHoldsQuery(units: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into unit_hold_versions (unit_id, version) select t.unit_id, nextval('calendar_version_seq') from (${units}) as t
    on conflict (unit_id) do update set version = excluded.version`;
}

const jsonObject = (parts: Record<string, RawBuilder<unknown>>) =>
  sql`json_build_object(${sql.join(Object.entries(parts).map(([name, part]) => sql`${sql.lit(name)}, ${part}`))})`;

function calendarParts(
  db: Q,
  propertyId: RawBuilder<number>,
  span: DateWindow,
  kinds: ReadonlySet<CalendarKind>,
  integrationId: number | null,
  options: { excludeBookingId?: number | null; known?: KnownHolds },
): Record<string, RawBuilder<unknown>> {
  const parts: Record<string, RawBuilder<unknown>> = {
    nights: jsonRows(
      db
        .selectFrom('calendar_nights')
        .select([
          'night',
          'block_scope',
          'units_cap',
          'base_price',
          'extra_adult_price',
          'extra_child_price',
          'min_stay',
          'max_stay',
          'stop_sell',
          'closed_to_arrival',
          'closed_to_departure',
        ])
        .where('property_id', '=', propertyId)
        .where('night', '>=', span.from)
        .where('night', '<=', span.to),
    ),
  };
  if (kinds.has('rates')) {
    parts.pricing = jsonRow(pricingQuery(db, propertyId));
    parts.meal_plans = jsonRows(db.selectFrom('meal_plans').select(['code', 'adult_price', 'child_price']).where('property_id', '=', propertyId));
  }
  if (kinds.has('restrictions')) {
    parts.rules = jsonRow(
      db.selectFrom('booking_rules').select(['min_stay', 'max_stay', 'min_advance_days', 'max_advance_days']).where('property_id', '=', propertyId),
    );
  }
  if (kinds.has('availability')) {
    parts.units = jsonRows(activeUnitsWithAliases(db, propertyId, integrationId));
    parts.unit_blocks = jsonRows(
      db
        .selectFrom('unit_blocks as b')
        .innerJoin(activeUnitsSource(db, propertyId).as('u'), 'u.id', 'b.unit_id')
        .select(['b.unit_id', 'b.night', 'b.block_scope'])
        .where('b.night', '>=', span.from)
        .where('b.night', '<=', span.to),
    );
    // The largest part (a row per unit and night held) is grouped per unit in the database:
    // [[unit_id, [night offsets from span.from…]], …]. Which booking holds a night is not carried:
    // nothing here needs it, and leaving out a second array took the first availability read
    // after a change (p50) from 2.4–2.7 to 2.3–2.4 ms on PostgreSQL and from 4.5–4.8 to 4.0–4.2 ms
    // on PGlite. Each unit's nights are gathered by its own range of the (unit_id, night) key: a
    // join grouped by unit sorted all the window's holds first (3,105 rows on the bench property).
    // The whole statement went from 1.58 to 1.31 ms (unnamed, planning included), and the first
    // read after a change from 2.3–2.4 to 2.1–2.2 ms (p50, PostgreSQL) and 4.0–4.2 to 3.8 (PGlite).
    const exclude = options.excludeBookingId ?? null;
    parts.holds = options.known
      ? versionedHolds(db, propertyId, span, options.known)
      : sql`(select coalesce(json_agg(json_build_array(u.id, held.nights)), '[]'::json)
      from (${activeUnitsSource(db, propertyId)}) as u cross join lateral (
        select array_agg(h.night - ${span.from}::date) as nights from unit_nights h
        where h.unit_id = u.id and h.night >= ${span.from}::date and h.night <= ${span.to}::date
          ${exclude === null ? sql`` : sql`and h.booking_id <> ${exclude}`}
      ) as held
      where held.nights is not null)`;
  }
  return parts;
}

/**
 * The holds part of a snapshot's rebuild: every active unit with its hold version, and its nights
 * only when they are not among `known` at that version. A unit whose version is unchanged costs one
 * key lookup instead of a range scan of its holds (a row per night held): after a host edit of a
 * 50-unit property none is read again, after a booking only its units.
 */
function versionedHolds(db: Q, propertyId: RawBuilder<number>, span: DateWindow, known: KnownHolds): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(case when k.version = hv.version
        then json_build_array(u.id, hv.version::text)
        else json_build_array(u.id, hv.version::text, (
          select array_agg(h.night - ${span.from}::date) from unit_nights h
          where h.unit_id = u.id and h.night >= ${span.from}::date and h.night <= ${span.to}::date)) end), '[]'::json)
    from (${activeUnitsSource(db, propertyId)}) as u
      left join unit_hold_versions hv on hv.unit_id = u.id
      left join unnest(${known.ids}::int[], ${known.versions}::bigint[]) as k(unit_id, version) on k.unit_id = u.id)`;
}

function calendarOf(propertyId: number, doc: CalendarDoc, span: DateWindow): CalendarData {
  return {
    propertyId,
    pricing: doc.pricing ?? null,
    units: sortUnits(doc.units ?? []),
    nights: new Map(doc.nights.map((n) => [n.night, n])),
    unitBlocks: groupByNight(doc.unit_blocks ?? [], (b) => b.block_scope),
    holds: heldByNight(doc.holds ?? [], span.from),
    mealPlans: doc.meal_plans ?? [],
    rules: doc.rules ?? null,
  };
}

function heldByNight(perUnit: Array<[number, number[]]>, from: string): Map<string, number[]> {
  // One list per night offset, named once: formatting a date per hold was a tenth of a 92-night,
  // 50-unit snapshot's service time (3,000+ holds, 92 distinct nights). Lists, not sets: a unit
  // holds a night once (the unit_nights key), and an append costs a fraction of a set insert.
  const byOffset: Array<number[] | undefined> = [];
  for (const [unitId, offsets] of perUnit) {
    for (const offset of offsets) (byOffset[offset] ??= []).push(unitId);
  }
  const out = new Map<string, number[]>();
  const epoch = toEpochDay(from);
  byOffset.forEach((units, offset) => {
    if (units) out.set(fromEpochDay(epoch + offset), units);
  });
  return out;
}

/** `[row, …]` of a query, as one JSON value (numbers, strings, booleans, dates as YYYY-MM-DD). */
function jsonRows(query: Compilable): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(t), '[]'::json) from (${query}) as t)`;
}

/** The first row of a query as a JSON object, or null. */
function jsonRow(query: Compilable): RawBuilder<unknown> {
  return sql`(select row_to_json(t) from (${query}) as t limit 1)`;
}

function sortUnits(units: Array<UnitRow & { position: number }>): UnitRow[] {
  return units.sort((a, b) => a.position - b.position || a.id - b.id).map((u) => ({ id: u.id, name: u.name, external_unit_id: u.external_unit_id }));
}

function groupByNight<R extends { night: string; unit_id: number }, V>(rows: R[], value: (row: R) => V): Map<string, Map<number, V>> {
  const out = new Map<string, Map<number, V>>();
  for (const row of rows) {
    let perUnit = out.get(row.night);
    if (!perUnit) out.set(row.night, (perUnit = new Map<number, V>()));
    perUnit.set(row.unit_id, value(row));
  }
  return out;
}
