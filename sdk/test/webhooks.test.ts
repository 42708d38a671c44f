import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryHeaders, signingKey } from '../../src/modules/webhooks/webhooks.sign.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../src/modules/webhooks/webhooks.worker.js';
import { createTestContext, type TestContext } from '../../test/helpers/context.js';
import { startReceiver, type Receiver } from '../../test/helpers/receiver.js';
import { createBody } from '../../test/properties/fixtures.js';
import { newRef } from '../../test/bookings/fixtures.js';
import {
  createDoorloomClient,
  createWebhookVerifier,
  isKnownEvent,
  parseWebhookEvent,
  signDelivery,
  verifyWebhook,
  WebhookVerificationError,
  type DoorloomEvent,
} from '../src/index.js';

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const T = 1_800_000_000; // a fixed signing time (unix seconds)
const at = (seconds: number) => () => seconds * 1000;

const body = JSON.stringify({
  id: '01JABCDEF0123456789ABCDEFG',
  type: 'rates.changed',
  sequence: 42,
  origin: 'doorloom',
  version: '2026-09',
  created_at: '2027-01-15T10:00:00+05:30',
  integration: { id: 1, slug: 'acme' },
  property: { doorloom_id: 7, external_id: 'P-7' },
  window: { from: '2027-02-01', to: '2027-02-28' },
  data: { currency: 'INR', note: 'ünïcode “quotes”' },
});

/** Headers exactly as the service's own signer writes them. */
function signed(secrets: string[], timestamp = T, payload = body, id = '01JABCDEF0123456789ABCDEFG') {
  return deliveryHeaders({ slug: 'acme', id, timestamp, body: payload, keys: secrets.map(signingKey) });
}

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return 'verified';
}

