import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createDoorloomClient } from '../client/index.js';
import { FileStore } from '../store/file.js';
import type { WindowedKind } from '../sync/api.js';
import { clientSyncApi } from '../sync/client-api.js';
import { isDate, toDay } from '../sync/dates.js';
import { SyncEngine } from '../sync/engine.js';
import { webhookHandler } from '../sync/receiver.js';
import { createWebhookVerifier } from '../webhooks.js';
import {
  asConfigurationError,
  checkWebhookSecrets,
  ConfigurationError,
  CREDENTIAL_OPTIONS,
  credentialsWithoutSecretFlags,
  logLine,
  parseFlags,
  SECRET_FILE_OPTIONS,
  secretFromEnvOrFile,
  secretSource,
  untilSignal,
  type Command,
} from './args.js';

/** The read token guards guest data on a listener that may face a network: too short a token can be guessed. */
export const MIN_READ_TOKEN_LENGTH = 32;

const USAGE = `doorloom-partner mirror --listen HOST:PORT --store DIR [--allowed-host HOST[:PORT]]... [--poll-ms MS]
                        [--base-url URL] [--api-key-file PATH] [--webhook-secret-file PATH] [--read-token-file PATH]

  The base URL comes from --base-url or DOORLOOM_URL. The secrets come from DOORLOOM_API_KEY,
  DOORLOOM_WEBHOOK_SECRET and DOORLOOM_MIRROR_READ_TOKEN, or from the files named by the -file flags;
  as flags they would show in \`ps\`, and are refused.
  The read token (required, at least ${MIN_READ_TOKEN_LENGTH} characters): /mirror/* answers only requests with
    "Authorization: Bearer <token>".
  --allowed-host: a Host header to accept besides the listen address and localhost (repeatable);
    the public name the service delivers to must be listed. Any other Host is refused with 421.
  During a webhook secret rotation, give both secrets, separated by a comma or a newline (both verify).
  --poll-ms: how often to replay GET /events and poll GET /bookings besides webhooks (default 2000).`;

function parse(argv: string[]): Omit<MirrorOptions, 'log'> {
  const { values } = parseFlags(() =>
    parseArgs({
      args: argv,
      options: {
        ...CREDENTIAL_OPTIONS,
        ...SECRET_FILE_OPTIONS,
        listen: { type: 'string' },
        store: { type: 'string' },
        'poll-ms': { type: 'string' },
        'read-token': { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
      },
      strict: true,
    }),
  );
  const creds = credentialsWithoutSecretFlags(values);
  checkWebhookSecrets(creds.webhookSecrets, secretSource('webhook-secret'));
  const readToken = secretFromEnvOrFile('read-token', values);
  const missing = ['listen', 'store'].filter((k) => !values[k as keyof typeof values]).map((m) => `--${m}`);
  if (!readToken) missing.push(`${secretSource('read-token')}: the mirror serves guest data only to its holder`);
  if (missing.length > 0) throw new ConfigurationError(`missing ${missing.join(', ')}`);
  if (readToken!.length < MIN_READ_TOKEN_LENGTH) {
    throw new ConfigurationError(
      `${secretSource('read-token')}: the read token needs at least ${MIN_READ_TOKEN_LENGTH} characters (make one with: openssl rand -hex 32)`,
    );
  }
  const allowedHosts = (values['allowed-host'] ?? []).map((h) => h.trim().toLowerCase());
  const badHost = allowedHosts.find((h) => !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h));
  if (badHost !== undefined) throw new ConfigurationError(`--allowed-host must be HOST or HOST:PORT, got "${badHost}"`);
  const listen = /^(.+):(\d{1,5})$/.exec(values.listen!);
  const port = listen ? Number(listen[2]) : NaN;
  if (!listen || port > 65_535) throw new ConfigurationError(`--listen must be HOST:PORT, got "${values.listen}"`);
  const pollMs = values['poll-ms'] === undefined ? 2000 : Number(values['poll-ms']);
  if (!Number.isInteger(pollMs) || pollMs < 0) throw new ConfigurationError('--poll-ms must be a whole number of milliseconds (0 turns polling off)');
  return {
    ...creds,
    host: listen[1].replace(/^\[(.*)\]$/, '$1'),
    port,
    storeDir: values.store!,
    pollMs,
    readToken: readToken!,
    allowedHosts,
  };
}

/** `doorloom-partner mirror`: the reference receiver and a read-only mirror, until SIGINT or SIGTERM. */
export const mirror: Command = {
  name: 'mirror',
  usage: USAGE,
  async run(argv) {
    const options = parse(argv);
    const running = await runMirror({ ...options, log: logLine }).catch((error: unknown) => {
      throw asConfigurationError(error, `cannot listen on ${options.host}:${options.port} or open the store ${options.storeDir}`);
    });
    return untilSignal(() => running.close());
  },
};

export interface MirrorOptions {
  baseUrl: string;
  apiKey: string;
  /** Every live webhook secret (during a rotation, both). */
  webhookSecrets: string[];
  host: string;
  port: number;
  storeDir: string;
  /** Replay and booking polling interval (ms). */
  pollMs: number;
  /** The bearer token /mirror/* requires. */
  readToken: string;
  /** Host headers accepted besides the listen address and localhost (`name` or `name:port`). */
  allowedHosts?: string[];
  log: (line: string) => void;
}

export interface RunningMirror {
  url: string;
  engine: SyncEngine;
  close(): Promise<void>;
}

