import { parseArgs } from 'node:util';
import { createDoorloomClient, type DoorloomClient } from '../client/client.js';
import { DoorloomApiError } from '../client/errors.js';
import { ConfigurationError, CREDENTIAL_OPTIONS, credentials, parseFlags, type Command } from './args.js';

export const TRIGGER_USAGE = `usage: doorloom-partner trigger <action> [--base-url URL] [--api-key KEY] [flags]

  Acts as the host on a property of a sandbox integration; the service records the host's events.
  host-booking          --property ID --from CHECK_IN --to CHECK_OUT [--units N]
  host-cancel           --booking ID
  block                 --property ID --from NIGHT --to NIGHT [--scope everywhere|ota_only]
  unblock               --property ID --from NIGHT --to NIGHT
  rate-override         --property ID --from NIGHT --to NIGHT --price INR
  restriction-override  --property ID --from NIGHT --to NIGHT [--min-stay N] [--stop-sell]
  archive               --property ID
  advance-clock         --days N   (a service running with TEST_CLOCK=1 only)
  --property takes the service id or your external_id; nights are inclusive (YYYY-MM-DD).
  Credentials also come from DOORLOOM_URL and DOORLOOM_API_KEY. Prints what it did as JSON.`;

export const TRIGGER_ACTIONS = [
  'host-booking',
  'host-cancel',
  'block',
  'unblock',
  'rate-override',
  'restriction-override',
  'archive',
  'advance-clock',
] as const;
export type TriggerAction = (typeof TRIGGER_ACTIONS)[number];

const OPTIONS = {
  ...CREDENTIAL_OPTIONS,
  property: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  booking: { type: 'string' },
  scope: { type: 'string' },
  price: { type: 'string' },
  'min-stay': { type: 'string' },
  'stop-sell': { type: 'boolean' },
  days: { type: 'string' },
  units: { type: 'string' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { type: 'boolean' } ? boolean : K extends 'webhook-secret' ? string[] : string };

/** What each action needs besides the credentials. */
const REQUIRED: Record<TriggerAction, Array<keyof Values>> = {
  'host-booking': ['property', 'from', 'to'],
  'host-cancel': ['booking'],
  block: ['property', 'from', 'to'],
  unblock: ['property', 'from', 'to'],
  'rate-override': ['property', 'from', 'to', 'price'],
  'restriction-override': ['property', 'from', 'to'],
  archive: ['property'],
  'advance-clock': ['days'],
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function wholeNumber(value: string, flag: string, min: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new ConfigurationError(`--${flag} must be a whole number of at least ${min}, got "${value}"`);
  }
  return Number(value);
}

export interface TriggerRequest {
  action: TriggerAction;
  baseUrl: string;
  apiKey: string;
  values: Values;
}

/** Reads `trigger <action> …`; every mistake is a ConfigurationError (one line, exit 2). */
export function parseTrigger(args: string[], env: NodeJS.ProcessEnv = process.env): TriggerRequest {
  const [action, ...rest] = args;
  if (!action || action.startsWith('-')) throw new ConfigurationError(`an action is required: ${TRIGGER_ACTIONS.join(', ')}`);
  if (!(TRIGGER_ACTIONS as readonly string[]).includes(action))
    throw new ConfigurationError(`unknown action "${action}" (one of ${TRIGGER_ACTIONS.join(', ')})`);
  const { values } = parseFlags(() => parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false })) as { values: Values };
  const creds = credentials(values, ['base-url', 'api-key'], env);
  const missing = REQUIRED[action as TriggerAction].filter((flag) => values[flag] === undefined || values[flag] === '');
  if (missing.length > 0) throw new ConfigurationError(`${action} needs ${missing.map((m) => `--${m}`).join(', ')}`);
  for (const flag of ['from', 'to'] as const) {
    if (values[flag] !== undefined && !DATE.test(values[flag])) throw new ConfigurationError(`--${flag} must be a date YYYY-MM-DD, got "${values[flag]}"`);
  }
  if (values.scope !== undefined && values.scope !== 'everywhere' && values.scope !== 'ota_only') {
    throw new ConfigurationError(`--scope must be everywhere or ota_only, got "${values.scope}"`);
  }
  if (values.price !== undefined && !/^\d+(\.\d{1,2})?$/.test(values.price))
    throw new ConfigurationError(`--price must be an amount in INR, got "${values.price}"`);
  if (values['min-stay'] !== undefined) wholeNumber(values['min-stay'], 'min-stay', 1);
  if (values.booking !== undefined) wholeNumber(values.booking, 'booking', 1);
  if (values.days !== undefined) wholeNumber(values.days, 'days', 1);
  if (values.units !== undefined) wholeNumber(values.units, 'units', 1);
  if (action === 'restriction-override' && values['min-stay'] === undefined && !values['stop-sell']) {
    throw new ConfigurationError('restriction-override needs --min-stay or --stop-sell');
  }
  return { action: action as TriggerAction, baseUrl: creds.baseUrl, apiKey: creds.apiKey, values };
}

