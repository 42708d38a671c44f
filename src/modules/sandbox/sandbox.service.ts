/**
 * The sandbox: a sandbox brand's integrations act as the host would on their own covered
 * properties. Every action resolves the partner's property (or booking) within the integration's
 * scope, then runs the very function behind the matching staff route, so the events are exactly
 * the host's (origin `doorloom`, to every integration covering the property).
 */
import type { Deps } from '../../deps.js';
import { fail, notFound } from '../../http/errors.js';
import { formatTimestamp } from '../../lib/time.js';
import { cancelBooking, getBooking, hostCreateBooking } from '../bookings/bookings.service.js';
import { setCalendar, setRateOverrides, setRestrictions, type HostEditResult } from '../calendar/calendar.service.js';
import { advanceServiceClock } from '../clock/clock.routes.js';
import { requireCoveredProperty } from '../properties/properties.resolve.js';
import { archiveProperty, getProperty } from '../properties/properties.service.js';
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
  const booking = await hostCreateBooking(deps, propertyId, {
    ...input,
    units: input.units ?? [{ adults: 1 }],
    guest: input.guest ?? { name: 'Sandbox guest' },
    pricing: input.pricing ?? { total: 0 },
  }, { aliasesOf: integrationId });
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
  const { changed } = await cancelBooking(deps, { host: true }, { id: bookingId }, input, undefined);
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
  return setRateOverrides(deps, propertyId, input);
}

/** Staff `PUT /properties/{id}/restrictions` with per-night restrictions. */
export async function sandboxRestrictionOverride(deps: Deps, integrationId: number, ref: string, input: SandboxRestrictionInput): Promise<HostEditResult> {
  const propertyId = await coveredId(deps, integrationId, ref);
  return setRestrictions(deps, propertyId, input);
}

/** Staff `POST /properties/{id}/archive`; answers the property as the integration sees it. */
export async function sandboxArchive(deps: Deps, integrationId: number, ref: string) {
  const propertyId = await coveredId(deps, integrationId, ref);
  await archiveProperty(deps, propertyId);
  return getProperty(deps, integrationId, String(propertyId));
}

/** Staff `POST /clock`, in days; only when the service runs with TEST_CLOCK=1. */
export async function sandboxAdvanceClock(deps: Deps, days: number) {
  if (!deps.config.testClock) {
    throw fail('TEST_CLOCK_DISABLED', 'The service runs on real time (TEST_CLOCK is off), so its clock cannot be moved.');
  }
  await advanceServiceClock(deps, days * DAY_SECONDS);
  return { now: formatTimestamp(deps.clock.now()), offset_seconds: Math.round(deps.clock.offsetSeconds()) };
}
