import { mkdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDoorloomClient, DoorloomApiError, type DoorloomClient } from '../client/index.js';
import { replaceFile } from '../store/replace-file.js';
import { signDelivery } from '../webhooks.js';
import {
  asConfigurationError,
  checkWebhookSecrets,
  ConfigurationError,
  CREDENTIAL_OPTIONS,
  credentialsWithoutSecretFlags,
  isLoopbackHost,
  logLine,
  parseFlags,
  SECRET_FILE_OPTIONS,
  secretSource,
  untilSignal,
  type Command,
} from './args.js';

/** Where the cursor is kept when --cursor-file is not given (in the working directory). */
export const DEFAULT_CURSOR_FILE = '.doorloom-listen-cursor.json';

const USAGE = `doorloom-partner listen --forward-to URL [--cursor-file PATH] [--from-sequence N]
                        [--base-url URL] [--api-key-file PATH] [--webhook-secret-file PATH]

  Reads GET /events from a cursor and forwards each event to URL, one at a time in sequence order,
  signed as the service signs its deliveries (X-Service-Signature and Standard Webhooks headers).
  The next event goes only after a 2xx; a failure is retried with backoff. The cursor moves only
  after a 2xx, so a sleep, a network drop or a kill loses nothing (an event may arrive twice).
  The base URL comes from --base-url or DOORLOOM_URL; it must be https unless it is this machine
    (localhost, 127.x, ::1), since the webhook secret signs whatever it answers.
  The API key and the webhook secret come from DOORLOOM_API_KEY and DOORLOOM_WEBHOOK_SECRET, or
    from files (--api-key-file, --webhook-secret-file); as flags they would show in \`ps\`, and are refused.
  --cursor-file: where the cursor is kept (default ./${DEFAULT_CURSOR_FILE}).
  --from-sequence: on the first run, forward the events after N (default: the integration's
    current last sequence, so only new events); a cursor already in the file wins.
  One line per attempt on stdout: sequence, type, property, status, milliseconds.`;

export interface ListenOptions {
  baseUrl: string;
  apiKey: string;
  webhookSecrets: string[];
  forwardTo: URL;
  cursorFile: string;
  fromSequence: number | null;
  /** One line per forwarding attempt. */
  print: (line: string) => void;
  log: (line: string) => void;
}

/** Events asked for per GET /events. */
const PAGE_SIZE = 100;
/** Polling gaps when there is nothing new: from the first to the last, doubling (the replay tier allows 120 calls a minute). */
const IDLE_MIN_MS = 1000;
const IDLE_MAX_MS = 5000;
/** Backoff between attempts at one event, and between failed reads of the service. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

function parse(argv: string[]): Omit<ListenOptions, 'print' | 'log'> {
  const { values } = parseFlags(() =>
    parseArgs({
      args: argv,
      options: {
        ...CREDENTIAL_OPTIONS,
        'api-key-file': SECRET_FILE_OPTIONS['api-key-file'],
        'webhook-secret-file': SECRET_FILE_OPTIONS['webhook-secret-file'],
        'forward-to': { type: 'string' },
        'cursor-file': { type: 'string' },
        'from-sequence': { type: 'string' },
      },
      strict: true,
    }),
  );
  const creds = credentialsWithoutSecretFlags(values);
  const base = new URL(creds.baseUrl);
  if (base.protocol === 'http:' && !isLoopbackHost(base.hostname)) {
    throw new ConfigurationError(
      `--base-url ${base.origin} is plain http to another machine: what it answers would be signed with the webhook secret and forwarded; use https (plain http only to localhost)`,
    );
  }
  if (!values['forward-to']) throw new ConfigurationError('missing --forward-to (the local URL that receives the events)');
  let forwardTo: URL;
  try {
    forwardTo = new URL(values['forward-to']);
  } catch {
    throw new ConfigurationError(`--forward-to is not a URL: ${values['forward-to']}`);
  }
  if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') throw new ConfigurationError('--forward-to must be an http or https URL');
  let fromSequence: number | null = null;
  if (values['from-sequence'] !== undefined) {
    fromSequence = Number(values['from-sequence']);
    if (!/^\d+$/.test(values['from-sequence']) || !Number.isSafeInteger(fromSequence))
      throw new ConfigurationError('--from-sequence must be a whole number, 0 or more');
  }
  checkWebhookSecrets(creds.webhookSecrets, secretSource('webhook-secret'));
  return { ...creds, forwardTo, cursorFile: path.resolve(values['cursor-file'] || DEFAULT_CURSOR_FILE), fromSequence };
}

/** `doorloom-partner listen`: forwards the integration's events to a local URL until SIGINT or SIGTERM. */
export const listen: Command = {
  name: 'listen',
  usage: USAGE,
  async run(argv) {
    const options = parse(argv);
    const stop = new AbortController();
    const running = runListen({ ...options, print: (line) => process.stdout.write(`${line}\n`), log: logLine }, stop.signal);
    const stopped = untilSignal(async () => {
      stop.abort();
      await running;
    });
    return Promise.race([running, stopped]);
  },
};

