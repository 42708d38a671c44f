/**
 * The handful of service calls the sync engine makes, and the wire shapes it reads. The engine
 * depends on this interface only; `clientSyncApi` (client-api.ts) implements it over the SDK's
 * client, and tests may implement it over anything that answers like the service.
 */

import type { components } from '../generated/api.js';

export type WindowedKind = 'availability' | 'rates' | 'restrictions';
export const WINDOWED_KINDS: readonly WindowedKind[] = ['availability', 'rates', 'restrictions'];

export interface PropertyRef {
  doorloom_id: number;
  external_id: string | null;
}

/** The contract's Unit and Property block (GET /properties entries), as the OpenAPI document names them. */
export type Unit = components['schemas']['Unit'];
export type PropertyBlock = components['schemas']['PropertyBlock'] & { [extra: string]: unknown };

/** A Booking object; the engine reads `id`, `revision` and `updated_at`, and keeps the rest as sent. */
export interface Booking {
  id: number;
  external_booking_id: string;
  revision: number;
  status: string;
  updated_at: string;
  property?: PropertyRef;
  units?: Array<{ inventory_id: number; external_unit_id: string | null; [extra: string]: unknown }>;
  [extra: string]: unknown;
}

/** An event envelope as delivered by webhook or returned by GET /events under `event`. */
export interface EventEnvelope {
  id: string;
  type: string;
  /** null for the connectivity ping, which is never recorded. */
  sequence: number | null;
  origin?: string;
  version?: string;
  created_at?: string;
  property?: PropertyRef | null;
  window?: { from: string; to: string } | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape depends on `type`; partners' code reads it without a cast.
  data: any;
}

export interface SnapshotResult {
  /** The watermark read before the payload was built. */
  sequence: number;
  window: { from: string; to: string };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape depends on the kind; partners' code reads it without a cast.
  data: any;
}

export interface PropertyPage {
  /** The watermark of the listing. */
  sequence: number;
  properties: PropertyBlock[];
  lastPage: number;
}

export interface EventPage {
  events: EventEnvelope[];
  nextAfterSequence: number;
  hasMore: boolean;
}

export interface BookingPage {
  bookings: Booking[];
  lastPage: number;
}

export interface SyncRequest {
  property_ids?: number[];
  types?: string[];
}

export interface SyncAccepted {
  queued_properties: number;
  horizon_days: number;
  types: string[];
}

export interface SyncApi {
  /** GET /me: the integration's horizon and its highest recorded sequence. */
  me(): Promise<{ horizonDays: number; lastSequence: number }>;
  /** GET /properties, one page. */
  listProperties(page: number, perPage: number): Promise<PropertyPage>;
  /** GET /properties/{id}/{kind}?from&to (at most 92 nights). */
  snapshot(kind: WindowedKind, propertyId: number, from: string, to: string): Promise<SnapshotResult>;
  /** GET /events?after_sequence&limit. A cursor past retention fails with code CURSOR_EXPIRED (410). */
  events(afterSequence: number, limit: number): Promise<EventPage>;
  /** GET /bookings?updated_since&page&per_page (ordered by last update, oldest first). */
  listBookings(query: { updatedSince?: string; page: number; perPage: number }): Promise<BookingPage>;
  /**
   * POST /sync, sent once: it must not be retried on 429 (its Retry-After can be a day), the
   * engine records the refusal and waits itself.
   */
  sync(body?: SyncRequest): Promise<SyncAccepted>;
}

/** What the engine needs to know of a failed call: the status and the contract's code. */
export function failureOf(error: unknown): { status: number; code: string; errors: Record<string, unknown> } | null {
  if (!error || typeof error !== 'object') return null;
  const e = error as { status?: unknown; code?: unknown; errors?: unknown };
  if (typeof e.status !== 'number' || typeof e.code !== 'string') return null;
  return { status: e.status, code: e.code, errors: (e.errors && typeof e.errors === 'object' ? e.errors : {}) as Record<string, unknown> };
}
