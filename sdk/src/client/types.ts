import type { paths } from '../generated/api.js';

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
export type Integration = Body<paths['/me']['get'], 200>['data'];
/** A property as listed, created and updated (contract: Property block). */
export type PropertyBlock = Body<paths['/properties']['get'], 200>['data']['properties'][number];
/** One entry of a property's `units[]`. */
export type Unit = PropertyBlock['units'][number];
/** GET /properties/{property}: the block plus address, space, occupancy, pricing and features. */
export type PropertyDetail = Body<paths['/properties/{property}']['get'], 200>['data'];
/** A booking (contract: Booking). */
export type Booking = Body<paths['/bookings/{id}']['get'], 200>['data'];

export type AvailabilitySnapshot = Body<paths['/properties/{property}/availability']['get'], 200>['data'];
export type RatesSnapshot = Body<paths['/properties/{property}/rates']['get'], 200>['data'];
export type RestrictionsSnapshot = Body<paths['/properties/{property}/restrictions']['get'], 200>['data'];
/** The `data.data` of an availability snapshot, and the `data` of availability.changed. */
export type AvailabilityPayload = AvailabilitySnapshot['data'];
export type RatesPayload = RatesSnapshot['data'];
export type RestrictionsPayload = RestrictionsSnapshot['data'];

/** `pagination` of GET /bookings and GET /properties. */
export type Pagination = Body<paths['/bookings']['get'], 200>['pagination'];
/** `cursor` of GET /events. */
export type Cursor = Body<paths['/events']['get'], 200>['cursor'];
/** One row of GET /events: the event under `event`, with its delivery state. */
export type EventRow = Body<paths['/events']['get'], 200>['data'][number];

export type PropertyListPage = Body<paths['/properties']['get'], 200>;
export type BookingListPage = Body<paths['/bookings']['get'], 200>;
export type EventPage = Body<paths['/events']['get'], 200>;

export type PropertyListQuery = Query<paths['/properties']['get']>;
export type BookingListQuery = Query<paths['/bookings']['get']>;
export type EventListQuery = Query<paths['/events']['get']>;
export type SnapshotQuery = Query<paths['/properties/{property}/availability']['get']>;

export type PropertyCreateInput = Input<paths['/properties']['post']>;
export type PropertyUpdateInput = Input<paths['/properties/{property}']['put']>;
export type PropertyBulkCreateInput = Input<paths['/properties/bulk']['post']>;
export type PropertyBulkUpdateInput = Input<paths['/properties/bulk']['put']>;
export type PropertyBulkResult = Body<paths['/properties/bulk']['post'], 200>['data'];
export type BookingCreateInput = Input<paths['/bookings']['post']>;
export type BookingUpdateInput = Input<paths['/bookings/{id}']['patch']>;
export type BookingCancelInput = Input<paths['/bookings/{id}/cancel']['post']>;
export type SyncInput = Input<paths['/sync']['post']>;
export type SyncResult = Body<paths['/sync']['post'], 202>['data'];
/** POST /bookings: the booking, with `duplicate: true` when it already existed (200). */
export type BookingCreateResult = Body<paths['/bookings']['post'], 201>['data'];