/** The service refused the credentials: retrying cannot help. */
class Fatal extends Error {}

interface Cursor {
  integration_id: number;
  after_sequence: number;
}

/**
 * Forwards events until `signal` aborts (resolves 0) or the service refuses the credentials
 * (resolves 2). Throws ConfigurationError when the cursor file is not a cursor of this integration.
 */
export async function runListen(options: ListenOptions, signal: AbortSignal): Promise<number> {
  const client = createDoorloomClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    retry: { maxAttempts: 3, onRetry: (info) => options.log(`${info.method} ${new URL(info.url).pathname}: ${info.reason}, retrying in ${info.delayMs} ms`) },
  });
  try {
    const me = await call(options, signal, () => client.me({ signal }));
    if (me === null) return 0;
    const stored = await readCursor(options.cursorFile);
    if (stored !== null && stored.integration_id !== me.id) {
      throw new ConfigurationError(
        `${options.cursorFile} is the cursor of integration ${stored.integration_id}, not of ${me.id} (${me.slug}); give another --cursor-file`,
      );
    }
    let cursor = stored?.after_sequence ?? options.fromSequence ?? me.webhook.last_sequence;
    // Written before anything is forwarded, so a restart resumes here rather than at a later "now".
    if (stored === null) {
      await mkdir(path.dirname(options.cursorFile), { recursive: true, mode: 0o700 })
        .then(() => writeCursor(options.cursorFile, { integration_id: me.id, after_sequence: cursor }))
        .catch((error: unknown) => {
          throw asConfigurationError(error, `cannot write the cursor file ${options.cursorFile}`);
        });
    }
    options.log(`listening as ${me.slug}: forwarding the events after sequence ${cursor} to ${options.forwardTo.href} (cursor in ${options.cursorFile})`);
    const timeoutMs = me.webhook.timeout_seconds * 1000;
    const agent = options.forwardTo.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });

    try {
      let idle = IDLE_MIN_MS;
      while (!signal.aborted) {
        const page = await call(options, signal, () => events(client, cursor, signal, options));
        if (page === null) break;
        for (const row of page.rows) {
          if (signal.aborted) break;
          // Not in the integration's subscription: the service does not deliver it either.
          if (row.status !== 'skipped' && !(await forward(options, agent, row.event, timeoutMs, signal))) break;
          cursor = row.sequence;
          await writeCursor(options.cursorFile, { integration_id: me.id, after_sequence: cursor });
        }
        if (page.skipTo > cursor) {
          cursor = page.skipTo;
          await writeCursor(options.cursorFile, { integration_id: me.id, after_sequence: cursor });
        }
        if (page.hasMore) {
          idle = IDLE_MIN_MS;
          continue;
        }
        await sleep(idle, signal);
        idle = page.rows.length > 0 ? IDLE_MIN_MS : Math.min(idle * 2, IDLE_MAX_MS);
      }
    } finally {
      agent.destroy();
    }
    return 0;
  } catch (error) {
    if (error instanceof Fatal) {
      options.log(error.message);
      return 2;
    }
    throw error;
  }
}

interface Row {
  sequence: number;
  status: string;
  event: Record<string, unknown>;
}

/**
 * One page of events after `cursor`. A cursor past the 30-day retention cannot be replayed: the
 * gap is reported and the page starts at the oldest event still kept.
 */
