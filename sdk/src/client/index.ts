export { createDoorloomClient, PARTNER_PREFIX } from './client.js';
export type {
  DoorloomClient,
  DoorloomClientOptions,
  CallOptions,
  CreateOptions,
  BookingWriteOptions,
  BookingRef,
  PropertyRef,
  ReplayedEvent,
  SandboxClient,
} from './client.js';
export { DoorloomApiError, DoorloomNetworkError } from './errors.js';
export type { ErrorEnvelopeBody } from './errors.js';
export type { RetryOptions, RetryInfo } from './retry.js';
export type * from './types.js';
