// A partner in one file: a webhook receiver plus a sync engine keeping ./mirror-data equal to the service.
import { createServer } from 'node:http';
import { createDoorloomClient, createWebhookVerifier, clientSyncApi, SyncEngine, FileStore, webhookHandler } from '@doorloom/partner-sdk';

const client = createDoorloomClient({ baseUrl: process.env.DOORLOOM_URL, apiKey: process.env.DOORLOOM_API_KEY });
// Every live secret (comma-separated): during a rotation, both verify.
const verifier = createWebhookVerifier({ secrets: process.env.DOORLOOM_WEBHOOK_SECRET.split(',') });
const engine = new SyncEngine({
  api: clientSyncApi(client),
  store: new FileStore('./mirror-data'), // atomic appends: survives kill -9
  onChange: (change) =>
    console.log('changed:', change.kind, change.propertyId ?? '', change.nights ? `${change.nights.length} nights from ${change.nights[0]}` : ''),
});
await engine.load();

// The receiver is up before the backfill, so deliveries made meanwhile are applied too.
const receive = webhookHandler(engine, (rawBody, headers) => verifier.accepts(rawBody, headers));
createServer(receive).listen(Number(process.env.PORT ?? 4000), '127.0.0.1');

// First run: properties, 92-night snapshots, bookings. Every run: replays what was missed, then polls.
await engine.start();
console.log('in sync through sequence', engine.status().applied_through, '-', engine.properties().length, 'properties');

// The typed client on its own: retries per the contract, pages for you.
for await (const booking of client.iterateBookings({ updated_since: '2026-01-01' })) {
  console.log('booking', booking.id, booking.external_booking_id, booking.status, 'revision', booking.revision);
}
