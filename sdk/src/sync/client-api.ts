import type { DoorloomClient } from '../client/index.js';
import type { EventEnvelope, PropertyBlock, SyncApi } from './api.js';

/**
 * The engine's calls over the SDK's client: its retries (timeouts, 5xx, 429 Retry-After) and its
 * typed errors (DoorloomApiError carries `status`, `code` and `errors`, which is all the engine reads).
 */
export function clientSyncApi(client: DoorloomClient): SyncApi {
  return {
    async me() {
      const me = await client.me();
      return { horizonDays: me.horizon_days, lastSequence: me.webhook.last_sequence };
    },
    async listProperties(page, perPage) {
      const res = await client.listProperties({ page, per_page: perPage });
      return { sequence: res.data.sequence, properties: res.data.properties as unknown as PropertyBlock[], lastPage: res.pagination.last_page };
    },
    async snapshot(kind, propertyId, from, to) {
      const window = { from, to };
      const res =
        kind === 'availability'
          ? await client.getAvailability(propertyId, window)
          : kind === 'rates'
            ? await client.getRates(propertyId, window)
            : await client.getRestrictions(propertyId, window);
      return { sequence: res.sequence, window: res.window, data: res.data };
    },
    async events(afterSequence, limit) {
      const res = await client.listEvents({ after_sequence: afterSequence, limit });
      return {
        events: res.data.map((row) => row.event as unknown as EventEnvelope),
        nextAfterSequence: res.cursor.next_after_sequence,
        hasMore: res.cursor.has_more,
      };
    },
    async listBookings({ updatedSince, page, perPage }) {
      const res = await client.listBookings({ ...(updatedSince ? { updated_since: updatedSince } : {}), page, per_page: perPage });
      return { bookings: res.data, lastPage: res.pagination.last_page };
    },
    async sync(body) {
      return client.sync(body);
    },
  };
}
