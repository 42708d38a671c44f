import pino, { type Logger, type LoggerOptions } from 'pino';

/** Keys whose values are credentials, wherever they sit in a log line (up to four levels down). */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'x-api-key',
  'api_key',
  'apiKey',
  'webhook_secret',
  'webhookSecret',
  'secret',
  'token',
  'staffToken',
  'metricsToken',
  'secretsKey',
  'databaseUrl',
  'password',
];

/**
 * pino's redaction: a credential that reaches a log line (a request's headers, a body logged with
 * an error, the configuration) is written as `[redacted]`. fast-redact needs explicit depths, so
 * every key is listed at the top level and under one, two and three other keys.
 */
export const REDACT_PATHS = SECRET_KEYS.flatMap((key) => {
  const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const join = (prefix: string) => (name.startsWith('[') ? `${prefix}${name}` : `${prefix}.${name}`);
  return [name.startsWith('[') ? key : name, join('*'), join('*.*'), join('*.*.*')];
});

export function loggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
}

/** The service's logger (stdout, JSON), with its redaction. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return destination ? pino(loggerOptions(level), destination) : pino(loggerOptions(level));
}
