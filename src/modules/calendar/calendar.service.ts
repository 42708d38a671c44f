import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import { FieldErrorCollector } from '../../http/errors.js';
import type { DateWindow } from '../../lib/time.js';
import type { AppendResult, UnitOfWork } from '../events/events.log.js';
import { buildPayload, mealPlansOf, rulesOf } from './calendar.payloads.js';
import { selectUnitIdsOf, unitsSource, updateTaxFlags } from '../properties/properties.sql.js';
import { appendCalendarEvents } from './calendar.events.js';
import { checkNights, hostEdit, propertyToday, setNights, settingsOf, type HostEditResult } from './calendar.host-edit.js';
import { loadCalendarData } from './calendar.sql.js';
import type { BlockScope, MealPlansTable } from './calendar.tables.js';

// ---------------------------------------------------------------------------------------------
// Host calendar edits (staff API, decisions §9)

export interface CalendarEdit {
  from?: unknown;
  to?: unknown;
  inventory_ids?: number[];
  block_scope?: BlockScope | null;
  units_cap?: number | null;
}

/** PUT /properties/{id}/calendar: blocks (property-wide or chosen units) and units caps. */
export async function setCalendar(deps: Deps, propertyId: number, body: CalendarEdit): Promise<HostEditResult> {
  const errors = new FieldErrorCollector();
  const window = checkNights(errors, body.from, body.to, await propertyToday(deps, propertyId));
  if (body.block_scope === undefined && body.units_cap === undefined) errors.add('block_scope', 'block_scope or units_cap is required');
  return hostEdit(deps, propertyId, async (trx) => {
    const unitIds = [...new Set(body.inventory_ids ?? [])];
    if (unitIds.length > 0) {
      const owned = await selectUnitIdsOf(trx, propertyId, unitIds);
      body.inventory_ids!.forEach((id, i) => {
        if (!owned.has(id)) errors.add(`inventory_ids.${i}`, 'is not a unit of this property');
      });
    }
    errors.throwIfAny();
    const w = window!;
    if (body.units_cap !== undefined) setNights(trx, propertyId, w, { units_cap: body.units_cap });
    if (body.block_scope !== undefined) {
      if (unitIds.length === 0) {
        setNights(trx, propertyId, w, { block_scope: body.block_scope });
      } else if (body.block_scope === null) {
        trx.send(trx.deleteFrom('unit_blocks').where('unit_id', 'in', unitIds).where('night', '>=', w.from).where('night', '<=', w.to));
      } else {
        trx.send(sql`
          insert into unit_blocks (unit_id, night, block_scope)
          select u.id, d::date, ${body.block_scope}::text
          from (${unitsSource(trx, propertyId)}) as u cross join generate_series(${w.from}::date, ${w.to}::date, interval '1 day') as d
          where u.id in (${sql.join(unitIds)})
          on conflict (unit_id, night) do update set block_scope = excluded.block_scope
        `);
      }
    }
    const appended = await appendCalendarEvents(trx, {
      clock: deps.clock,
      propertyId,
      actorIntegrationId: null,
      kinds: ['availability'],
      nights: w,
      settings: settingsOf(deps),
    });
    const data = await loadCalendarData(trx, propertyId, w, new Set(['availability']), null);
    return { result: { doorloom_id: propertyId, window: w, data: buildPayload('availability', data, w) }, appended };
  });
}

export interface RatesEdit {
  from?: unknown;
  to?: unknown;
  base_price?: number | null;
  extra_adult_price?: number | null;
  extra_child_price?: number | null;
  clear?: boolean;
}

/** PUT /properties/{id}/rates: per-night overrides (source "override"), or `clear: true`. */
export async function setRateOverrides(deps: Deps, propertyId: number, body: RatesEdit): Promise<HostEditResult> {
  const errors = new FieldErrorCollector();
  const window = checkNights(errors, body.from, body.to, await propertyToday(deps, propertyId));
  const prices = (['base_price', 'extra_adult_price', 'extra_child_price'] as const).filter((k) => body[k] !== undefined);
  if (body.clear === true && prices.length > 0) errors.add('clear', 'cannot be combined with prices');
  if (body.clear !== true && prices.length === 0)
    errors.add('base_price', 'base_price, extra_adult_price or extra_child_price is required, unless clear is true');
  return hostEdit(deps, propertyId, async (trx) => {
    errors.throwIfAny();
    const w = window!;
    if (body.clear === true) {
      setNights(trx, propertyId, w, { base_price: null, extra_adult_price: null, extra_child_price: null });
    } else {
      setNights(trx, propertyId, w, Object.fromEntries(prices.map((k) => [k, body[k]])));
    }
    const appended = await appendCalendarEvents(trx, {
      clock: deps.clock,
      propertyId,
      actorIntegrationId: null,
      kinds: ['rates'],
      nights: w,
      settings: settingsOf(deps),
    });
    const data = await loadCalendarData(trx, propertyId, w, new Set(['rates']), null);
    return { result: { doorloom_id: propertyId, window: w, data: buildPayload('rates', data, w) }, appended };
  });
}

