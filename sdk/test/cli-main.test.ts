import { describe, expect, it } from 'vitest';
import { runCli } from './sync-helpers.js';

/** What main.ts does for every command: --help, and a configuration error as one line with exit 2. */
describe('doorloom-partner: help and configuration errors, the same for every command', () => {
  const commands = ['mirror', 'listen', 'certify', 'trigger', 'deliveries'];

  it.each(commands)('%s --help prints its usage and exits 0, wherever the flag stands', async (command) => {
    for (const args of [
      [command, '--help'],
      [command, '-h'],
      [command, '--base-url', 'http://127.0.0.1:1', '--help'],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.stdout, args.join(' ')).toMatch(new RegExp(`doorloom-partner ${command}`));
      expect(run.stderr).toBe('');
    }
  });

  it.each(commands)("%s with an unknown flag: one line naming the command's --help, exit 2", async (command) => {
    const run = await runCli([command, ...(command === 'trigger' ? ['archive'] : []), '--no-such-flag']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^configuration error: .*no-such-flag.* \\(doorloom-partner ${command} --help\\)$`)),
    ]);
    expect(run.stdout).toBe('');
  });

  it('no command, or an unknown one: one line, exit 2; --help lists every command', async () => {
    for (const args of [[], ['nope']]) {
      const run = await runCli(args);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: .*(mirror, listen, certify, trigger, deliveries)/)]);
    }
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    for (const command of commands) expect(help.stdout).toContain(`doorloom-partner ${command}`);
  });
});
