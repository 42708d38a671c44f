/**
 * The sandbox: a sandbox brand's integrations act as the host would on their own covered
 * properties. Every action resolves the partner's property (or booking) within the integration's
 * scope, then runs the very function behind the matching staff route, so the events are exactly
 * the host's (origin `doorloom`, to every integration covering the property).
 */
import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { formatTimestamp } from '../../lib/time.js';
import { cancelBooking, getBooking, hostCreateBooking } from '../bookings/bookings.service.js';
import { setCalendar, setRateOverrides, setRestrictions } from '../calendar/calendar.service.js';
import type { HostEditResult } from '../calendar/calendar.host-edit.js';
import { rollHorizon } from '../calendar/calendar.horizon.js';
import { advanceBrandClock } from '../integrations/integrations.service.js';
import { expireEvents } from '../jobs/jobs.daily.js';
import type { Clock } from '../../lib/clock.js';
import { requireCoveredProperty } from '../properties/properties.resolve.js';
import { archiveProperty } from '../properties/properties.host.js';
import { getProperty } from '../properties/properties.service.js';
import type {
  SandboxBlockInput,
  SandboxBookingInput,
  SandboxCancelInput,
  SandboxRateInput,
  SandboxRestrictionInput,
  SandboxUnblockInput,
} from './sandbox.schemas.js';

const DAY_SECONDS = 86_400;

async function coveredId(deps: Deps, integrationId: number, ref: string): Promise<number> {
  return (await requireCoveredProperty(deps.db, integrationId, ref)).id;
}

/** Staff `POST /properties/{id}/bookings`; answers the booking as the integration sees it. */
export async function sandboxHostBooking(deps: Deps, integrationId: number, ref: string, input: SandboxBookingInput) {
  const propertyId = await coveredId(deps, integrationId, ref);
  // Field by field: nothing the schema does not list reaches the staff function.
  const booking = await hostCreateBooking(
    deps,
    propertyId,
    {
      check_in: input.check_in,
      check_out: input.check_out,
      units: input.units ?? [{ adults: 1 }],
      guest: input.guest ?? { name: 'Sandbox guest' },
      pricing: input.pricing ?? { total: 0 },
      external_booking_id: input.external_booking_id,
      status: input.status,
      notes: input.notes,
      source: input.source,
    },
    { aliasesOf: integrationId },
  );
  return getBooking(deps, { integrationId }, { id: booking.id });
}

/**
 * Staff `POST /bookings/{id}/cancel`, on a booking the integration sees on a property it covers
 * (a host booking there, or its own); anything else is 404 as on the partner's own routes.
 */
export async function sandboxHostCancel(deps: Deps, integrationId: number, bookingId: number, input: SandboxCancelInput) {
  const seen = await getBooking(deps, { integrationId }, { id: bookingId });
  await coveredId(deps, integrationId, String(seen.property.doorloom_id)).catch(() => {
    throw notFound('No such booking.');
  });
  const { changed } = await cancelBooking(deps, { host: true }, { id: bookingId }, { reason: input.reason, refund_note: input.refund_note }, undefined);
  return { changed, booking: await getBooking(deps, { integrationId }, { id: bookingId }) };
}

/** Staff `PUT /properties/{id}/calendar` with a block scope. */
export async function sandboxBlock(deps: Deps, integrationId: number, ref: string, input: SandboxBlockInput): Promise<HostEditResult> {
  const propertyId = await coveredId(deps, integrationId, ref);
  return setCalendar(deps, propertyId, { from: input.from, to: input.to, inventory_ids: input.inventory_ids, block_scope: input.block_scope ?? 'everywhere' });
}

/** Staff `PUT /properties/{id}/calendar` with `block_scope: null` (lifts either scope). */
export async function sandboxUnblock(deps: Deps, integrationId: number, ref: string, input: SandboxUnblockInput): Promise<HostEditResult> {
  const propertyId = await coveredId(deps, integrationId, ref);
  return setCalendar(deps, propertyId, { from: input.from, to: input.to, inventory_ids: input.inventory_ids, block_scope: null });
}

/** Staff `PUT /properties/{id}/rates`. */
export async function sandboxRateOverride(deps: Deps, integrationId: number, ref: string, input: SandboxRateInput): Promise<HostEditResult> {
  const propertyId = await coveredId(deps, integrationId, ref);
  const { from, to, base_price, extra_adult_price, extra_child_price, clear } = input;
  return setRateOverrides(deps, propertyId, { from, to, base_price, extra_adult_price, extra_child_price, clear });
}

/** Staff `PUT /properties/{id}/restrictions` with per-night restrictions. */
export async function sandboxRestrictionOverride(deps: Deps, integrationId: number, ref: string, input: SandboxRestrictionInput): Promise<HostEditResult> {
  const propertyId = await coveredId(deps, integrationId, ref);
  // Per-night restrictions only: the property-wide `rules` of the staff body are not the sandbox's.
  const { from, to, min_stay, max_stay, stop_sell, closed_to_arrival, closed_to_departure } = input;
  return setRestrictions(deps, propertyId, { from, to, min_stay, max_stay, stop_sell, closed_to_arrival, closed_to_departure });
}

/** Staff `POST /properties/{id}/archive`; answers the property as the integration sees it. */
export async function sandboxArchive(deps: Deps, integrationId: number, ref: string) {
  const propertyId = await coveredId(deps, integrationId, ref);
  await archiveProperty(deps, propertyId);
  return getProperty(deps, integrationId, String(propertyId));
}

/** A brand's clock as the sandbox answers it: its time, and how far it runs ahead of real time. */
const clockView = (clock: Clock) => ({ now: formatTimestamp(clock.now()), offset_seconds: Math.round(clock.offsetSeconds()) });

/** The calling integration's brand clock. */
export function sandboxClock(deps: Deps, brandId: number) {
  return clockView(deps.clock.ofBrand(brandId));
}

/**
 * Moves the calling integration's brand clock forward by whole days: only that brand's data's time
 * rules read it (src/lib/clock.ts), so it needs no test clock. What fell due on the brand's clock
 * is done before the answer: the horizon roll and event retention of the brand's integrations;
 * deliveries and their retries follow within about a second.
 */
export async function sandboxAdvanceClock(deps: Deps, brandId: number, days: number) {
  const { clock, integrationIds } = await advanceBrandClock(deps, brandId, days * DAY_SECONDS);
  await rollHorizon(deps, { integrationIds });
  await expireEvents(deps, integrationIds);
  return clockView(clock);
}
