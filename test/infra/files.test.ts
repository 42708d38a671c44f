import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService } from './service.js';

/** DATA_DIR and everything under it are private to the service's user, whatever the umask. */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function modesUnder(dir: string): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [[dir, (await stat(dir)).mode & 0o777]];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out.push([full, (await stat(full)).mode & 0o777]);
  }
  return out;
}

describe('DATA_DIR permissions (real process, embedded database)', { timeout: 240_000 }, () => {
  it('started with umask 000 over a loose existing DATA_DIR: the directory is 0700 and no file is readable by others', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'doorloom-files-'));
    dirs.push(root);
    const dataDir = path.join(root, 'data');
    // left behind loose, e.g. by an older version or a copy
    await mkdir(path.join(dataDir, 'old'), { recursive: true });
    await writeFile(path.join(dataDir, 'old', 'notes.txt'), 'x');
    await chmod(path.join(dataDir, 'old', 'notes.txt'), 0o666);
    await chmod(path.join(dataDir, 'old'), 0o777);
    await chmod(dataDir, 0o755);

    const service = await spawnService({ DATABASE_URL: undefined, SECRETS_KEY: undefined, DATA_DIR: dataDir }, { umask: '000' });
    try {
      await service.ready();
      // a write creates files after start too
      const res = await fetch(`${service.url}/readyz`);
      expect(res.status).toBe(200);
      const running = await modesUnder(dataDir);
      expect(running.length).toBeGreaterThan(100); // the embedded database is there
      expect(running[0]).toEqual([dataDir, 0o700]);
      expect(running.filter(([, mode]) => mode & 0o077)).toEqual([]);
      expect(running.find(([p]) => p.endsWith('secrets.key'))?.[1]).toBe(0o600);
      service.child.kill('SIGTERM');
      expect((await service.exited).code).toBe(0);
      const stopped = await modesUnder(dataDir);
      expect(stopped.filter(([, mode]) => mode & 0o077)).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});
