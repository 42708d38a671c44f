import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/api.js';
import type { DoorloomEvent } from '../events.js';
import { DoorloomApiError } from './errors.js';
import { ATTEMPTS_HEADER, retryingFetch, type RetryOptions } from './retry.js';
import type {
  AvailabilitySnapshot,
  Booking,
  BookingCancelInput,
  BookingCreateInput,
  BookingCreateResult,
  BookingListPage,
  BookingListQuery,
  BookingUpdateInput,
  DeliveryAttempt,
  DeliveryListQuery,
  DeliveryPage,
  EventListQuery,
  EventPage,
  EventRow,
  Integration,
  PropertyBlock,
  PropertyBulkCreateInput,
  PropertyBulkResult,
  PropertyBulkUpdateInput,
  PropertyCreateInput,
  PropertyDetail,
  PropertyListPage,
  PropertyListQuery,
  PropertyUpdateInput,
  RatesSnapshot,
  RestrictionsSnapshot,
  SandboxBlockInput,
  SandboxBookingInput,
  SandboxCancelInput,
  SandboxClock,
  SandboxEditResult,
  SandboxRateInput,
  SandboxRestrictionInput,
  SandboxUnblockInput,
  SnapshotQuery,
  SyncInput,
  SyncResult,
} from './types.js';

export const PARTNER_PREFIX = '/api/integrations/v1';

/** One row of the replay: the event exactly as delivered (typed like a webhook's), with its delivery state. */
export type ReplayedEvent = Omit<EventRow, 'event'> & { event: DoorloomEvent };

export interface DoorloomClientOptions {
  /** The service's origin (`https://api.example`) or the partner API base (`…/api/integrations/v1`). */
  baseUrl: string;
  /** The integration's API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** A fetch to use instead of the global one (a proxy, a test double, instrumentation). */
  fetch?: (input: Request) => Promise<Response>;
  /** Retry behaviour (see RetryOptions); `false` sends every request once. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}
/** Options of a create: the Idempotency-Key is generated once per call unless given. */
export interface CreateOptions extends CallOptions {
  /** 8 to 128 chars; reuse one only to resend the identical body. */
  idempotencyKey?: string;
}
/** Options of a booking update or cancel. */
export interface BookingWriteOptions extends CallOptions {
  /** `If-Match`: the revision the change is based on (a number is sent as `"<revision>"`). */
  ifMatch?: number | string;
}

/** A booking is addressed by the service's id (number) or by the partner's id (`{ external: … }`). */
export type BookingRef = number | { external: string };
/** A property is addressed by the service's id (number) or the partner's external_id (string). */
export type PropertyRef = number | string;

/**
 * A typed client for the partner API. Every method sends the request, follows the retry guidance
 * (see RetryOptions) and returns the envelope's `data`, or throws DoorloomApiError for a refusal and
 * DoorloomNetworkError when no answer came. Paged reads return the whole page (`data` and
 * `pagination` or `cursor`); the iterate* methods walk every page.
 */
export interface DoorloomClient {
  /** The underlying openapi-fetch client, typed by the OpenAPI document, for anything else. */
  readonly raw: Client<paths>;
  me(options?: CallOptions): Promise<Integration>;

  listProperties(query?: PropertyListQuery, options?: CallOptions): Promise<PropertyListPage>;
  createProperty(body: PropertyCreateInput, options?: CreateOptions): Promise<PropertyBlock>;
  getProperty(property: PropertyRef, options?: CallOptions): Promise<PropertyDetail>;
  updateProperty(property: PropertyRef, body: PropertyUpdateInput, options?: CallOptions): Promise<PropertyBlock>;
  bulkCreateProperties(body: PropertyBulkCreateInput, options?: CreateOptions): Promise<PropertyBulkResult>;
  bulkUpdateProperties(body: PropertyBulkUpdateInput, options?: CallOptions): Promise<PropertyBulkResult>;

