/** Tables owned by the bookings module (see its migrations). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BookingTables {}
