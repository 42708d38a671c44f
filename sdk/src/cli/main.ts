#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigurationError, CREDENTIAL_OPTIONS, credentials, parseFlags } from './args.js';
import { deliveriesCommand } from './deliveries.js';
import { runMirror } from './mirror.js';
import { triggerCommand } from './trigger.js';

const USAGE = `usage: doorloom-partner mirror --base-url URL --api-key KEY --webhook-secret SECRET --listen HOST:PORT --store DIR [--poll-ms MS]

  --webhook-secret may be given twice during a secret rotation (both verify).
  --poll-ms: how often to replay GET /events and poll GET /bookings besides webhooks (default 2000).

       doorloom-partner trigger <action> …   (doorloom-partner trigger --help)
       doorloom-partner deliveries [--limit N]   (doorloom-partner deliveries --help)`;

function parse(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (command !== 'mirror') throw new ConfigurationError(command ? `unknown command "${command}"` : 'a command is required (mirror)');
  const { values } = parseFlags(() =>
    parseArgs({
      args: rest,
      options: { ...CREDENTIAL_OPTIONS, listen: { type: 'string' }, store: { type: 'string' }, 'poll-ms': { type: 'string' } },
      strict: true,
    }),
  );
  const creds = credentials(values);
  const missing = ['listen', 'store'].filter((k) => !values[k as keyof typeof values]);
  if (missing.length > 0) throw new ConfigurationError(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
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
  };
}

async function main(): Promise<void> {
  const [command, ...args] = process.argv.slice(2);
  if (command === 'trigger' || command === 'deliveries') {
    process.exitCode = await (command === 'trigger' ? triggerCommand : deliveriesCommand)(args);
    return;
  }
  let options;
  try {
    options = parse(process.argv.slice(2));
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`configuration error: ${error.message} (doorloom-partner --help)\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  const mirror = await runMirror({ ...options, log });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    mirror.close().then(
      () => process.exit(0),
      (error) => {
        log(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`doorloom-partner: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
