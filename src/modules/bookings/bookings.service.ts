/** The bookings module's flows, one file each (create, reads, update and cancel), for the routes. */
export { createBooking, hostCreateBooking, type CreateAnswer } from './bookings.create.js';
export { getBooking, listBookings } from './bookings.reads.js';
export { cancelBooking, updateBooking } from './bookings.update.js';
