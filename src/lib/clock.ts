/**
 * The clocks. Every time rule reads one of them, never the system time directly, so that the test
 * clock can move the whole service forward and a sandbox brand can move its own data forward.
 *
 * - The service clock (`Clock` itself: `now`, `nowMs`): real time plus the test clock's offset
 *   (staff `POST /clock`, TEST_CLOCK=1 only).
 * - A brand's clock (`clock.ofBrand(id)`, `clock.ofIntegration(id)`): the service clock plus the
 *   brand's own offset, which only the sandbox's `POST /sandbox/clock/advance` moves (forward
 *   only). Moving the service clock therefore moves every brand's clock with it, and a brand that
 *   never advanced reads the service clock.
 *
 * Which clock each time rule reads is `TIME_RULES`, the one place that says it (docs/sandbox.md
 * repeats it): call sites name their rule through `dataClock` or `serviceClock`.
 */
export interface Clock {
  /** Current time on this clock. */
  now(): Date;
  /** Milliseconds since the epoch, on this clock. */
  nowMs(): number;
  /** Seconds this clock runs ahead of real time. */
  offsetSeconds(): number;
  /** Replace the service clock's offset (test clock only; the caller persists it). */
  setOffsetSeconds(seconds: number): void;
  /** The clock of a brand's data (the service clock for null, or a brand that never advanced). */
  ofBrand(brandId: number | null | undefined): Clock;
  /** The clock of the brand the integration belongs to. */
  ofIntegration(integrationId: number | null | undefined): Clock;
  /** Seconds a brand's clock runs ahead of the service clock (0 for a brand that never advanced). */
  brandOffsetSeconds(brandId: number): number;
  /** The largest brand offset, in seconds (0 when no brand runs ahead): the latest clock there is. */
  maxBrandOffsetSeconds(): number;
  /** Replace what this process knows of the brands' offsets (the caller reads them from the brands). */
  setBrandOffsets(offsets: BrandOffset[]): void;
}

/** A brand whose clock runs ahead of the service clock, and its integrations. */
export interface BrandOffset {
  brandId: number;
  offsetSeconds: number;
  integrationIds: number[];
}

/**
 * Which clock each time rule reads: `brand` rules belong to a brand's data and read that brand's
 * clock; `service` rules belong to the platform or to real time and read the service clock.
 */
export const TIME_RULES = {
  /** "today" for bookings (check-in not before today), host edits and availability snapshots. */
  today: 'brand',
  /** The horizon and its daily roll. */
  horizon: 'brand',
  /** When events occurred: their `created_at` and their ids' time. */
  occurredAt: 'brand',
  /** Retention of the brand's events (30 days). */
  eventRetention: 'brand',
  /** The 24-hour re-sync window of POST /sync. */
  resyncWindow: 'brand',
  /** The integration's delivery retry ladder, its pause and its probe. */
  deliveryRetries: 'brand',
  /** Request rate-limit windows. */
  rateLimits: 'service',
  /** The staff lockout and which credentials verified from an address lately. */
  staffLockout: 'service',
  /** Staff token expiry and last use. */
  staffTokens: 'service',
  /** Work leases (on the database's own clock). */
  leases: 'service',
  /** Idempotency record expiry. */
  idempotency: 'service',
  /** Webhook signature timestamps (`webhook-timestamp`, Stripe's `t=`), so that receivers verify them. */
  signatures: 'service',
} as const;

type BrandRule = { [R in keyof typeof TIME_RULES]: (typeof TIME_RULES)[R] extends 'brand' ? R : never }[keyof typeof TIME_RULES];
type ServiceRule = { [R in keyof typeof TIME_RULES]: (typeof TIME_RULES)[R] extends 'service' ? R : never }[keyof typeof TIME_RULES];

/** The clock a brand rule reads for the data of an integration (`{ integrationId }`) or a brand (`{ brandId }`). */
export function dataClock(clock: Clock, _rule: BrandRule, of: { integrationId: number | null | undefined } | { brandId: number | null | undefined }): Clock {
  return 'brandId' in of ? clock.ofBrand(of.brandId) : clock.ofIntegration(of.integrationId);
}

/** The clock a service rule reads: the service clock. */
export function serviceClock(clock: Clock, _rule: ServiceRule): Clock {
  return clock;
}

export function createClock(initialOffsetSeconds = 0): Clock {
  let offsetMs = initialOffsetSeconds * 1000;
  const nowMs = () => Date.now() + offsetMs;
  let brands = new Map<number, number>();
  let integrations = new Map<number, number>();
  const brandClocks = new Map<number, Clock>();

  const service: Clock = {
    now: () => new Date(nowMs()),
    nowMs,
    offsetSeconds: () => offsetMs / 1000,
    setOffsetSeconds(seconds: number) {
      offsetMs = seconds * 1000;
    },
    ofBrand(brandId) {
      if (brandId === null || brandId === undefined || !brands.has(brandId)) return service;
      let clock = brandClocks.get(brandId);
      if (!clock) {
        // Reads the offset at every call, so a clock handed out earlier follows later moves.
        const brandMs = () => nowMs() + (brands.get(brandId) ?? 0) * 1000;
        clock = {
          ...service,
          now: () => new Date(brandMs()),
          nowMs: brandMs,
          offsetSeconds: () => offsetMs / 1000 + (brands.get(brandId) ?? 0),
        };
        brandClocks.set(brandId, clock);
      }
      return clock;
    },
    ofIntegration(integrationId) {
      return integrationId === null || integrationId === undefined ? service : service.ofBrand(integrations.get(integrationId));
    },
    brandOffsetSeconds: (brandId) => brands.get(brandId) ?? 0,
    maxBrandOffsetSeconds: () => Math.max(0, ...brands.values()),
    setBrandOffsets(offsets) {
      brands = new Map(offsets.filter((o) => o.offsetSeconds !== 0).map((o) => [o.brandId, o.offsetSeconds]));
      integrations = new Map(offsets.filter((o) => o.offsetSeconds !== 0).flatMap((o) => o.integrationIds.map((id) => [id, o.brandId] as [number, number])));
    },
  };
  return service;
}
