#!/usr/bin/env node
import { ConfigurationError, type Command } from './args.js';
import { certify } from './certify.js';
import { deliveries } from './deliveries.js';
import { listen } from './listen.js';
import { mirror } from './mirror.js';
import { trigger } from './trigger.js';

/** Every command, one line each. */
const COMMANDS: Command[] = [mirror, listen, certify, trigger, deliveries];

function usage(): string {
  return ['usage: doorloom-partner <command> [flags]   (doorloom-partner <command> --help for one command)', ...COMMANDS.map((c) => c.usage)].join('\n\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h') {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  const names = COMMANDS.map((c) => c.name).join(', ');
  try {
    if (!command) throw new ConfigurationError(name ? `unknown command "${name}" (commands: ${names})` : `a command is required (${names})`);
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(`${command.usage}\n`);
      return 0;
    }
    return await command.run(rest);
  } catch (error) {
    if (error instanceof ConfigurationError) {
      process.stderr.write(`configuration error: ${error.message} (doorloom-partner ${command ? `${command.name} ` : ''}--help)\n`);
      return 2;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`doorloom-partner: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