/** Calls the sandbox route of the action; answers what the command prints. */
export async function runTrigger(client: DoorloomClient, request: TriggerRequest): Promise<Record<string, unknown>> {
  const v = request.values;
  const property = v.property!;
  const nights = { from: v.from!, to: v.to! };
  const s = client.sandbox;
  switch (request.action) {
    case 'host-booking': {
      const units = Array.from({ length: v.units === undefined ? 1 : Number(v.units) }, () => ({ adults: 1 }));
      const booking = await s.hostBooking(property, { check_in: nights.from, check_out: nights.to, units });
      return { action: request.action, property, booking_id: booking.id, booking };
    }
    case 'host-cancel': {
      const booking = await s.hostCancel(Number(v.booking));
      return { action: request.action, booking_id: booking.id, booking };
    }
    case 'block':
      return {
        action: request.action,
        property,
        result: await s.block(property, { ...nights, block_scope: (v.scope as 'everywhere' | 'ota_only' | undefined) ?? 'everywhere' }),
      };
    case 'unblock':
      return { action: request.action, property, result: await s.unblock(property, nights) };
    case 'rate-override':
      return { action: request.action, property, result: await s.rateOverride(property, { ...nights, base_price: Number(v.price) }) };
    case 'restriction-override':
      return {
        action: request.action,
        property,
        result: await s.restrictionOverride(property, {
          ...nights,
          ...(v['min-stay'] !== undefined ? { min_stay: Number(v['min-stay']) } : {}),
          ...(v['stop-sell'] ? { stop_sell: true } : {}),
        }),
      };
    case 'archive':
      return { action: request.action, property, result: await s.archive(property) };
    case 'advance-clock':
      return { action: request.action, days: Number(v.days), clock: await s.advanceClock(Number(v.days)) };
  }
}

/** One line for a refusal: status, code, message and the field errors. */
export function refusalLine(error: unknown): string {
  if (error instanceof DoorloomApiError) {
    const errors = error.errors ? ` ${JSON.stringify(error.errors)}` : '';
    return `${error.message}${errors}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** `doorloom-partner trigger …`: exit 0 done, 1 refused by the service or unreachable; bad flags throw a ConfigurationError (main.ts: exit 2). */
export async function triggerCommand(args: string[]): Promise<number> {
  const request = parseTrigger(args);
  try {
    const client = createDoorloomClient({ baseUrl: request.baseUrl, apiKey: request.apiKey });
    process.stdout.write(`${JSON.stringify(await runTrigger(client, request), null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`doorloom-partner trigger ${request.action}: ${refusalLine(error)}\n`);
    return 1;
  }
}

export const trigger: Command = { name: 'trigger', usage: TRIGGER_USAGE, run: (argv) => triggerCommand(argv) };
