import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { roundMoney } from '../../lib/money.js';
import { dayOfWeek, eachDate, type DateWindow } from '../../lib/time.js';
import type { EventDraft, EventTarget } from '../events/events.log.js';
import { loadCalendarData, type CalendarData, type CalendarKind, type NightRow, type RulesRow } from './calendar.sql.js';
import type { BlockScope } from './calendar.tables.js';

export type { CalendarKind } from './calendar.sql.js';

/**
 * The payload builders of availability.changed, rates.changed and restrictions.changed. The
 * snapshots and every event of a type use the same builder over the same loaded data, so a
 * snapshot's `data` equals the matching event's `data` for the same window and state.
 */

export interface CalendarSettings {
  /** The platform maximum stay (MAX_STAY_NIGHTS): the default max_stay. */
  maxStayNights: number;
}

export const calendarSettings = (config: { maxStayNights: number }): CalendarSettings => ({ maxStayNights: config.maxStayNights });

export const DEFAULT_RULES = { min_stay: 1, min_advance_days: 0, max_advance_days: 730 } as const;

// ---------------------------------------------------------------------------------------------
// Payload shapes (decisions §5)

export interface AvailabilityDate {
  date: string;
  available_units: number;
  total_units: number;
  is_blocked: boolean;
  block_scope: BlockScope | null;
  units_cap: number | null;
}

export interface AvailabilityPayload {
  total_units: number;
  units: Array<{ inventory_id: number; external_unit_id: string | null; name: string; unavailable: string[] }>;
  dates: AvailabilityDate[];
}

export interface RateRow {
  date: string;
  base_price: number;
  per_night_occupancy: number;
  extra_adult_price: number;
  extra_child_price: number;
  source: 'weekday' | 'weekend' | 'override';
}

export interface MealPlan {
  code: string;
  name: string;
  adult_price: number;
  child_price: number;
}

export interface RatesPayload {
  currency: 'INR';
  gst_applicable: boolean;
  price_includes_gst: boolean;
  meal_plans: MealPlan[];
  dates: RateRow[];
}

export interface RestrictionRules {
  min_stay: number;
  max_stay: number;
  min_advance_days: number;
  max_advance_days: number;
}

export interface RestrictionRow {
  date: string;
  min_stay: number;
  max_stay: number;
  stop_sell: boolean;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
}

export interface RestrictionsPayload {
  rules: RestrictionRules;
  dates: RestrictionRow[];
}

export const MEAL_PLAN_CODES = ['EP', 'CP', 'MAP', 'AP'] as const;
export type MealPlanCode = (typeof MEAL_PLAN_CODES)[number];

export const MEAL_PLAN_NAMES: Record<MealPlanCode, string> = {
  EP: 'Room only',
  CP: 'Room with breakfast',
  MAP: 'Room with breakfast and one main meal',
  AP: 'Room with all meals',
};

// ---------------------------------------------------------------------------------------------
// Per-night rules shared with booking availability

const NO_NIGHT: NightRow = {
  night: '',
  block_scope: null,
  units_cap: null,
  base_price: null,
  extra_adult_price: null,
  extra_child_price: null,
  min_stay: null,
  max_stay: null,
  stop_sell: null,
  closed_to_arrival: null,
  closed_to_departure: null,
};

export function nightOf(data: CalendarData, date: string): NightRow {
  return data.nights.get(date) ?? NO_NIGHT;
}

/**
 * available_units (decisions §5): 0 when the property is blocked `everywhere`; otherwise the
 * night's capacity, min(total_units, units_cap ?? total_units), minus the units held that night,
 * and never more than the units that are actually free (a unit blocked `everywhere` cannot be
 * sold even under the cap); not below 0.
 */
function availableUnits(night: NightRow, total: number, held: number, unavailable: number): number {
  if (night.block_scope === 'everywhere') return 0;
  const capacity = Math.min(total, night.units_cap ?? total) - held;
  return Math.max(0, Math.min(capacity, total - unavailable));
}

// ---------------------------------------------------------------------------------------------
// Builders