/** Longest window one /mirror read answers (the service's snapshots stop at 92 nights; a mirror can do more). */
const MAX_WINDOW_NIGHTS = 731;

/**
 * The reference partner: a webhook receiver and the sync engine over a file store, serving the
 * mirror read-only on the same listener. The listener is up before the backfill starts, so
 * deliveries made during the backfill are applied as they arrive.
 */
export async function runMirror(options: MirrorOptions): Promise<RunningMirror> {
  const store = new FileStore(options.storeDir);
  const client = createDoorloomClient({ baseUrl: options.baseUrl, apiKey: options.apiKey });
  const engine = new SyncEngine({
    api: clientSyncApi(client),
    store,
    pollIntervalMs: options.pollMs,
    onError: (error, during) => options.log(`${during} failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  await engine.load();

  const receive = webhookHandler(engine, createWebhookVerifier({ secrets: options.webhookSecrets }).accepts);
  // A public listener: a client that trickles its headers or body is cut off (slowloris).
  const server = http.createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (req, res) => {
    route(req, res).catch(() => send(res, 500, failure('INTERNAL_ERROR', 'Something went wrong.')));
  });

  const tokenDigest = sha256(options.readToken);
  let allowed = new Set<string>();

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page on another origin that rebinds its name to this address still sends its own Host.
    if (!allowed.has((req.headers.host ?? '').toLowerCase())) {
      req.resume();
      return send(res, 421, failure('HOST_NOT_ALLOWED', 'This Host is not served here.'));
    }
    const url = new URL(req.url ?? '/', 'http://mirror');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/webhooks') {
      if (req.method !== 'POST') return send(res, 405, failure('METHOD_NOT_ALLOWED', 'Use POST.'));
      return receive(req, res);
    }
    if (!path.startsWith('/mirror')) return send(res, 404, failure('NOT_FOUND', 'No such path.'));
    if (!bearerMatches(req.headers.authorization, tokenDigest)) {
      req.resume();
      res.setHeader('www-authenticate', 'Bearer');
      return send(res, 401, failure('UNAUTHENTICATED', 'The mirror needs its read token as Authorization: Bearer.'));
    }
    if (req.method !== 'GET') return send(res, 405, failure('METHOD_NOT_ALLOWED', 'The mirror is read-only.'));
    if (path === '/mirror/status') return send(res, 200, engine.status());
    if (path === '/mirror/properties') return send(res, 200, engine.properties());
    if (path === '/mirror/bookings') return send(res, 200, engine.bookings());
    const match = /^\/mirror\/properties\/(\d+)\/(availability|rates|restrictions)$/.exec(path);
    if (!match) return send(res, 404, failure('NOT_FOUND', 'No such path.'));
    const from = url.searchParams.get('from');
    const to = url.searchParams.get('to');
    const errors: Record<string, string[]> = {};
    if (!isDate(from)) errors.from = ['from is required, a date YYYY-MM-DD'];
    if (!isDate(to)) errors.to = ['to is required, a date YYYY-MM-DD'];
    else if (isDate(from) && (to < from || toDay(to) - toDay(from) >= MAX_WINDOW_NIGHTS))
      errors.to = [`to must be on or after from, at most ${MAX_WINDOW_NIGHTS} nights`];
    if (Object.keys(errors).length > 0) return send(res, 422, { ...failure('VALIDATION_FAILED', 'The given data was invalid.'), errors });
    const data = engine.window(match[2] as WindowedKind, Number(match[1]), from!, to!);
    if (!data) return send(res, 404, failure('NOT_FOUND', 'The mirror holds no such property.'));
    return send(res, 200, data);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  allowed = allowedHostSet(options.host, address.port, options.allowedHosts ?? []);
  options.log(`mirror listening on ${url}`);

  // Cold start or restart: the service may be unreachable for a while; keep trying.
  let closing = false;
  const starting = (async () => {
    for (let wait = 500; !closing; wait = Math.min(wait * 2, 30_000)) {
      try {
        await engine.start();
        options.log(`mirror in sync through sequence ${engine.status().applied_through}`);
        return;
      } catch (error) {
        options.log(`sync start failed (retrying in ${wait} ms): ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((r) => setTimeout(r, wait).unref());
      }
    }
  })();

  return {
    url,
    engine,
    async close() {
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await engine.stop();
      await starting.catch(() => {});
      await engine.stop();
      await store.close();
    },
  };
}

/**
 * The Host headers served: the listen address and localhost, each with and without the port (a
 * wildcard listen address stands for the loopback ones), and each extra name as given; an extra
 * name without a port is also accepted with the listen port.
 */
export function allowedHostSet(listenHost: string, port: number, extra: readonly string[]): Set<string> {
  const names = new Set<string>(['localhost']);
  const host = listenHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === '0.0.0.0' || host === '::' || host === '') {
    names.add('127.0.0.1');
    names.add('[::1]');
  } else {
    names.add(host.includes(':') ? `[${host}]` : host);
  }
  const out = new Set<string>();
  for (const name of names) {
    out.add(name);
    out.add(`${name}:${port}`);
  }
  for (const entry of extra) {
    const name = entry.toLowerCase();
    out.add(name);
    if (!/:\d+$/.test(name)) out.add(`${name}:${port}`);
  }
  return out;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Compares digests of equal length, so neither the token's length nor its bytes leak through timing. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(sha256(match[1]), expected);
}

function failure(code: string, message: string) {
  return { success: false, code, message };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
