import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestContext, TestIntegration } from '../../test/helpers/context.js';
import { eventsOf, lastSequence } from '../../test/helpers/fixtures.js';
import { startReceiver, type Receiver } from '../../test/helpers/receiver.js';
import { addDays, closeService, kolkataDate, openService, runCli, until, type Service } from './sync-helpers.js';

let ctx: TestContext;
let service: Service;
let receiver: Receiver;

beforeAll(async () => {
  ({ ctx, service } = await openService());
  receiver = await startReceiver((request) => (request.path.startsWith('/fail') ? { status: 503, body: 'try later' } : { status: 200, body: '{"ok":true}' }));
});
afterAll(async () => {
  await closeService({ ctx, service });
  await receiver?.close();
});

const creds = (i: TestIntegration) => ['--base-url', service.baseUrl, '--api-key', i.apiKey];
const day = (n: number) => addDays(kolkataDate(ctx.deps.clock.now()), n);

async function sandboxIntegration(webhook?: object): Promise<TestIntegration> {
  const brand = await ctx.staff('POST', '/brands', { name: 'CLI Sandbox', sandbox: true });
  return ctx.createIntegration({ brandId: brand.json().data.id, ...(webhook ? { webhook } : {}) });
}

async function createProperty(integration: TestIntegration, externalId: string, units = 2): Promise<number> {
  const res = await ctx.api(
    integration.apiKey,
    'POST',
    '/properties',
    {
      external_id: externalId,
      name: `Trigger Villa ${externalId}`,
      description: 'For the trigger test.',
      address: { address_line_1: '1 CLI Road', city: 'Panaji', state: 'Goa', pin_code: '403001' },
      space: { bedrooms: units, washrooms: 1 },
      occupancy: { max_guests: 4 },
      pricing: { weekday: { base_price: 5000 }, weekend: { base_price: 7000 } },
      units: Array.from({ length: units }, (_, i) => ({ name: `Room ${i + 1}`, external_id: `${externalId}-U${i + 1}` })),
    },
    { 'idempotency-key': `key-${externalId}-create` },
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.doorloom_id;
}

/** Runs a trigger and answers its JSON and the events it recorded. */
async function trigger(integration: TestIntegration, args: string[], env: Record<string, string> = {}) {
  const before = await lastSequence(ctx, integration.id);
  const run = await runCli(['trigger', ...args, ...(env.DOORLOOM_API_KEY ? [] : creds(integration))], env);
  expect(run.code, run.stderr).toBe(0);
  return { output: JSON.parse(run.stdout), events: await eventsOf(ctx, integration.id, before) };
}

const kinds = (events: Array<{ type: string; origin: string }>) => [...new Set(events.map((e) => `${e.type} ${e.origin}`))];

describe('doorloom-partner trigger', () => {
  it('runs every action with the partner’s own parameters and prints what it did', async () => {
    const integ = await sandboxIntegration();
    const id = await createProperty(integ, 'TRIG-1');

    // Credentials from the environment; the property by external id.
    const booked = await trigger(integ, ['host-booking', '--property', 'TRIG-1', '--from', day(3), '--to', day(5), '--units', '2'], {
      DOORLOOM_URL: service.baseUrl,
      DOORLOOM_API_KEY: integ.apiKey,
    });
    expect(booked.output).toMatchObject({ action: 'host-booking', property: 'TRIG-1', booking_id: expect.any(Number) });
    expect(booked.output.booking).toMatchObject({
      id: booked.output.booking_id,
      check_in: day(3),
      check_out: day(5),
      status: 'confirmed',
      property: { doorloom_id: id, external_id: 'TRIG-1' },
    });
    expect(booked.output.booking.units).toHaveLength(2);
    expect(booked.events.map((e) => `${e.type} ${e.origin}`)).toEqual(['booking.changed doorloom', 'availability.changed doorloom']);
    expect(booked.events[0].data.booking.id).toBe(booked.output.booking_id);

    const cancelled = await trigger(integ, ['host-cancel', '--booking', String(booked.output.booking_id)]);
    expect(cancelled.output).toMatchObject({ action: 'host-cancel', booking_id: booked.output.booking_id, booking: { status: 'cancelled' } });
    expect(cancelled.events.map((e) => `${e.type} ${e.origin}`)).toEqual(['booking.changed doorloom', 'availability.changed doorloom']);

    const blocked = await trigger(integ, ['block', '--property', String(id), '--from', day(6), '--to', day(7), '--scope', 'ota_only']);
    expect(kinds(blocked.events)).toEqual(['availability.changed doorloom']);
    expect(blocked.output.result.data.dates.map((d: { block_scope: string }) => d.block_scope)).toEqual(['ota_only', 'ota_only']);
    const everywhere = await trigger(integ, ['block', '--property', 'TRIG-1', '--from', day(8), '--to', day(8)]);
    expect(everywhere.output.result.data.dates[0]).toMatchObject({ block_scope: 'everywhere', available_units: 0 });

    const unblocked = await trigger(integ, ['unblock', '--property', 'TRIG-1', '--from', day(6), '--to', day(8)]);
    expect(kinds(unblocked.events)).toEqual(['availability.changed doorloom']);
    expect(unblocked.output.result.data.dates.every((d: { is_blocked: boolean }) => !d.is_blocked)).toBe(true);

    const priced = await trigger(integ, ['rate-override', '--property', 'TRIG-1', '--from', day(6), '--to', day(6), '--price', '4999.5']);
    expect(kinds(priced.events)).toEqual(['rates.changed doorloom']);
    expect(priced.events[0].data.dates[0]).toMatchObject({ date: day(6), base_price: 4999.5, source: 'override' });

    const restricted = await trigger(integ, [
      'restriction-override',
      '--property',
      'TRIG-1',
      '--from',
      day(6),
      '--to',
      day(7),
      '--min-stay',
      '2',
      '--stop-sell',
    ]);
    expect(kinds(restricted.events)).toEqual(['restrictions.changed doorloom']);
    expect(restricted.events[0].data.dates[0]).toMatchObject({ min_stay: 2, stop_sell: true });

    const clock = (await ctx.staff('GET', '/clock')).json().data.offset_seconds;
    const advanced = await trigger(integ, ['advance-clock', '--days', '1']);
    expect(advanced.output).toMatchObject({ action: 'advance-clock', days: 1 });
    expect(advanced.output.clock.offset_seconds - clock).toBe(86400);

    const archived = await trigger(integ, ['archive', '--property', 'TRIG-1']);
    expect(archived.output.result).toMatchObject({ doorloom_id: id, status: 'archived' });
    expect(archived.events.map((e) => `${e.type} ${e.origin}`)).toEqual(['property.changed doorloom']);
  });

  it('a production integration is told 404 NOT_FOUND (exit 1); bad flags are one line and exit 2', async () => {
    const production = await ctx.createIntegration();
    await createProperty(production, 'PROD-1');
    const refused = await runCli(['trigger', 'block', '--property', 'PROD-1', '--from', day(2), '--to', day(2), ...creds(production)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('404 NOT_FOUND');
    expect(refused.stdout).toBe('');

    const integ = await sandboxIntegration();
    for (const args of [
      ['trigger'],
      ['trigger', 'explode', '--property', '1'],
      ['trigger', 'block', '--property', 'X', '--from', day(2)],
      ['trigger', 'block', '--property', 'X', '--from', day(2), '--to', day(2), '--scope', 'somewhere'],
      ['trigger', 'rate-override', '--property', 'X', '--from', day(2), '--to', day(2), '--price', 'cheap'],
      ['trigger', 'restriction-override', '--property', 'X', '--from', day(2), '--to', day(2)],
      ['trigger', 'advance-clock', '--days', '0'],
      ['trigger', 'host-cancel', '--booking', 'abc'],
      ['trigger', 'archive', '--property', 'X', '--bogus'],
    ]) {
      const run = await runCli([...args, ...creds(integ)]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^configuration error: /)]);
    }
    const noCreds = await runCli(['trigger', 'archive', '--property', 'X']);
    expect(noCreds.code).toBe(2);
    expect(noCreds.stderr).toContain('DOORLOOM_API_KEY');
    // A refusal of the service itself (a property the integration does not cover) is exit 1 with its code.
    const bad = await runCli(['trigger', 'block', '--property', 'NOPE', '--from', day(2), '--to', day(2), ...creds(integ)]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('404 NOT_FOUND');
  });
});

describe('doorloom-partner deliveries', () => {
  it('prints the integration’s latest attempts, newest first, up to --limit', async () => {
    const integ = await sandboxIntegration({ url: `${receiver.url}/fail/cli` });
    await createProperty(integ, 'DLV-1', 1);
    await until(async () => (await ctx.api(integ.apiKey, 'GET', '/deliveries')).json().data.length >= 1, 20_000, 'a failed attempt');
    // Move past the retry so that there are two attempts of event 1.
    await ctx.advanceClock(61);
    await until(async () => (await ctx.api(integ.apiKey, 'GET', '/deliveries')).json().data.length >= 2, 20_000, 'the retry');

    const run = await runCli(['deliveries', '--limit', '1', ...creds(integ)]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\S+\+05:30 #1 property\.changed attempt 2 failed 503 \d+ms/);
    // The receiver listens on loopback: the service shows partners its status only, not its answer.
    expect(lines[0]).not.toContain('try later');

    const all = await runCli(['deliveries', '--json'], { DOORLOOM_URL: service.baseUrl, DOORLOOM_API_KEY: integ.apiKey });
    expect(all.code, all.stderr).toBe(0);
    const attempts = JSON.parse(all.stdout);
    expect(attempts.map((a: { attempt: number }) => a.attempt).slice(0, 2)).toEqual([2, 1]);
    expect(attempts.every((a: { sequence: number }) => a.sequence === 1)).toBe(true);
    expect(attempts[0].next_attempt_at === null || typeof attempts[0].next_attempt_at === 'string').toBe(true);

    const bad = await runCli(['deliveries', '--limit', 'many', ...creds(integ)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^configuration error: --limit/);
  });
});