async function events(
  client: DoorloomClient,
  cursor: number,
  signal: AbortSignal,
  options: ListenOptions,
): Promise<{ rows: Row[]; hasMore: boolean; skipTo: number }> {
  try {
    const page = await client.listEvents({ after_sequence: cursor, limit: PAGE_SIZE }, { signal });
    const rows = page.data.map((r) => ({ sequence: r.sequence, status: r.delivery.status, event: r.event }));
    return { rows, hasMore: page.cursor.has_more, skipTo: cursor };
  } catch (error) {
    const oldest =
      error instanceof DoorloomApiError && error.code === 'CURSOR_EXPIRED'
        ? Number((error.errors as { oldest_sequence?: unknown } | undefined)?.oldest_sequence)
        : NaN;
    if (!Number.isSafeInteger(oldest)) throw error;
    options.log(`events after ${cursor} are past the retention: events ${cursor + 1} to ${oldest - 1} cannot be forwarded; continuing from ${oldest}`);
    return { rows: [], hasMore: true, skipTo: oldest - 1 };
  }
}

/**
 * Runs a call to the service until it answers, waiting between failures (Retry-After when the
 * service gives one). Resolves null once `signal` aborts; 401 and 403 are Fatal.
 */
async function call<T>(options: ListenOptions, signal: AbortSignal, fn: () => Promise<T>): Promise<T | null> {
  for (let wait = RETRY_MIN_MS; !signal.aborted; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    try {
      return await fn();
    } catch (error) {
      if (signal.aborted) return null;
      if (error instanceof DoorloomApiError && (error.status === 401 || error.status === 403)) {
        throw new Fatal(`the service refused the credentials: ${error.message}`);
      }
      const delay = error instanceof DoorloomApiError && error.retryAfter !== null ? error.retryAfter * 1000 : wait;
      options.log(`reading the service failed (retrying in ${delay} ms): ${error instanceof Error ? error.message : String(error)}`);
      await sleep(delay, signal);
    }
  }
  return null;
}

/**
 * Posts one event until the URL answers 2xx (true), or `signal` aborts (false). The body is the
 * stored envelope's JSON, byte for byte what the service posts; each attempt is signed afresh.
 */
async function forward(options: ListenOptions, agent: http.Agent, event: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  const body = JSON.stringify(event);
  const id = String(event.id);
  const slug = String((event.integration as { slug?: string } | null)?.slug ?? '');
  const property = (event.property as { doorloom_id?: number } | null)?.doorloom_id ?? '-';
  for (let wait = RETRY_MIN_MS; !signal.aborted; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
    const headers = signDelivery({ secrets: options.webhookSecrets, id, slug, body, version: String(event.version) });
    const started = performance.now();
    const outcome = await post(options.forwardTo, agent, headers, body, timeoutMs, signal);
    if (signal.aborted) return false;
    const ms = Math.round(performance.now() - started);
    options.print(
      `${new Date().toISOString()} sequence=${String(event.sequence)} type=${String(event.type)} property=${String(property)} status=${outcome} ms=${ms}`,
    );
    if (typeof outcome === 'number' && outcome >= 200 && outcome < 300) return true;
    await sleep(wait, signal);
  }
  return false;
}

/** The answer's status, or an error code when none came (refused, timed out, …); redirects are not followed. */
function post(url: URL, agent: http.Agent, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal): Promise<number | string> {
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent,
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      signal,
    });
    const deadline = setTimeout(() => request.destroy(Object.assign(new Error('no answer in time'), { code: 'TIMEOUT' })), timeoutMs);
    request.on('response', (response) => {
      let complete = false;
      response.resume();
      response.on('end', () => {
        complete = true;
        clearTimeout(deadline);
        resolve(response.statusCode ?? 0);
      });
      // an answer cut off before its end is a failure, whatever its status said
      response.on('close', () => {
        clearTimeout(deadline);
        if (!complete) resolve('ECONNRESET');
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      resolve(error.code ?? 'REQUEST_FAILED');
    });
    request.end(body);
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function readCursor(file: string): Promise<Cursor | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigurationError(`cannot read the cursor file ${file}: ${(error as Error).message}`);
  }
  let value: Partial<Cursor> | null = null;
  try {
    value = JSON.parse(text) as Partial<Cursor>;
  } catch {
    // reported below
  }
  if (!value || !Number.isSafeInteger(value.integration_id) || !Number.isSafeInteger(value.after_sequence) || value.after_sequence! < 0) {
    throw new ConfigurationError(`${file} is not a listen cursor; remove it or give another --cursor-file`);
  }
  return value as Cursor;
}

/** Replaces the cursor file whole (see replaceFile): a crash leaves the old cursor or the new. */
async function writeCursor(file: string, cursor: Cursor): Promise<void> {
  await replaceFile(file, `${JSON.stringify(cursor)}\n`);
}
