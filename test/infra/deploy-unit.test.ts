import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** deploy/doorloom.service as systemd rates it (systemd-analyze, from the systemd package, when installed). */

const UNIT = path.resolve(import.meta.dirname, '../../deploy/doorloom.service');

function systemdAnalyze(): string | null {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return 'systemd-analyze';
  } catch {
    return null;
  }
}

describe('deploy/doorloom.service', () => {
  it.skipIf(!systemdAnalyze())('systemd-analyze security rates it 3.0 or lower', () => {
    // The command exits non-zero when the rating is above --threshold; the output is read either way.
    let output: string;
    try {
      output = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? '');
    }
    const rating = /Overall exposure level for doorloom\.service: (\d+(?:\.\d+)?)/.exec(output);
    expect(rating, output).not.toBeNull();
    expect(Number(rating![1])).toBeLessThanOrEqual(3.0);
  });
});
