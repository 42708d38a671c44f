import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('a malformed STAFF_TOKEN at start', () => {
  it.each(['dls_abc', `dls_${'a'.repeat(39)}!`])('%s: one line on stderr, exit code 2', (token) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, STAFF_TOKEN: token, DATABASE_URL: 'memory:', PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('configuration error: STAFF_TOKEN must be dls_ followed by 40 letters or digits\n');
    expect(run.stdout).toBe('');
  });
});