/**
 * A unit is unavailable on a night to everyone when a booking holds it, or it or the whole
 * property is blocked `everywhere`; an `ota_only` block keeps its count (decisions §5). The
 * night's unavailable units are marked in one reused array by position, not gathered into a set
 * per night. With the holds as lists (calendarOf), the service's part of an availability rebuild
 * of the 92-night, 50-unit bench property (parse, calendarOf, this builder, serialising) went from
 * 640–660 to 495–520 µs in-process, for the same bytes (measured in-process).
 */
export function buildAvailability(data: CalendarData, window: DateWindow): AvailabilityPayload {
  const dates = eachDate(window.from, window.to);
  const units = data.units;
  const total = units.length;
  const position = new Map<number, number>(units.map((u, i) => [u.id, i]));
  const unavailableByUnit: string[][] = units.map(() => []);
  const marked = new Uint8Array(total);
  const rows: AvailabilityDate[] = dates.map((date) => {
    const night = nightOf(data, date);
    const held = data.holds.get(date);
    let unavailable = 0;
    if (night.block_scope === 'everywhere') {
      for (const list of unavailableByUnit) list.push(date);
      unavailable = total;
    } else {
      marked.fill(0);
      const mark = (unitId: number) => {
        const i = position.get(unitId);
        if (i !== undefined && marked[i] === 0) {
          marked[i] = 1;
          unavailable++;
        }
      };
      if (held) for (const unitId of held) mark(unitId);
      const blocked = data.unitBlocks.get(date);
      if (blocked) for (const [unitId, scope] of blocked) if (scope === 'everywhere') mark(unitId);
      if (unavailable > 0) for (let i = 0; i < total; i++) if (marked[i] === 1) unavailableByUnit[i].push(date);
    }
    return {
      date,
      available_units: availableUnits(night, total, held?.length ?? 0, unavailable),
      total_units: total,
      is_blocked: night.block_scope !== null,
      block_scope: night.block_scope,
      units_cap: night.units_cap,
    };
  });
  return {
    total_units: total,
    units: units.map((u, i) => ({
      inventory_id: u.id,
      external_unit_id: u.external_unit_id,
      name: u.name,
      unavailable: unavailableByUnit[i],
    })),
    dates: rows,
  };
}

export function mealPlansOf(data: CalendarData): MealPlan[] {
  const stored = new Map(data.mealPlans.map((m) => [m.code, m]));
  const out: MealPlan[] = [{ code: 'EP', name: MEAL_PLAN_NAMES.EP, adult_price: 0, child_price: 0 }];
  for (const code of MEAL_PLAN_CODES) {
    const plan = code === 'EP' ? undefined : stored.get(code);
    if (plan) out.push({ code, name: MEAL_PLAN_NAMES[code], adult_price: roundMoney(plan.adult_price), child_price: roundMoney(plan.child_price) });
  }
  return out;
}

/** Sunday–Thursday nights are priced as weekday, Friday and Saturday nights as weekend. */
export function isWeekendNight(date: string): boolean {
  const dow = dayOfWeek(date);
  return dow === 5 || dow === 6;
}

export function buildRates(data: CalendarData, window: DateWindow): RatesPayload {
  const p = data.pricing;
  if (!p) throw new Error(`rates of property ${data.propertyId} were not loaded`);
  const rows = eachDate(window.from, window.to).map((date): RateRow => {
    const weekend = isWeekendNight(date);
    const night = nightOf(data, date);
    const overridden = night.base_price !== null || night.extra_adult_price !== null || night.extra_child_price !== null;
    return {
      date,
      base_price: roundMoney(night.base_price ?? (weekend ? p.weekend_base_price : p.weekday_base_price)),
      per_night_occupancy: weekend ? p.weekend_per_night_occupancy : p.weekday_per_night_occupancy,
      extra_adult_price: roundMoney(night.extra_adult_price ?? (weekend ? p.weekend_extra_adult_price : p.weekday_extra_adult_price)),
      extra_child_price: roundMoney(night.extra_child_price ?? (weekend ? p.weekend_extra_child_price : p.weekday_extra_child_price)),
      source: overridden ? 'override' : weekend ? 'weekend' : 'weekday',
    };
  });
  return {
    currency: 'INR',
    gst_applicable: p.gst_applicable,
    price_includes_gst: p.price_includes_gst,
    meal_plans: mealPlansOf(data),
    dates: rows,
  };
}