  getAvailability(property: PropertyRef, window: SnapshotQuery, options?: CallOptions): Promise<AvailabilitySnapshot>;
  getRates(property: PropertyRef, window: SnapshotQuery, options?: CallOptions): Promise<RatesSnapshot>;
  getRestrictions(property: PropertyRef, window: SnapshotQuery, options?: CallOptions): Promise<RestrictionsSnapshot>;

  listEvents(query?: EventListQuery, options?: CallOptions): Promise<EventPage>;
  /** POST /sync (last resort: one per 24 hours). Without a body, everything is regenerated. */
  sync(body?: SyncInput, options?: CallOptions): Promise<SyncResult>;

  listBookings(query?: BookingListQuery, options?: CallOptions): Promise<BookingListPage>;
  createBooking(body: BookingCreateInput, options?: CreateOptions): Promise<BookingCreateResult>;
  getBooking(booking: BookingRef, options?: CallOptions): Promise<Booking>;
  updateBooking(booking: BookingRef, body: BookingUpdateInput, options?: BookingWriteOptions): Promise<Booking>;
  cancelBooking(booking: BookingRef, body?: BookingCancelInput, options?: BookingWriteOptions): Promise<Booking>;

  /** GET /deliveries: the integration's own webhook delivery attempts, newest first (page with `before`). */
  listDeliveries(query?: DeliveryListQuery, options?: CallOptions): Promise<DeliveryPage>;
  /** Delivery attempts newest first, page after page (stop whenever enough were read). */
  iterateDeliveries(query?: Omit<DeliveryListQuery, 'before'>, options?: CallOptions): AsyncGenerator<DeliveryAttempt>;

  /**
   * The sandbox's test helpers: act as the host on a covered property (a sandbox brand's
   * integrations only; any other gets 404 NOT_FOUND). Each records the host action's events.
   */
  readonly sandbox: SandboxClient;

