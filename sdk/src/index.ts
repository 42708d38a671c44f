// Public entry point of @doorloom/partner-sdk.
export * from './client/index.js';
export * from './events.js';
export type { paths as DoorloomPaths, components as DoorloomComponents } from './generated/api.js';
export { createWebhookVerifier, verifyWebhook, parseWebhookEvent, WebhookVerificationError } from './webhooks.js';
export { signDelivery, webhookUserAgent, type SignDeliveryOptions } from './webhooks.js';
export type { SignatureScheme, WebhookVerifyOptions, HeadersLike, WebhookVerificationFailure, VerifiedSignature, SignatureVerifier } from './webhooks.js';
export * from './sync/index.js';
export { MemoryStore, FileStore, type SyncStore, type FileStoreOptions } from './store/store.js';
