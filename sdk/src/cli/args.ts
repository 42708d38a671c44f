import { readFileSync } from 'node:fs';
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
    : (flagOrEnv(undefined, CREDENTIAL_ENV['webhook-secret'], env)
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean) ?? []);
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

/**
 * The flags of the commands that run for long (listen, mirror). Their secrets come from the
 * environment or from a file: a flag shows in `ps` to every user of the machine, so a secret given
 * as one is refused. The secret flags stay declared only to say so.
 */
export const SECRET_FLAGS = {
  'api-key': { env: CREDENTIAL_ENV['api-key'], file: 'api-key-file' },
  'webhook-secret': { env: CREDENTIAL_ENV['webhook-secret'], file: 'webhook-secret-file' },
  'read-token': { env: READ_TOKEN_ENV, file: 'read-token-file' },
} as const;

export type SecretName = keyof typeof SECRET_FLAGS;

export const SECRET_FILE_OPTIONS = {
  'api-key-file': { type: 'string' },
  'webhook-secret-file': { type: 'string' },
  'read-token-file': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Where a secret may come from, for messages: `DOORLOOM_API_KEY (or --api-key-file PATH)`. */
export const secretSource = (name: SecretName) => `${SECRET_FLAGS[name].env} (or --${SECRET_FLAGS[name].file} PATH)`;

/**
 * A secret from its file flag, else from its environment variable; undefined when neither is set.
 * Refuses the secret given as a flag, pointing to the variable. A file's trailing newline is not
 * part of the secret.
 */
export function secretFromEnvOrFile(name: SecretName, values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { env: variable, file } = SECRET_FLAGS[name];
  if (values[name] !== undefined) {
    throw new ConfigurationError(`--${name} is refused: a flag shows in ps to every user of this machine; set ${variable}, or give --${file} PATH`);
  }
  const filePath = values[file];
  if (typeof filePath === 'string' && filePath !== '') {
    let text: string;
    try {
      text = readFileSync(filePath, 'utf8');
    } catch (error) {
      throw new ConfigurationError(`--${file}: cannot read ${filePath}: ${(error as Error).message}`);
    }
    const secret = text.replace(/\r?\n$/, '');
    if (secret.trim() === '') throw new ConfigurationError(`--${file}: ${filePath} is empty`);
    return secret;
  }
  return flagOrEnv(undefined, variable, env);
}

/**
 * listen's and mirror's credentials: the base URL from --base-url or DOORLOOM_URL, the API key and
 * the webhook secrets from the environment or files (see secretFromEnvOrFile).
 */
export function credentialsWithoutSecretFlags(values: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): Credentials {
  const apiKey = secretFromEnvOrFile('api-key', values, env);
  const secrets = secretFromEnvOrFile('webhook-secret', values, env);
  const webhookSecrets =
    secrets
      ?.split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  const missing = [
    ...(flagOrEnv(values['base-url'] as string | undefined, CREDENTIAL_ENV['base-url'], env) === undefined
      ? [`--base-url (or ${CREDENTIAL_ENV['base-url']})`]
      : []),
    ...(apiKey === undefined ? [secretSource('api-key')] : []),
    ...(webhookSecrets.length === 0 ? [secretSource('webhook-secret')] : []),
  ];
  if (missing.length > 0) throw new ConfigurationError(`missing ${missing.join(', ')}`);
  const { baseUrl } = credentials({ 'base-url': values['base-url'] as string | undefined }, ['base-url'], env);
  return { baseUrl, apiKey: apiKey!, webhookSecrets };
}

/** Loopback addresses and localhost: where plain http does not cross a network. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === '::ffff:127.0.0.1';
}

/** Refuses webhook secrets the SDK's verifier would refuse (too short a key), as a ConfigurationError. */
export function checkWebhookSecrets(secrets: string[], source = `--webhook-secret (or ${CREDENTIAL_ENV['webhook-secret']})`): void {
  try {
    createWebhookVerifier({ secrets });
  } catch (error) {
    throw new ConfigurationError(`${source}: ${(error as Error).message}`);
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
