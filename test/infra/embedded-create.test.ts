import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPGlite } from '../../src/db/database.js';
import { STAFF_TOKEN } from '../helpers/context.js';
import { spawnService } from './service.js';

/** A new DATA_DIR's database is created by a child process (openPGlite), then opened here. */

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-create-'));
  dirs.push(dir);
  return dir;
}

describe('the embedded database of a new DATA_DIR', { timeout: 120_000 }, () => {
  it('is created, opened with the service settings, and found again on the next open', async () => {
    const dataDir = await tempDir();
    const first = await openPGlite(dataDir);
    try {
      expect((await stat(path.join(dataDir, 'pglite', 'PG_VERSION'))).isFile()).toBe(true);
      await first.exec('create table kept (n int); insert into kept values (42)');
      const settings = await first.query<{ shared_buffers: string; max_wal_size: string; statistics: string }>(
        `select current_setting('shared_buffers') as shared_buffers, current_setting('max_wal_size') as max_wal_size,
          current_setting('default_statistics_target') as statistics`,
      );
      expect(settings.rows[0]).toEqual({ shared_buffers: '32MB', max_wal_size: '32MB', statistics: '10' });
    } finally {
      await first.close();
    }
    const again = await openPGlite(dataDir);
    try {
      expect((await again.query<{ n: number }>('select n from kept')).rows).toEqual([{ n: 42 }]);
    } finally {
      await again.close();
    }
  });

  it('that cannot be created fails the open with a line that names the place', async () => {
    const dataDir = await tempDir();
    await mkdir(dataDir, { recursive: true });
    // where the database would go, a plain file
    await writeFile(path.join(dataDir, 'pglite'), 'not a directory');
    const error = await openPGlite(dataDir).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toContain(
      `the embedded database could not be created in ${path.join(dataDir, 'pglite')} (DATA_DIR must be a directory this user can write): `,
    );
    // the engine's own error, in words or with its errno, not an object's name
    expect(error?.message).toMatch(/: \S.*$/);
    expect(error?.message).not.toContain('[object Object]');
  });

  it('leaves the serving process without the engine instance that created it', async () => {
    // Created in-process, initdb's own engine instance kept about 430 MiB outside the JS heap
    // (631 MiB in all at start) until V8's next full collection, tens of seconds later.
    const dataDir = path.join(await tempDir(), 'data');
    const service = await spawnService({ DATABASE_URL: undefined, SECRETS_KEY: undefined, DATA_DIR: dataDir });
    try {
      await service.ready();
      const res = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${STAFF_TOKEN}` } });
      expect(res.status).toBe(200);
      const external = Number(/^nodejs_external_memory_bytes (\d+)/m.exec(await res.text())?.[1]);
      expect(external).toBeGreaterThan(100 * 2 ** 20); // the engine's linear memory is in it
      expect(external).toBeLessThan(400 * 2 ** 20);
    } finally {
      await service.stop();
    }
  });
});
