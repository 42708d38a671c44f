export { SyncEngine, type SyncEngineOptions, type ReceiveResult, type SyncOutcome, type Change } from './engine.js';
export { clientSyncApi } from './client-api.js';
export type { SyncApi, WindowedKind, EventEnvelope, PropertyBlock as MirrorPropertyBlock, Booking as MirrorBooking, SyncRequest } from './api.js';
export type { Meta } from './mirror.js';
export { webhookHandler, type WebhookVerifier } from './receiver.js';