export interface RestrictionsEdit {
  from?: unknown;
  to?: unknown;
  rules?: { min_stay?: number | null; max_stay?: number | null; min_advance_days?: number | null; max_advance_days?: number | null };
  min_stay?: number | null;
  max_stay?: number | null;
  stop_sell?: boolean | null;
  closed_to_arrival?: boolean | null;
  closed_to_departure?: boolean | null;
}

const NIGHT_RESTRICTIONS = ['min_stay', 'max_stay', 'stop_sell', 'closed_to_arrival', 'closed_to_departure'] as const;
const RULE_KEYS = ['min_stay', 'max_stay', 'min_advance_days', 'max_advance_days'] as const;

/**
 * PUT /properties/{id}/restrictions: property-wide rules and/or per-night restrictions. A rules
 * change reaches every restrictions payload, so it emits the whole horizon; per-night changes emit
 * the changed nights.
 */
export async function setRestrictions(deps: Deps, propertyId: number, body: RestrictionsEdit): Promise<HostEditResult> {
  const errors = new FieldErrorCollector();
  const max = deps.config.maxStayNights;
  const perNight = NIGHT_RESTRICTIONS.filter((k) => body[k] !== undefined);
  // The known rules only: any other key of `rules` would become a column name in the upsert (a 500).
  const ruleKeys = body.rules ? RULE_KEYS.filter((k) => body.rules![k] !== undefined) : [];
  let window: DateWindow | null = null;
  // Read before the edit's transaction (which holds the only connection of the embedded engine).
  const today = await propertyToday(deps, propertyId);
  if (perNight.length > 0 || body.from !== undefined || body.to !== undefined) {
    window = checkNights(errors, body.from, body.to, today);
    if (perNight.length === 0) errors.add('min_stay', 'min_stay, max_stay, stop_sell, closed_to_arrival or closed_to_departure is required with from and to');
  } else if (ruleKeys.length === 0) {
    errors.add('rules', 'rules, or from and to with per-night restrictions, are required');
  }
  for (const key of ['min_stay', 'max_stay'] as const) {
    const v = body[key];
    if (typeof v === 'number' && v > max) errors.add(key, `must be at most ${max} (the platform maximum stay)`);
    const r = body.rules?.[key];
    if (typeof r === 'number' && r > max) errors.add(`rules.${key}`, `must be at most ${max} (the platform maximum stay)`);
  }
  if (typeof body.min_stay === 'number' && typeof body.max_stay === 'number' && body.min_stay > body.max_stay) {
    errors.add('max_stay', 'must not be below min_stay');
  }

  return hostEdit(deps, propertyId, async (trx) => {
    errors.throwIfAny();
    if (ruleKeys.length > 0) {
      const current = await trx.selectFrom('booking_rules').selectAll().where('property_id', '=', propertyId).executeTakeFirst();
      const next = {
        min_stay: current?.min_stay ?? null,
        max_stay: current?.max_stay ?? null,
        min_advance_days: current?.min_advance_days ?? null,
        max_advance_days: current?.max_advance_days ?? null,
        ...Object.fromEntries(ruleKeys.map((k) => [k, body.rules![k] ?? null])),
      };
      const effective = rulesOf(next, settingsOf(deps));
      if (effective.min_stay > effective.max_stay)
        errors.add(body.rules!.max_stay !== undefined ? 'rules.max_stay' : 'rules.min_stay', 'min_stay must not exceed max_stay');
      if (effective.min_advance_days > effective.max_advance_days) {
        errors.add(
          body.rules!.max_advance_days !== undefined ? 'rules.max_advance_days' : 'rules.min_advance_days',
          'min_advance_days must not exceed max_advance_days',
        );
      }
      errors.throwIfAny();
      await trx
        .insertInto('booking_rules')
        .values({ property_id: propertyId, ...next })
        .onConflict((oc) => oc.column('property_id').doUpdateSet(next))
        .execute();
    }
    if (window && perNight.length > 0) {
      setNights(trx, propertyId, window, Object.fromEntries(perNight.map((k) => [k, body[k]])));
    }
    const appended = await appendCalendarEvents(trx, {
      clock: deps.clock,
      propertyId,
      actorIntegrationId: null,
      kinds: ['restrictions'],
      nights: ruleKeys.length > 0 ? 'horizon' : window!,
      settings: settingsOf(deps),
    });
    const shown = window ?? { from: today, to: today };
    const data = await loadCalendarData(trx, propertyId, shown, new Set(['restrictions']), null);
    const payload = buildPayload('restrictions', data, shown, settingsOf(deps));
    return {
      result: { doorloom_id: propertyId, window, data: window ? payload : { ...payload, dates: [] } },
      appended,
    };
  });
}

