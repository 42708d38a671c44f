import type { AvailabilityPayload, Booking, PropertyDetail, RatesPayload, RestrictionsPayload, Unit } from './client/types.js';

/** The API version this SDK speaks: the `version` of the events it reads and of those it makes. */
export const API_VERSION = '2026-09';

/** The event kinds of API version 2026-09. New kinds may appear within a version (additive). */
export const EVENT_KINDS = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
  'booking.changed',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** A night window, inclusive at both ends (`YYYY-MM-DD`). */
export interface DateWindow {
  from: string;
  to: string;
}

/** The members every event shares, delivered and replayed alike. */
export interface EventEnvelopeBase {
  /** ULID, unique for the life of the integration. */
  id: string;
  /** Gap-free per integration; null on a ping only. */
  sequence: number;
  origin: 'partner' | 'doorloom';
  /** API version label, `2026-09`. */
  version: string;
  created_at: string;
  integration: { id: number; slug: string };
  /** The property the event is about; null for integration-wide events. */
  property: { doorloom_id: number; external_id: string | null } | null;
  /** The nights a windowed kind covers (at most one calendar month); null otherwise. */
  window: DateWindow | null;
}

/** An inventory entry: every unit, then `deleted: true` entries for retired aliases. */
export type InventoryUnit = Unit | { inventory_id: number; external_unit_id: string | null; deleted: true };

export interface EventDataByKind {
  'availability.changed': AvailabilityPayload;
  'rates.changed': RatesPayload;
  'restrictions.changed': RestrictionsPayload;
  'inventory.changed': { units: InventoryUnit[] };
  'property.changed': { property: PropertyDetail };
  'booking.changed': { booking: Booking };
}

export type KnownEvent = { [K in EventKind]: EventEnvelopeBase & { type: K; data: EventDataByKind[K] } }[EventKind];

/** A kind this SDK does not know yet: passed through untyped rather than refused. */
export interface UnknownEvent extends Omit<EventEnvelopeBase, 'sequence'> {
  type: string;
  sequence: number | null;
  data: unknown;
}

/** The connectivity check a paused integration receives; it carries no sequence and no data. */
export interface PingEvent extends Omit<EventEnvelopeBase, 'sequence'> {
  type: 'ping';
  sequence: null;
  data: Record<string, never>;
}

/** Every event a receiver or GET /events can hand over. Narrow on `type`; see isKnownEvent. */
export type DoorloomEvent = KnownEvent | PingEvent | UnknownEvent;

export function isKnownEvent(event: DoorloomEvent): event is KnownEvent {
  return (EVENT_KINDS as readonly string[]).includes(event.type);
}

export function isPing(event: DoorloomEvent): event is PingEvent {
  return event.type === 'ping';
}