describe('webhook verification vectors', () => {
  const current = newSecret();
  const previous = newSecret();

  for (const scheme of ['service', 'standard'] as const) {
    describe(`${scheme} scheme`, () => {
      const verify = (headers: Record<string, string>, secrets: string[], now = T, payload: string | Buffer = body) =>
        reason(() => verifyWebhook(payload, headers, { secrets, now: at(now), scheme }));

      it('accepts the service signer, from a string or the raw bytes', () => {
        const headers = signed([current]);
        expect(verify(headers, [current])).toBe('verified');
        expect(verify(headers, [current], T, Buffer.from(body))).toBe('verified');
        expect(verifyWebhook(Buffer.from(body), headers, { secrets: current, now: at(T), scheme })).toMatchObject({ type: 'rates.changed', sequence: 42 });
      });

      it('rotation: a delivery signed with both secrets verifies with either; the ended one fails', () => {
        const headers = signed([current, previous]);
        expect(verify(headers, [current])).toBe('verified');
        expect(verify(headers, [previous])).toBe('verified');
        expect(verify(headers, [previous, current])).toBe('verified');
        // a receiver holding both secrets accepts a delivery signed with the new one alone
        expect(verify(signed([current]), [previous, current])).toBe('verified');
        expect(verify(signed([current]), [previous])).toBe('signature_mismatch');
        const verifier = createWebhookVerifier({ secrets: [previous], now: at(T), scheme });
        expect(verifier.accepts(body, signed([current]))).toBe(false);
        expect(verifier.accepts(body, signed([previous]))).toBe(true);
        expect(createWebhookVerifier({ secrets: [previous, current], now: at(T), scheme }).verifySignature(body, signed([current]))).toMatchObject({
          scheme,
          timestamp: T,
          secretIndex: 1,
        });
      });

      it('tampering: a changed byte of the body, another secret, or another event id fails', () => {
        const headers = signed([current]);
        expect(verify(headers, [current], T, body.replace('"sequence":42', '"sequence":43'))).toBe('signature_mismatch');
        expect(verify(headers, [current], T, body + ' ')).toBe('signature_mismatch');
        expect(verify(headers, [current], T, JSON.stringify(JSON.parse(body), null, 1))).toBe('signature_mismatch');
        expect(verify(headers, [newSecret()])).toBe('signature_mismatch');
        // the signature of another timestamp
        const later = signed([current], T + 1);
        const replayed =
          scheme === 'service' ? { 'X-Service-Signature': `t=${T},${later['X-Service-Signature'].split(',')[1]}` } : pick(later, ['webhook-signature']);
        expect(verify({ ...headers, ...replayed }, [current])).toBe('signature_mismatch');
        if (scheme === 'standard') expect(verify({ ...headers, 'webhook-id': '01JOTHER' }, [current])).toBe('signature_mismatch');
      });

      it('300 s tolerance both ways', () => {
        const headers = signed([current]);
        expect(verify(headers, [current], T + 300)).toBe('verified');
        expect(verify(headers, [current], T - 300)).toBe('verified');
        expect(verify(headers, [current], T + 301)).toBe('timestamp_out_of_tolerance');
        expect(verify(headers, [current], T - 301)).toBe('timestamp_out_of_tolerance');
        expect(reason(() => verifyWebhook(body, headers, { secrets: current, now: at(T + 900), toleranceSeconds: 1000, scheme }))).toBe('verified');
      });

      it('missing and malformed signatures', () => {
        const headers = signed([current]);
        const name = scheme === 'service' ? 'X-Service-Signature' : 'webhook-signature';
        expect(verify(omit(headers, [name]), [current])).toBe('missing_signature');
        expect(verify({ ...headers, [name]: 'garbage' }, [current])).toBe('malformed_signature');
        if (scheme === 'service') {
          expect(verify({ ...headers, [name]: `t=abc,${headers[name].split(',')[1]}` }, [current])).toBe('malformed_signature');
          expect(verify({ ...headers, [name]: `t=${T}` }, [current])).toBe('malformed_signature');
        } else {
          expect(verify(omit(headers, ['webhook-id']), [current])).toBe('malformed_signature');
          expect(verify({ ...headers, 'webhook-timestamp': 'soon' }, [current])).toBe('malformed_signature');
        }
      });
    });
  }

  it('auto: checks X-Service-Signature when present, never excused by a good Standard signature', () => {
    const secret = newSecret();
    const headers = signed([secret]);
    expect(createWebhookVerifier({ secrets: secret, now: at(T) }).verifySignature(body, headers).scheme).toBe('service');
    const onlyStandard = omit(headers, ['X-Service-Signature']);
    expect(createWebhookVerifier({ secrets: secret, now: at(T) }).verifySignature(body, onlyStandard).scheme).toBe('standard');
    const badService = { ...headers, 'X-Service-Signature': `t=${T},v1=${'0'.repeat(64)}` };
    expect(reason(() => verifyWebhook(body, badService, { secrets: secret, now: at(T) }))).toBe('signature_mismatch');
    expect(reason(() => verifyWebhook(body, {}, { secrets: secret, now: at(T) }))).toBe('missing_signature');
  });

  it('reads headers from a fetch Headers, any case, or Node arrays', () => {
    const secret = newSecret();
    const headers = signed([secret]);
    expect(reason(() => verifyWebhook(body, new Headers(headers), { secrets: secret, now: at(T) }))).toBe('verified');
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(reason(() => verifyWebhook(body, lower, { secrets: secret, now: at(T) }))).toBe('verified');
    expect(reason(() => verifyWebhook(body, { 'x-service-signature': [headers['X-Service-Signature']] }, { secrets: secret, now: at(T) }))).toBe('verified');
  });

  it('agrees with the standardwebhooks library and with Stripe both ways', () => {
    const secret = newSecret();
    const id = 'msg_2zXkV1';
    // signed by the libraries, verified here
    const standardSignature = new Webhook(secret).sign(id, new Date(T * 1000), body);
    const standardHeaders = { 'webhook-id': id, 'webhook-timestamp': String(T), 'webhook-signature': standardSignature };
    expect(reason(() => verifyWebhook(body, standardHeaders, { secrets: secret, now: at(T) }))).toBe('verified');
    const stripeHeader = new Stripe('sk_test_not_used').webhooks.generateTestHeaderString({ payload: body, secret, timestamp: T });
    expect(reason(() => verifyWebhook(body, { 'x-service-signature': stripeHeader }, { secrets: secret, now: at(T) }))).toBe('verified');
    // verified here, and by the library (at real time, so signed now)
    const now = Math.floor(Date.now() / 1000);
    const headers = signed([secret], now, body, id);
    expect(reason(() => verifyWebhook(body, headers, { secrets: secret, scheme: 'standard' }))).toBe('verified');
    expect(() =>
      new Webhook(secret).verify(body, { 'webhook-id': id, 'webhook-timestamp': String(now), 'webhook-signature': headers['webhook-signature'] }),
    ).not.toThrow();
  });

  it('signDelivery writes exactly the headers the service writes, in both schemes and with every secret', () => {
    for (const secrets of [[current], [current, previous]]) {
      expect(signDelivery({ secrets, id: '01JABCDEF0123456789ABCDEFG', slug: 'acme', body, version: '2026-09', timestamp: T })).toEqual(signed(secrets));
    }
    const headers = signDelivery({ secrets: current, id: 'evt', slug: 'acme', body, version: '2026-09' });
    for (const scheme of ['service', 'standard'] as const) expect(createWebhookVerifier({ secrets: current, scheme }).accepts(body, headers)).toBe(true);
  });

  it('rejects an empty secret list', () => {
    expect(() => createWebhookVerifier({ secrets: [] })).toThrow(TypeError);
    expect(() => createWebhookVerifier({ secrets: '' })).toThrow(TypeError);
  });

  it('refuses a tolerance that is not a finite number of seconds, 0 or more', () => {
    const secret = newSecret();
    for (const toleranceSeconds of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, '300' as unknown as number]) {
      expect(() => createWebhookVerifier({ secrets: secret, toleranceSeconds }), String(toleranceSeconds)).toThrow(TypeError);
    }
    // 0 is allowed: the signature must carry the current second
    const zero = createWebhookVerifier({ secrets: secret, toleranceSeconds: 0, now: at(T) });
    expect(zero.accepts(body, signed([secret], T))).toBe(true);
    expect(zero.accepts(body, signed([secret], T - 1))).toBe(false);
    // a stale signature stays stale whatever tolerance slipped through before
    expect(reason(() => verifyWebhook(body, signed([secret], T - 10_000), { secrets: secret, now: at(T) }))).toBe('timestamp_out_of_tolerance');
  });

  it('refuses secrets whose keys are shorter than 16 bytes, so whsec_ alone verifies nothing', () => {
    for (const secrets of ['whsec_', 'whsec_=', 'whsec_!!!!!!!!!!!!!!!!!!!!!!!!', `whsec_${Buffer.alloc(15, 7).toString('base64')}`, [newSecret(), 'whsec_']]) {
      for (const scheme of ['auto', 'standard'] as const) {
        expect(() => createWebhookVerifier({ secrets, scheme }), `${JSON.stringify(secrets)} ${scheme}`).toThrow(TypeError);
      }
    }
    // in the service scheme the whole string is the key: it must be 16 bytes too
    expect(() => createWebhookVerifier({ secrets: 'whsec_', scheme: 'service' })).toThrow(TypeError);
    expect(() => createWebhookVerifier({ secrets: 'whsec_!!!!!!!!!!!!!!!!', scheme: 'service' })).not.toThrow();
    // 16 decoded bytes is enough, and the service's own secrets (32 base62 characters) pass
    expect(() => createWebhookVerifier({ secrets: `whsec_${Buffer.alloc(16, 7).toString('base64')}` })).not.toThrow();
    expect(() => createWebhookVerifier({ secrets: `whsec_${'aZ09'.repeat(8)}` })).not.toThrow();
  });
});

