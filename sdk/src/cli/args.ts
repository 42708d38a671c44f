import type { ParseArgsConfig } from 'node:util';
import { createWebhookVerifier } from '../webhooks.js';

/** A command-line or environment mistake: printed as one line, exit code 2. */
export class ConfigurationError extends Error {}

/** The flags every command that talks to the service takes, each also read from the environment. */
export const CREDENTIAL_OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'webhook-secret': { type: 'string', multiple: true },
} as const satisfies ParseArgsConfig['options'];

/** Where each credential flag falls back to when it is not given. */
export const CREDENTIAL_ENV = {
  'base-url': 'DOORLOOM_URL',
  'api-key': 'DOORLOOM_API_KEY',
  'webhook-secret': 'DOORLOOM_WEBHOOK_SECRET',
} as const;

/** Where the mirror's read token falls back to when `--read-token` is not given. */
export const READ_TOKEN_ENV = 'DOORLOOM_MIRROR_READ_TOKEN';

/** Runs a `parseArgs` call, turning its errors (unknown flag, missing value) into ConfigurationErrors. */
export function parseFlags<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    // parseArgs explains some mistakes over two lines; a configuration error is one
    throw new ConfigurationError((error as Error).message.replace(/\s*\n\s*/g, ' '));
  }
}

/** A flag's value, or else the environment variable's; secrets belong in the environment, where `ps` cannot show them. */
export function flagOrEnv(value: string | undefined, envName: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (value !== undefined && value !== '') return value;
  const fromEnv = env[envName];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

export interface Credentials {
  baseUrl: string;
  apiKey: string;
  /** Every live webhook secret (two during a rotation: the flag given twice, or the variable's values separated by commas). */
  webhookSecrets: string[];
}

/**
 * The base URL, API key and webhook secrets from flags or the environment. `need` names those the
 * command cannot run without.
 */
export function credentials(
  values: { 'base-url'?: string; 'api-key'?: string; 'webhook-secret'?: string[] },
  need: ReadonlyArray<keyof typeof CREDENTIAL_ENV> = ['base-url', 'api-key', 'webhook-secret'],
  env: NodeJS.ProcessEnv = process.env,
): Credentials {
  const baseUrl = flagOrEnv(values['base-url'], CREDENTIAL_ENV['base-url'], env);
  const apiKey = flagOrEnv(values['api-key'], CREDENTIAL_ENV['api-key'], env);
  const secrets = values['webhook-secret']?.length
    ? values['webhook-secret']
    : (flagOrEnv(undefined, CREDENTIAL_ENV['webhook-secret'], env)?.split(',').map((s) => s.trim()).filter(Boolean) ?? []);
  const present = { 'base-url': baseUrl, 'api-key': apiKey, 'webhook-secret': secrets.length > 0 ? 'yes' : undefined };
  const missing = need.filter((name) => !present[name]);
  if (missing.length > 0) throw new ConfigurationError(`missing ${missing.map((m) => `--${m} (or ${CREDENTIAL_ENV[m]})`).join(', ')}`);
  let url = '';
  if (baseUrl !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
    } catch {
      throw new ConfigurationError(`--base-url is not a URL: ${baseUrl}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigurationError('--base-url must be http or https');
    url = parsed.toString();
  }
  return { baseUrl: url, apiKey: apiKey ?? '', webhookSecrets: secrets };
}

/** Refuses webhook secrets the SDK's verifier would refuse (too short a key), as a ConfigurationError. */
export function checkWebhookSecrets(secrets: string[]): void {
  try {
    createWebhookVerifier({ secrets });
  } catch (error) {
    throw new ConfigurationError(`--webhook-secret (or ${CREDENTIAL_ENV['webhook-secret']}): ${(error as Error).message}`);
  }
}

/**
 * Turns the errors of opening a listener or a local file that only the operator can fix (port in
 * use, no permission, not a directory) into ConfigurationErrors; anything else is returned as is.
 */
export function asConfigurationError(error: unknown, what: string): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const operator = ['EADDRINUSE', 'EADDRNOTAVAIL', 'EACCES', 'EPERM', 'ENOTDIR', 'EROFS', 'ENOENT', 'EISDIR'];
  return code !== undefined && operator.includes(code) ? new ConfigurationError(`${what}: ${(error as Error).message}`) : error;
}

/** One `doorloom-partner` command: its name, its usage text (for --help) and what it runs. */
export interface Command {
  name: string;
  usage: string;
  /** Runs with the arguments after the command's name; resolves to the exit code. Throws ConfigurationError on bad input. */
  run(argv: string[]): Promise<number>;
}

/** A timestamped line on stderr (stdout is left to a command's own output). */
export function logLine(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/**
 * Waits for SIGINT or SIGTERM, then runs `stop` and resolves to the exit code: 0 when it stopped
 * cleanly, 1 when it failed or took longer than 10 s.
 */
export function untilSignal(stop: () => Promise<void>, log: (line: string) => void = logLine): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: stopping`);
      const force = setTimeout(() => resolve(1), 10_000);
      force.unref();
      stop().then(
        () => resolve(0),
        (error) => {
          log(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    process.on('SIGINT', () => onSignal('SIGINT'));
  });
}
