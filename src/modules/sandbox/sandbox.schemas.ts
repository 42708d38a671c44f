import { Type, type Static } from '@sinclair/typebox';
import { DateString, Nullable } from '../../http/schemas.js';
import { HostCreateBookingBody } from '../bookings/bookings.schemas.js';

/**
 * The sandbox's test-helper bodies. Each route acts as the host would through the staff API, so
 * its body is the staff body's fields with defaults that make a one-line `trigger` possible. Every
 * body takes its documented fields only (`Strict`): an unknown field is 422, never passed on.
 */

/** No field beyond the listed ones. */
const Strict = { additionalProperties: false } as const;

const Night = DateString;
const NightsFrom = Night('First night, inclusive (YYYY-MM-DD)');
const NightsTo = Night('Last night, inclusive (YYYY-MM-DD); at most 730 days ahead of today');
const InventoryIds = Type.Optional(
  Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), {
    minItems: 1,
    maxItems: 50,
    description: 'These units only (inventory_id); without it the whole property',
  }),
);

export const SandboxPropertyParams = Type.Object({
  property: Type.String({ description: "The service's property id or the partner's external_id of a covered property" }),
});

export const SandboxBookingParams = Type.Object({ id: Type.String({ description: "The service's booking id" }) });

const host = HostCreateBookingBody.properties;

export const SandboxBookingBody = Type.Object(
  {
    check_in: host.check_in,
    check_out: host.check_out,
    units: Type.Optional(host.units),
    guest: Type.Optional(host.guest),
    pricing: Type.Optional(host.pricing),
    external_booking_id: host.external_booking_id,
    status: host.status,
    notes: host.notes,
    source: host.source,
  },
  {
    ...Strict,
    description:
      'The host booking body of the staff API. Defaults: one unit picked by the service for one adult, guest "Sandbox guest", total 0, channel direct, status confirmed.',
  },
);
export type SandboxBookingInput = Static<typeof SandboxBookingBody>;

export const SandboxCancelBody = Type.Object(
  {
    reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    refund_note: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  Strict,
);
export type SandboxCancelInput = Static<typeof SandboxCancelBody>;

export const SandboxBlockBody = Type.Object(
  {
    from: NightsFrom,
    to: NightsTo,
    block_scope: Type.Optional(
      Type.Union([Type.Literal('everywhere'), Type.Literal('ota_only')], {
        description: 'everywhere (default): no booking on any channel; ota_only: direct bookings still allowed',
      }),
    ),
    inventory_ids: InventoryIds,
  },
  Strict,
);
export type SandboxBlockInput = Static<typeof SandboxBlockBody>;

export const SandboxUnblockBody = Type.Object({ from: NightsFrom, to: NightsTo, inventory_ids: InventoryIds }, Strict);
export type SandboxUnblockInput = Static<typeof SandboxUnblockBody>;

const Money = (description: string) => Type.Number({ minimum: 0, maximum: 9999999999, description });

export const SandboxRateBody = Type.Object(
  {
    from: NightsFrom,
    to: NightsTo,
    base_price: Type.Optional(Money('INR per night; the override of the base price')),
    extra_adult_price: Type.Optional(Money('INR per extra adult per night')),
    extra_child_price: Type.Optional(Money('INR per extra child per night')),
    clear: Type.Optional(Type.Boolean({ description: 'true removes every price override of these nights instead' })),
  },
  Strict,
);
export type SandboxRateInput = Static<typeof SandboxRateBody>;

const Flag = (description: string) => Type.Optional(Type.Boolean({ description }));

export const SandboxRestrictionBody = Type.Object(
  {
    from: NightsFrom,
    to: NightsTo,
    min_stay: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'Minimum stay for arrivals on these nights; null follows the rules' }))),
    max_stay: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'Maximum stay for arrivals on these nights; null follows the rules' }))),
    stop_sell: Flag('Nights not for sale'),
    closed_to_arrival: Flag('No check-in on these nights'),
    closed_to_departure: Flag('No check-out on these dates'),
  },
  Strict,
);
export type SandboxRestrictionInput = Static<typeof SandboxRestrictionBody>;

export const SandboxClockBody = Type.Object(
  {
    days: Type.Integer({ minimum: 1, maximum: 366, description: 'Days to move the brand’s clock forward (1 to 366)' }),
  },
  Strict,
);

export const HostEditAnswer = Type.Object({
  doorloom_id: Type.Integer(),
  window: Nullable(Type.Object({ from: DateString(), to: DateString() })),
  data: Type.Unknown({ description: 'The payload of the edited nights (the matching event kind)' }),
});

export const ClockAnswer = Type.Object({
  now: Type.String({ description: 'The brand’s clock (ISO-8601 with +05:30)' }),
  offset_seconds: Type.Integer({ description: 'How far the brand’s clock runs ahead of real time' }),
});