describe('typed events', () => {
  it('narrows known kinds and passes unknown kinds through', () => {
    const known = parseWebhookEvent(body);
    expect(isKnownEvent(known)).toBe(true);
    const unknown = parseWebhookEvent(JSON.stringify({ id: 'x', type: 'loyalty.changed', sequence: 9, data: { tier: 'gold' } }));
    expect(isKnownEvent(unknown)).toBe(false);
    expect(unknown).toMatchObject({ type: 'loyalty.changed', data: { tier: 'gold' } });
    const describe = (event: DoorloomEvent): string => {
      if (!isKnownEvent(event)) return `other:${event.type}`;
      switch (event.type) {
        case 'booking.changed':
          return `booking ${event.data.booking.id} r${event.data.booking.revision}`;
        case 'availability.changed':
          return `nights ${event.data.dates.length}`;
        case 'inventory.changed':
          return `units ${event.data.units.length}`;
        case 'property.changed':
          return `property ${event.data.property.doorloom_id}`;
        default:
          return event.type;
      }
    };
    expect(describe(unknown)).toBe('other:loyalty.changed');
    expect(describe(known)).toBe('rates.changed');
    expect(() => parseWebhookEvent('not json')).toThrow(WebhookVerificationError);
    expect(() => parseWebhookEvent('{"no":"type"}')).toThrow(WebhookVerificationError);
  });
});

