import type { components, paths } from '../generated/api.js';

type Schemas = components['schemas'];

/** The JSON body of an operation's response with the given status. */
type Body<Op, Status extends number> = Op extends { responses: infer R }
  ? Status extends keyof R
    ? R[Status] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never;
/** The JSON request body of an operation. */
type Input<Op> = Op extends { requestBody?: infer B } ? (NonNullable<B> extends { content: { 'application/json': infer J } } ? J : never) : never;
/** The query parameters of an operation. */
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** GET /me: the integration (contract: Integration). */
export type Integration = Schemas['Integration'];
/** A property as listed, created and updated (contract: Property block). */
export type PropertyBlock = Schemas['PropertyBlock'];
/** One entry of a property's `units[]`. */
export type Unit = Schemas['Unit'];
/** GET /properties/{property}: the block plus address, space, occupancy, pricing and features. */
export type PropertyDetail = Schemas['PropertyDetail'];
/** A booking (contract: Booking). */
export type Booking = Schemas['Booking'];

export type AvailabilitySnapshot = Schemas['AvailabilitySnapshot'];
export type RatesSnapshot = Schemas['RatesSnapshot'];
export type RestrictionsSnapshot = Schemas['RestrictionsSnapshot'];
/** The `data.data` of an availability snapshot, and the `data` of availability.changed. */
export type AvailabilityPayload = Schemas['AvailabilityPayload'];
export type RatesPayload = Schemas['RatesPayload'];
export type RestrictionsPayload = Schemas['RestrictionsPayload'];

/** `pagination` of GET /bookings and GET /properties. */
export type Pagination = Schemas['Pagination'];
/** `cursor` of GET /events. */
export type Cursor = Schemas['Cursor'];
/** One row of GET /events: the event under `event`, with its delivery state. */
export type EventRow = Schemas['EventRow'];

export type PropertyListPage = Body<paths['/properties']['get'], 200>;
export type BookingListPage = Body<paths['/bookings']['get'], 200>;
export type EventPage = Body<paths['/events']['get'], 200>;

export type PropertyListQuery = Query<paths['/properties']['get']>;
export type BookingListQuery = Query<paths['/bookings']['get']>;
export type EventListQuery = Query<paths['/events']['get']>;
export type SnapshotQuery = Query<paths['/properties/{property}/availability']['get']>;

export type PropertyCreateInput = Schemas['PropertyCreateInput'];
export type PropertyUpdateInput = Schemas['PropertyUpdateInput'];
export type PropertyBulkCreateInput = Input<paths['/properties/bulk']['post']>;
export type PropertyBulkUpdateInput = Input<paths['/properties/bulk']['put']>;
export type PropertyBulkResult = Schemas['BulkResult'];
export type BookingCreateInput = Schemas['BookingCreateInput'];
export type BookingUpdateInput = Schemas['BookingUpdateInput'];
export type BookingCancelInput = Schemas['BookingCancelInput'];
export type SyncInput = Schemas['SyncInput'];
export type SyncResult = Schemas['SyncResult'];
/** POST /bookings: the booking, with `duplicate: true` when it already existed (200). */
export type BookingCreateResult = Body<paths['/bookings']['post'], 201>['data'];
/** The failure envelope of every refusal. */
export type ErrorEnvelope = Schemas['ErrorEnvelope'];

/** GET /deliveries: a page of the integration's own delivery attempts, newest first, with `cursor`. */
export type DeliveryPage = Body<paths['/deliveries']['get'], 200>;
/** One delivery attempt of GET /deliveries. */
export type DeliveryAttempt = DeliveryPage['data'][number];
export type DeliveryListQuery = Query<paths['/deliveries']['get']>;

/** Bodies of the sandbox test helpers (a sandbox brand's integrations only). */
export type SandboxBookingInput = Input<paths['/sandbox/properties/{property}/bookings']['post']>;
export type SandboxCancelInput = Input<paths['/sandbox/bookings/{id}/cancel']['post']>;
export type SandboxBlockInput = Input<paths['/sandbox/properties/{property}/block']['post']>;
export type SandboxUnblockInput = Input<paths['/sandbox/properties/{property}/unblock']['post']>;
export type SandboxRateInput = Input<paths['/sandbox/properties/{property}/rate-override']['post']>;
export type SandboxRestrictionInput = Input<paths['/sandbox/properties/{property}/restriction-override']['post']>;
/** What a sandbox calendar action answers: the payload of the edited nights. */
export type SandboxEditResult = Body<paths['/sandbox/properties/{property}/block']['post'], 200>['data'];
/** The service clock after a sandbox advance-clock. */
export type SandboxClock = Body<paths['/sandbox/clock/advance']['post'], 200>['data'];