  /** Every property of the coverage, page after page. */
  iterateProperties(query?: Omit<PropertyListQuery, 'page'>, options?: CallOptions): AsyncGenerator<PropertyBlock>;
  /**
   * Bookings changed since `updated_since` (all when omitted), oldest change first. It walks by
   * `updated_since` rather than by page number, so a booking that changes during the walk is met
   * again later instead of shifting the pages and hiding another; each (id, revision) is yielded once.
   */
  iterateBookings(query?: Omit<BookingListQuery, 'page'>, options?: CallOptions): AsyncGenerator<Booking>;
  /** Events after `after_sequence` (0 when omitted), until `has_more` is false. */
  iterateEvents(query?: EventListQuery, options?: CallOptions): AsyncGenerator<ReplayedEvent>;
}

/** The sandbox test helpers (`client.sandbox`). */
export interface SandboxClient {
  /** A host booking (default: one unit for one adult, guest "Sandbox guest", total 0). */
  hostBooking(property: PropertyRef, body: SandboxBookingInput, options?: CreateOptions): Promise<Booking>;
  /** The host cancels a booking on a covered property (idempotent). */
  hostCancel(bookingId: number, body?: SandboxCancelInput, options?: CallOptions): Promise<Booking>;
  block(property: PropertyRef, body: SandboxBlockInput, options?: CallOptions): Promise<SandboxEditResult>;
  unblock(property: PropertyRef, body: SandboxUnblockInput, options?: CallOptions): Promise<SandboxEditResult>;
  rateOverride(property: PropertyRef, body: SandboxRateInput, options?: CallOptions): Promise<SandboxEditResult>;
  restrictionOverride(property: PropertyRef, body: SandboxRestrictionInput, options?: CallOptions): Promise<SandboxEditResult>;
  archive(property: PropertyRef, options?: CallOptions): Promise<PropertyDetail>;
  /** Moves the service clock forward (only on a service running with TEST_CLOCK=1). */
  advanceClock(days: number, options?: CallOptions): Promise<SandboxClock>;
}

type Result = { data?: unknown; error?: unknown; response: Response };

export function createDoorloomClient(options: DoorloomClientOptions): DoorloomClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const baseUrl = base.endsWith(PARTNER_PREFIX) ? base : base + PARTNER_PREFIX;
  const transport = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<paths>({
    baseUrl,
    fetch: retryingFetch(transport, options.retry),
    headers: { ...options.headers, authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
  });

  const unwrap = async <T>(pending: Promise<Result>): Promise<T> => {
    const { data, error, response } = await pending;
    if (error !== undefined || !response.ok) {
      throw new DoorloomApiError(response, error ?? data, Number(response.headers.get(ATTEMPTS_HEADER) ?? 1));
    }
    return data as T;
  };
  const dataOf = async <T>(pending: Promise<Result>): Promise<T> => (await unwrap<{ data: T }>(pending)).data;
  const idempotency = (o?: CreateOptions) => ({ 'idempotency-key': o?.idempotencyKey ?? randomUUID() });
  const ifMatch = (o?: BookingWriteOptions) => (o?.ifMatch === undefined ? {} : { 'if-match': typeof o.ifMatch === 'number' ? `"${o.ifMatch}"` : o.ifMatch });
  // Path ids are passed as strings: the partner's ids go in the same slot as the service's.
  const prop = (property: PropertyRef) => ({ property: String(property) }) as never;
  // The raw client is typed per path; the wrappers below are typed by their own signatures.
  const r = raw as unknown as Record<'GET' | 'POST' | 'PUT' | 'PATCH', (path: string, init: object) => Promise<Result>>;

  const snapshot =
    <T>(kind: 'availability' | 'rates' | 'restrictions') =>
    (property: PropertyRef, window: SnapshotQuery, o?: CallOptions) =>
      dataOf<T>(r.GET(`/properties/{property}/${kind}`, { params: { path: prop(property), query: window }, signal: o?.signal }));

  const bookingPath = (booking: BookingRef, suffix = '') =>
    typeof booking === 'number'
      ? { path: `/bookings/{id}${suffix}`, params: { id: String(booking) } }
      : { path: `/bookings/external/{external_booking_id}${suffix}`, params: { external_booking_id: booking.external } };

  const client: DoorloomClient = {
    raw,
    me: (o) => dataOf(r.GET('/me', { signal: o?.signal })),

    listProperties: (query, o) => unwrap(r.GET('/properties', { params: { query }, signal: o?.signal })),
    createProperty: (body, o) => dataOf(r.POST('/properties', { body, headers: idempotency(o), signal: o?.signal })),
    getProperty: (property, o) => dataOf(r.GET('/properties/{property}', { params: { path: prop(property) }, signal: o?.signal })),
    updateProperty: (property, body, o) => dataOf(r.PUT('/properties/{property}', { params: { path: prop(property) }, body, signal: o?.signal })),
    bulkCreateProperties: (body, o) => dataOf(r.POST('/properties/bulk', { body, headers: idempotency(o), signal: o?.signal })),
    bulkUpdateProperties: (body, o) => dataOf(r.PUT('/properties/bulk', { body, signal: o?.signal })),

    getAvailability: snapshot<AvailabilitySnapshot>('availability'),
    getRates: snapshot<RatesSnapshot>('rates'),
    getRestrictions: snapshot<RestrictionsSnapshot>('restrictions'),

    listEvents: (query, o) => unwrap(r.GET('/events', { params: { query }, signal: o?.signal })),
    sync: (body, o) => dataOf(r.POST('/sync', { body: body ?? {}, signal: o?.signal })),

    listBookings: (query, o) => unwrap(r.GET('/bookings', { params: { query }, signal: o?.signal })),
    createBooking: (body, o) => dataOf(r.POST('/bookings', { body, headers: idempotency(o), signal: o?.signal })),
    getBooking: (booking, o) => {
      const { path, params } = bookingPath(booking);
      return dataOf(r.GET(path, { params: { path: params }, signal: o?.signal }));
    },
    updateBooking: (booking, body, o) => {
      const { path, params } = bookingPath(booking);
      return dataOf(r.PATCH(path, { params: { path: params }, body, headers: ifMatch(o), signal: o?.signal }));
    },
    cancelBooking: (booking, body, o) => {
      const { path, params } = bookingPath(booking, '/cancel');
      return dataOf(r.POST(path, { params: { path: params }, body: body ?? {}, headers: ifMatch(o), signal: o?.signal }));
    },

    listDeliveries: (query, o) => unwrap(r.GET('/deliveries', { params: { query }, signal: o?.signal })),
    async *iterateDeliveries(query = {}, o) {
      let before: number | undefined;
      for (;;) {
        const result = await client.listDeliveries({ ...query, ...(before === undefined ? {} : { before }) }, o);
        yield* result.data;
        if (!result.cursor.has_more || result.cursor.next_before === null) return;
        before = result.cursor.next_before;
      }
    },

    sandbox: {
      hostBooking: (property, body, o) =>
        dataOf(r.POST('/sandbox/properties/{property}/bookings', { params: { path: prop(property) }, body, headers: idempotency(o), signal: o?.signal })),
      hostCancel: (bookingId, body, o) =>
        dataOf(r.POST('/sandbox/bookings/{id}/cancel', { params: { path: { id: String(bookingId) } }, body: body ?? {}, signal: o?.signal })),
      block: (property, body, o) => dataOf(r.POST('/sandbox/properties/{property}/block', { params: { path: prop(property) }, body, signal: o?.signal })),
      unblock: (property, body, o) => dataOf(r.POST('/sandbox/properties/{property}/unblock', { params: { path: prop(property) }, body, signal: o?.signal })),
      rateOverride: (property, body, o) =>
        dataOf(r.POST('/sandbox/properties/{property}/rate-override', { params: { path: prop(property) }, body, signal: o?.signal })),
      restrictionOverride: (property, body, o) =>
        dataOf(r.POST('/sandbox/properties/{property}/restriction-override', { params: { path: prop(property) }, body, signal: o?.signal })),
      archive: (property, o) => dataOf(r.POST('/sandbox/properties/{property}/archive', { params: { path: prop(property) }, signal: o?.signal })),
      advanceClock: (days, o) => dataOf(r.POST('/sandbox/clock/advance', { body: { days }, signal: o?.signal })),
    },

    async *iterateProperties(query, o) {
      for (let page = 1; ; page++) {
        const result = await client.listProperties({ ...query, page }, o);
        yield* result.data.properties;
        if (page >= result.pagination.last_page || result.data.properties.length === 0) return;
      }
    },

    async *iterateBookings(query = {}, o) {
      const perPage = query.per_page ?? 200;
      const yielded = new Map<number, number>();
      let since = query.updated_since;
      let page = 1;
      for (;;) {
        const result = await client.listBookings({ ...query, updated_since: since, per_page: perPage, page }, o);
        for (const booking of result.data) {
          if (yielded.get(booking.id) === booking.revision) continue;
          yielded.set(booking.id, booking.revision);
          yield booking;
        }
        if (page >= result.pagination.last_page || result.data.length < perPage) return;
        // The filter is inclusive: restart from the newest updated_at of this page. When the whole
        // page shares one updated_at, that would ask for the same page again: step to the next one.
        const newest = result.data[result.data.length - 1].updated_at;
        if (since === undefined || Date.parse(newest) > Date.parse(since)) {
          since = newest;
          page = 1;
        } else {
          page++;
        }
      }
    },

    async *iterateEvents(query = {}, o) {
      let after = query.after_sequence ?? 0;
      for (;;) {
        const result = await client.listEvents({ ...query, after_sequence: after }, o);
        yield* result.data as Array<ReplayedEvent>;
        if (!result.cursor.has_more) return;
        after = result.cursor.next_after_sequence;
      }
    },
  };
  return client;
}
