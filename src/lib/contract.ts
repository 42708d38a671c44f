/** The API version partners are served and every webhook carries (its `version` field). */
export const API_VERSION = '2026-09';

/** The kinds of events the contract defines, the values of an integration's `webhook.event_types`. */
export const EVENT_TYPES = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
  'booking.changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
