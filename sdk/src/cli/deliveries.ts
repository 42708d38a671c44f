import { parseArgs } from 'node:util';
import { createDoorloomClient } from '../client/client.js';
import type { DeliveryAttempt } from '../client/types.js';
import { ConfigurationError, CREDENTIAL_OPTIONS, credentials, parseFlags, type Command } from './args.js';
import { refusalLine } from './trigger.js';

export const DELIVERIES_USAGE = `usage: doorloom-partner deliveries [--base-url URL] [--api-key KEY] [--limit N] [--json]

  The integration's latest webhook delivery attempts, newest first (default 20).
  One line each: time, sequence, type, attempt, HTTP status or error, milliseconds, next attempt, the answer's first bytes.
  --json prints the attempts as a JSON array instead.
  Credentials also come from DOORLOOM_URL and DOORLOOM_API_KEY.`;

const DEFAULT_LIMIT = 20;
const EXCERPT = 80;

/** One attempt as a line of text. */
export function attemptLine(a: DeliveryAttempt): string {
  const outcome = a.status_code !== null ? `${a.success ? 'ok' : 'failed'} ${a.status_code}` : `failed ${a.error ?? 'no answer'}`;
  const next = a.next_attempt_at ? ` next ${a.next_attempt_at}` : '';
  const body = a.response_body ? ` ${JSON.stringify(a.response_body.length > EXCERPT ? `${a.response_body.slice(0, EXCERPT)}…` : a.response_body)}` : '';
  return `${a.attempted_at} #${a.sequence} ${a.type} attempt ${a.attempt} ${outcome} ${a.duration_ms}ms${next}${body}`;
}

/** `doorloom-partner deliveries …`: exit 0 listed, 1 refused or unreachable; bad flags throw a ConfigurationError (main.ts: exit 2). */
export async function deliveriesCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values } = parseFlags(() =>
    parseArgs({ args, options: { ...CREDENTIAL_OPTIONS, limit: { type: 'string' }, json: { type: 'boolean' } }, strict: true, allowPositionals: false }),
  );
  const creds = credentials(values, ['base-url', 'api-key'], env);
  const limit = values.limit === undefined ? DEFAULT_LIMIT : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? '1') || !Number.isSafeInteger(limit) || limit < 1) {
    throw new ConfigurationError(`--limit must be a whole number of at least 1, got "${values.limit}"`);
  }
  const options = { baseUrl: creds.baseUrl, apiKey: creds.apiKey, limit, json: values.json === true };
  try {
    const client = createDoorloomClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
    const attempts: DeliveryAttempt[] = [];
    for await (const attempt of client.iterateDeliveries({ limit: Math.min(options.limit, 200) })) {
      attempts.push(attempt);
      if (attempts.length >= options.limit) break;
    }
    process.stdout.write(options.json ? `${JSON.stringify(attempts, null, 2)}\n` : attempts.map((a) => `${attemptLine(a)}\n`).join(''));
    return 0;
  } catch (error) {
    process.stderr.write(`doorloom-partner deliveries: ${refusalLine(error)}\n`);
    return 1;
  }
}

export const deliveries: Command = { name: 'deliveries', usage: DELIVERIES_USAGE, run: (argv) => deliveriesCommand(argv) };