describe('verifying the service’s real deliveries', () => {
  let ctx: TestContext;
  let receiver: Receiver;
  let worker: DeliveryWorker;
  beforeAll(async () => {
    ctx = await createTestContext();
    receiver = await startReceiver();
    worker = startDeliveryWorker(ctx.deps, { pollMs: 200 });
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
    await ctx?.close();
  });

  it('verifies every delivery of a property create, before and during a secret rotation', async () => {
    const integration = await ctx.createIntegration({ webhook: { url: `${receiver.url}/hooks` }, horizon_days: 60 });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const address = ctx.app.server.address() as { port: number };
    const client = createDoorloomClient({ baseUrl: `http://127.0.0.1:${address.port}`, apiKey: integration.apiKey });
    // The test clock may run ahead of real time: judge freshness by the service's clock.
    const now = () => ctx.deps.clock.nowMs();

    const property = await client.createProperty(createBody({ external_id: newRef('P') }) as never);
    const delivered = async () => {
      const expected = (await client.me()).webhook.last_sequence;
      await receiver.waitFor((r) => r.filter((x) => x.json?.sequence !== null).length >= expected, 20_000, `${expected} deliveries`);
    };
    await delivered();
    const before = receiver.of(integration.slug);
    const kinds = new Set<string>();
    for (const request of before) {
      const event = verifyWebhook(request.body, request.headers, { secrets: integration.webhookSecret, now });
      kinds.add(event.type);
      expect(verifyWebhook(request.body, request.headers, { secrets: integration.webhookSecret, now, scheme: 'standard' }).id).toBe(event.id);
      expect(reason(() => verifyWebhook(request.body, request.headers, { secrets: newSecret(), now }))).toBe('signature_mismatch');
    }
    expect(kinds).toEqual(new Set(['property.changed', 'inventory.changed', 'availability.changed', 'rates.changed', 'restrictions.changed']));

    const rotated = (await ctx.staff('POST', `/integrations/${integration.id}/webhook-secret/rotate`)).json().data.webhook_secret as string;
    const count = before.length;
    await client.updateProperty(property.doorloom_id, { name: 'After rotation' });
    await delivered();
    const during = receiver.of(integration.slug).slice(count);
    expect(during.map((r) => r.json.type)).toContain('property.changed');
    for (const request of during) {
      for (const secrets of [[rotated], [integration.webhookSecret], [integration.webhookSecret, rotated]]) {
        expect(verifyWebhook(request.body, request.headers, { secrets, now }).type).toBe(request.json.type);
      }
    }
  });
});

function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, headers[n]]));
}
function omit(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));
}