export interface MealPlanInput {
  code: 'EP' | 'CP' | 'MAP' | 'AP';
  adult_price: number;
  child_price: number;
}

/** PUT /properties/{id}/meal-plans: the complete list (EP is always there, at 0). Rates change on every night. */
export async function setMealPlans(deps: Deps, propertyId: number, body: MealPlanInput[]): Promise<HostEditResult> {
  const errors = new FieldErrorCollector();
  const seen = new Set<string>();
  body.forEach((plan, i) => {
    if (seen.has(plan.code)) errors.add(`${i}.code`, 'is listed twice');
    seen.add(plan.code);
    if (plan.code === 'EP') {
      if (plan.adult_price !== 0) errors.add(`${i}.adult_price`, 'must be 0: EP (room only) is always priced 0');
      if (plan.child_price !== 0) errors.add(`${i}.child_price`, 'must be 0: EP (room only) is always priced 0');
    }
  });
  return hostEdit(deps, propertyId, async (trx) => {
    errors.throwIfAny();
    trx.send(trx.deleteFrom('meal_plans').where('property_id', '=', propertyId));
    const rows = body
      .filter((p): p is MealPlanInput & { code: MealPlansTable['code'] } => p.code !== 'EP')
      .map((p) => ({ property_id: propertyId, code: p.code, adult_price: p.adult_price, child_price: p.child_price }));
    if (rows.length > 0) trx.send(trx.insertInto('meal_plans').values(rows));
    const result = await ratesInputsResult(trx, propertyId);
    return { result, appended: await horizonRates(deps, trx, propertyId) };
  });
}

/** PUT /properties/{id}/tax: the GST flags of the rates payload. Rates change on every night. */
export async function setTax(deps: Deps, propertyId: number, body: { gst_applicable?: boolean; price_includes_gst?: boolean }): Promise<HostEditResult> {
  const errors = new FieldErrorCollector();
  if (body.gst_applicable === undefined && body.price_includes_gst === undefined) {
    errors.add('gst_applicable', 'gst_applicable or price_includes_gst is required');
  }
  return hostEdit(deps, propertyId, async (trx) => {
    errors.throwIfAny();
    trx.send(updateTaxFlags(trx, propertyId, body));
    const result = await ratesInputsResult(trx, propertyId);
    return { result, appended: await horizonRates(deps, trx, propertyId) };
  });
}

function horizonRates(deps: Deps, trx: UnitOfWork, propertyId: number): Promise<AppendResult> {
  return appendCalendarEvents(trx, {
    clock: deps.clock,
    propertyId,
    actorIntegrationId: null,
    kinds: ['rates'],
    nights: 'horizon',
    settings: settingsOf(deps),
  });
}

/** The property-wide part of the rates payload, as host edits of meal plans and tax answer it. */
async function ratesInputsResult(trx: Transaction<DB>, propertyId: number): Promise<HostEditResult> {
  const day = '2000-01-01'; // any night: only the property-wide fields are shown
  const data = await loadCalendarData(trx, propertyId, { from: day, to: day }, new Set(['rates']), null);
  return {
    doorloom_id: propertyId,
    window: null,
    data: {
      currency: 'INR',
      gst_applicable: data.pricing!.gst_applicable,
      price_includes_gst: data.pricing!.price_includes_gst,
      meal_plans: mealPlansOf(data),
    },
  };
}