/** The effective booking rules: stored values over the platform defaults. */
export function rulesOf(r: RulesRow | null, settings: CalendarSettings): RestrictionRules {
  return {
    min_stay: r?.min_stay ?? DEFAULT_RULES.min_stay,
    max_stay: r?.max_stay ?? settings.maxStayNights,
    min_advance_days: r?.min_advance_days ?? DEFAULT_RULES.min_advance_days,
    max_advance_days: r?.max_advance_days ?? DEFAULT_RULES.max_advance_days,
  };
}

export function buildRestrictions(data: CalendarData, window: DateWindow, settings: CalendarSettings): RestrictionsPayload {
  const rules = rulesOf(data.rules, settings);
  return {
    rules,
    dates: eachDate(window.from, window.to).map((date) => {
      const night = nightOf(data, date);
      return {
        date,
        min_stay: night.min_stay ?? rules.min_stay,
        max_stay: night.max_stay ?? rules.max_stay,
        stop_sell: night.stop_sell ?? false,
        closed_to_arrival: night.closed_to_arrival ?? false,
        closed_to_departure: night.closed_to_departure ?? false,
      };
    }),
  };
}

/** Restrictions depend on the settings (the default max_stay); availability and rates do not. */
export function buildPayload(kind: 'availability' | 'rates', data: CalendarData, window: DateWindow): AvailabilityPayload | RatesPayload;
export function buildPayload(
  kind: CalendarKind,
  data: CalendarData,
  window: DateWindow,
  settings: CalendarSettings,
): AvailabilityPayload | RatesPayload | RestrictionsPayload;
export function buildPayload(kind: CalendarKind, data: CalendarData, window: DateWindow, settings?: CalendarSettings) {
  switch (kind) {
    case 'availability':
      return buildAvailability(data, window);
    case 'rates':
      return buildRates(data, window);
    case 'restrictions':
      return buildRestrictions(data, window, settings!);
  }
}

// ---------------------------------------------------------------------------------------------
// Events

const KIND_ORDER: CalendarKind[] = ['availability', 'rates', 'restrictions'];

/** The smallest window holding every given window. */
export function spanOf(windows: DateWindow[]): DateWindow {
  let from = windows[0].from;
  let to = windows[0].to;
  for (const w of windows) {
    if (w.from < from) from = w.from;
    if (w.to > to) to = w.to;
  }
  return { from, to };
}

/**
 * The availability/rates/restrictions events of a property for one receiving integration, in
 * type-major order (every availability window, then rates, then restrictions), each carrying
 * exactly the payload the matching snapshot returns for that window. The calendar is read once
 * over the span of all windows (a handful of set-based queries) and sliced per window, so a
 * property create's ~13 months × 3 types costs the same few queries as one window.
 * Callers clamp windows to the target's horizon beforehand (horizonWindows / clampToHorizon).
 */
export async function calendarEventDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  kinds: Array<'availability' | 'rates'>,
  windows: DateWindow[],
  target: EventTarget,
): Promise<EventDraft[]>;
export async function calendarEventDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  kinds: CalendarKind[],
  windows: DateWindow[],
  target: EventTarget,
  settings: CalendarSettings,
): Promise<EventDraft[]>;
export async function calendarEventDrafts(
  trx: Transaction<DB>,
  propertyId: number,
  kinds: CalendarKind[],
  windows: DateWindow[],
  target: EventTarget,
  settings?: CalendarSettings,
): Promise<EventDraft[]> {
  if (windows.length === 0 || kinds.length === 0) return [];
  const wanted = new Set(kinds);
  const data = await loadCalendarData(trx, propertyId, spanOf(windows), wanted, target.integrationId);
  const drafts: EventDraft[] = [];
  for (const kind of KIND_ORDER) {
    if (!wanted.has(kind)) continue;
    for (const window of windows) {
      drafts.push({ type: `${kind}.changed`, window: { from: window.from, to: window.to }, data: buildPayload(kind, data, window, settings!) });
    }
  }
  return drafts;
}
