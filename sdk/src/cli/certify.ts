import { parseArgs } from 'node:util';
import { ConfigurationError, type Command, CREDENTIAL_OPTIONS, READ_TOKEN_ENV, credentials, flagOrEnv, parseFlags } from './args.js';
import { generateWebhookSecret } from '../webhooks.js';
import { certify as runChecks, type CertifyScheme, type CheckResult } from './certify-kit.js';

export const CERTIFY_USAGE = `usage: doorloom-partner certify --receiver URL [--webhook-secret SECRET] [--scheme stripe|standard|both]
                               [--timeout SECONDS] [--state-url URL [--read-token TOKEN]] [--json]

  Sends signed test deliveries to your webhook receiver and checks each answer (exit 0 only when
  every check passed, 1 when one failed, 2 for bad flags).
  --webhook-secret (or DOORLOOM_WEBHOOK_SECRET): the secret your receiver verifies with; without
      one a new secret is generated and printed on stderr, for you to configure and run again.
  --scheme: the signature headers your receiver verifies (default both, as the service sends).
  --timeout: seconds a receiver has to answer (default 10, the contract's).
  --state-url: your mirror-shaped read API (GET …/mirror/properties/{id}/availability), to check
      the sequence rule; --read-token (or DOORLOOM_MIRROR_READ_TOKEN) is sent as a Bearer token.
  --json: print only {"passed": bool, "checks": [{"name", "passed", "evidence"}]}.`;

export interface CertifyFlags {
  receiver: string;
  secret: string | null;
  scheme: CertifyScheme;
  timeoutMs: number;
  stateUrl?: string;
  readToken?: string;
  json: boolean;
}

function httpUrl(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigurationError(`--${flag} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`--${flag} must be an http or https URL`);
  return url.toString();
}

/** Reads `certify`'s flags (--help is main.ts's); every mistake is a ConfigurationError. */
export function parseCertifyFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): CertifyFlags {
  const { values } = parseFlags(() =>
    parseArgs({
      args: argv,
      options: {
        'webhook-secret': CREDENTIAL_OPTIONS['webhook-secret'],
        receiver: { type: 'string' },
        scheme: { type: 'string' },
        timeout: { type: 'string' },
        'state-url': { type: 'string' },
        'read-token': { type: 'string' },
        json: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }),
  );
  if (!values.receiver) throw new ConfigurationError('missing --receiver (the URL of your webhook receiver)');
  const scheme = values.scheme ?? 'both';
  if (scheme !== 'stripe' && scheme !== 'standard' && scheme !== 'both')
    throw new ConfigurationError(`--scheme must be stripe, standard or both, got "${scheme}"`);
  const timeout = values.timeout === undefined ? 10 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 300) throw new ConfigurationError('--timeout must be a number of seconds above 0 (at most 300)');
  // during a rotation the current secret comes first; it is the one deliveries are signed with
  const [secret] = credentials(values, [], env).webhookSecrets;
  const readToken = flagOrEnv(values['read-token'], READ_TOKEN_ENV, env);
  return {
    receiver: httpUrl('receiver', values.receiver),
    secret: secret ?? null,
    scheme,
    timeoutMs: Math.round(timeout * 1000),
    ...(values['state-url'] ? { stateUrl: httpUrl('state-url', values['state-url']) } : {}),
    ...(readToken ? { readToken } : {}),
    json: values.json ?? false,
  };
}

/** One line per check: the verdict, the name, then the evidence. */
export function checkLine(check: CheckResult): string {
  const e = check.evidence;
  const answer = e.status === null ? 'no answer' : `status ${e.status}`;
  return `${check.passed ? 'PASS' : 'FAIL'} ${check.name.padEnd(17)} ${answer} in ${e.ms} ms (expected ${e.expected}); sent ${e.sent}${e.error ? `; ${e.error}` : ''}`;
}

/** `doorloom-partner certify …`; resolves to the exit code (a ConfigurationError is main.ts's to print). */
export async function certifyCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const flags = parseCertifyFlags(argv, env);
  let secret = flags.secret;
  if (secret === null) {
    secret = generateWebhookSecret();
    process.stderr.write(
      `No --webhook-secret or DOORLOOM_WEBHOOK_SECRET given: signing with a new secret.\n` +
        `Configure your receiver with it, then run again with DOORLOOM_WEBHOOK_SECRET set to it:\n${secret}\n`,
    );
  }
  // a reader that stops early (`| head`) is not an error of the run
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  const json = flags.json;
  const report = await runChecks({
    receiver: flags.receiver,
    secret,
    scheme: flags.scheme,
    timeoutMs: flags.timeoutMs,
    stateUrl: flags.stateUrl,
    readToken: flags.readToken,
    onCheck: json ? undefined : (check) => process.stdout.write(`${checkLine(check)}\n`),
  });
  if (json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    const failed = report.checks.filter((c) => !c.passed).map((c) => c.name);
    process.stdout.write(
      failed.length === 0
        ? `certified: all ${report.checks.length} checks passed\n`
        : `not certified: ${failed.length} of ${report.checks.length} checks failed: ${failed.join(', ')}\n`,
    );
  }
  return report.passed ? 0 : 1;
}

export const certify: Command = { name: 'certify', usage: CERTIFY_USAGE, run: (argv) => certifyCommand(argv) };
