/** Booking reads: one booking, and the list. */
import type { Deps } from '../../deps.js';
import { validationFailed, type FieldErrors } from '../../http/errors.js';
import { isValidDate } from '../../lib/time.js';
import { parseUpdatedSince } from './bookings.input.js';
import { bookingUnits, bookingView, type BookingView } from './bookings.payloads.js';
import type { ListBookingsQueryInput } from './bookings.schemas.js';
import { selectAliasesOfUnits, selectPropertyExternalIds } from '../properties/properties.sql.js';
import { selectBookingPage, selectVisibleBooking, type Viewer } from './bookings.sql.js';
import { bookingNotFound, viewOf } from './bookings.common.js';

// ---------------------------------------------------------------------------------------------
// Reads

export async function getBooking(deps: Deps, viewer: Viewer, by: { id: number } | { externalId: string }): Promise<BookingView> {
  const row = await selectVisibleBooking(deps.db, viewer, by);
  if (!row) throw bookingNotFound();
  return viewOf(deps, viewer, row);
}

/** GET /bookings: the viewer's bookings by (updated_at, id) ascending, every filter of the contract. */
export async function listBookings(deps: Deps, integrationId: number, query: ListBookingsQueryInput) {
  const errors: FieldErrors = {};
  let updatedSince: Date | undefined;
  if (query.updated_since !== undefined) {
    updatedSince = parseUpdatedSince(query.updated_since) ?? undefined;
    if (!updatedSince) errors.updated_since = ['must be a date (YYYY-MM-DD) or a timestamp (ISO-8601)'];
  }
  for (const key of ['check_in_from', 'check_in_to'] as const) {
    const value = query[key];
    if (value !== undefined && !isValidDate(value)) errors[key] = ['must be a date written YYYY-MM-DD'];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);

  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  const { rows, total } = await selectBookingPage(deps.db, integrationId, {
    updatedSince,
    status: query.status,
    propertyId: query.property_id,
    checkInFrom: query.check_in_from,
    checkInTo: query.check_in_to,
    limit: perPage,
    offset: (page - 1) * perPage,
  });
  const [aliases, externalIds] = await Promise.all([
    selectAliasesOfUnits(
      deps.db,
      integrationId,
      rows.flatMap((r) => bookingUnits(r).map((u) => u.unit_id)),
    ),
    selectPropertyExternalIds(
      deps.db,
      integrationId,
      rows.map((r) => r.property_id),
    ),
  ]);
  return {
    data: rows.map((row) => bookingView(row, { propertyExternalId: externalIds.get(row.property_id) ?? null, aliases })),
    pagination: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}
