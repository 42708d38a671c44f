import { Type } from '@sinclair/typebox';
import { DateString, Nullable } from '../../http/schemas.js';

/** Money in INR, two decimals at most (more are rounded half away from zero). */
const Money = (description: string) => Type.Number({ minimum: 0, maximum: 9999999999, description });

// ---------------------------------------------------------------------------------------------
// Snapshots (integrations API)

export const SnapshotParams = Type.Object({
  property: Type.String({ description: "The service's property id or the partner's external_id" }),
});

export const SnapshotQuery = Type.Object({
  from: DateString('First night, inclusive (YYYY-MM-DD)'),
  to: DateString('Last night, inclusive (YYYY-MM-DD); at most 92 nights from `from`, at most 730 days ahead of today'),
});

const Window = Type.Object({ from: DateString(), to: DateString() });
const BlockScope = Nullable(Type.Union([Type.Literal('everywhere'), Type.Literal('ota_only')]));

export const AvailabilityData = Type.Object(
  {
    total_units: Type.Integer({ description: 'Active units' }),
    units: Type.Array(
      Type.Object({
        inventory_id: Type.Integer(),
        external_unit_id: Nullable(Type.String()),
        name: Type.String(),
        unavailable: Type.Array(DateString(), { description: 'Nights of the window on which the unit is held or blocked everywhere' }),
      }),
    ),
    dates: Type.Array(
      Type.Object({
        date: DateString(),
        available_units: Type.Integer(),
        total_units: Type.Integer(),
        is_blocked: Type.Boolean(),
        block_scope: BlockScope,
        units_cap: Nullable(Type.Integer()),
      }),
    ),
  },
  { description: 'Availability payload (also the data of availability.changed)' },
);

export const RatesData = Type.Object(
  {
    currency: Type.Literal('INR'),
    gst_applicable: Type.Boolean(),
    price_includes_gst: Type.Boolean(),
    meal_plans: Type.Array(Type.Object({ code: Type.String(), name: Type.String(), adult_price: Type.Number(), child_price: Type.Number() })),
    dates: Type.Array(
      Type.Object({
        date: DateString(),
        base_price: Type.Number(),
        per_night_occupancy: Type.Integer(),
        extra_adult_price: Type.Number(),
        extra_child_price: Type.Number(),
        source: Type.Union([Type.Literal('weekday'), Type.Literal('weekend'), Type.Literal('override')]),
      }),
    ),
  },
  { description: 'Rates payload (also the data of rates.changed)' },
);

const Rules = Type.Object({
  min_stay: Type.Integer(),
  max_stay: Type.Integer(),
  min_advance_days: Type.Integer(),
  max_advance_days: Type.Integer(),
});

export const RestrictionsData = Type.Object(
  {
    rules: Rules,
    dates: Type.Array(
      Type.Object({
        date: DateString(),
        min_stay: Type.Integer(),
        max_stay: Type.Integer(),
        stop_sell: Type.Boolean(),
        closed_to_arrival: Type.Boolean(),
        closed_to_departure: Type.Boolean(),
      }),
    ),
  },
  { description: 'Restrictions payload (also the data of restrictions.changed)' },
);

export const snapshotView = <T extends object>(data: T) =>
  Type.Object({
    sequence: Type.Integer({ description: 'Watermark: events with a higher sequence apply on top of this snapshot' }),
    property: Type.Object({ doorloom_id: Type.Integer(), external_id: Nullable(Type.String()) }),
    window: Window,
    data: data as never,
  });

// ---------------------------------------------------------------------------------------------
// Host calendar edits (staff API)

export const PropertyIdParams = Type.Object({ id: Type.String({ description: 'Property id' }) });

const NightsFrom = DateString('First night, inclusive');
const NightsTo = DateString('Last night, inclusive; at most 730 days ahead of today');

export const CalendarBody = Type.Object({
  from: NightsFrom,
  to: NightsTo,
  inventory_ids: Type.Optional(
    Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
      minItems: 1,
      maxItems: 50,
      description: 'Block these units only; without it the block is property-wide',
    }),
  ),
  block_scope: Type.Optional(
    Nullable(Type.Union([Type.Literal('everywhere'), Type.Literal('ota_only')], { description: 'null clears the block; absent leaves it as it is' })),
  ),
  units_cap: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 500, description: 'Most units sold per night; null clears the cap' }))),
});

const MoneyOrClear = (description: string) => Type.Optional(Nullable(Money(`${description}; null removes this part of the override`)));

export const RatesBody = Type.Object({
  from: NightsFrom,
  to: NightsTo,
  base_price: MoneyOrClear('Override of the base price per night'),
  extra_adult_price: MoneyOrClear('Override of the extra adult price per night'),
  extra_child_price: MoneyOrClear('Override of the extra child price per night'),
  clear: Type.Optional(Type.Boolean({ description: 'true removes every override of these nights' })),
});

const StayLength = (description: string) => Type.Optional(Nullable(Type.Integer({ minimum: 1, description })));
const Flag = (description: string) => Type.Optional(Nullable(Type.Boolean({ description })));

export const RestrictionsBody = Type.Object({
  from: Type.Optional(NightsFrom),
  to: Type.Optional(NightsTo),
  rules: Type.Optional(
    Type.Object(
      {
        min_stay: StayLength('Default minimum stay; null restores 1'),
        max_stay: StayLength('Default maximum stay; null restores the platform maximum'),
        min_advance_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 730 }))),
        max_advance_days: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 730 }))),
      },
      { description: 'Property-wide booking rules (any subset)' },
    ),
  ),
  min_stay: StayLength('Minimum stay for arrivals on these nights; null follows the rules'),
  max_stay: StayLength('Maximum stay for arrivals on these nights; null follows the rules'),
  stop_sell: Flag('Nights not for sale'),
  closed_to_arrival: Flag('No check-in on these nights'),
  closed_to_departure: Flag('No check-out on these dates'),
});

export const MealPlansBody = Type.Array(
  Type.Object({
    code: Type.Union([Type.Literal('EP'), Type.Literal('CP'), Type.Literal('MAP'), Type.Literal('AP')]),
    adult_price: Money('Per adult per night'),
    child_price: Money('Per child per night'),
  }),
  { maxItems: 4, description: 'The complete list of meal plans; EP (room only) is always offered at 0' },
);

export const TaxBody = Type.Object({
  gst_applicable: Type.Optional(Type.Boolean()),
  price_includes_gst: Type.Optional(Type.Boolean()),
});

export const HostEditView = Type.Object({
  doorloom_id: Type.Integer(),
  window: Nullable(Window),
  data: Type.Unknown(),
});
