import { lstat, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFile } from '../src/store/replace-file.js';

/** How the CLI's cursor and the file store's checkpoint are written. */
describe('replaceFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-replace-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replaces the file whole, mode 0600, and leaves no temporary file behind', async () => {
    const file = path.join(dir, 'cursor.json');
    await writeFile(file, 'old', { mode: 0o644 });
    await replaceFile(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect((await lstat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['cursor.json']);
  });

  it('does not follow a symbolic link planted at a predictable temporary name', async () => {
    const file = path.join(dir, 'cursor.json');
    const victim = path.join(dir, 'victim');
    await writeFile(victim, 'untouched');
    // the names an earlier version wrote through ('w' follows links)
    for (const name of [`${file}.${process.pid}.tmp`, `${file}.tmp`, `.cursor.json.tmp`]) await symlink(victim, path.resolve(dir, name));
    for (let i = 0; i < 20; i++) await replaceFile(file, `value ${i}`);
    expect(await readFile(victim, 'utf8')).toBe('untouched');
    expect(await readFile(file, 'utf8')).toBe('value 19');
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    // random names: only the planted links are left beside the file
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toHaveLength(3);
  });
});
