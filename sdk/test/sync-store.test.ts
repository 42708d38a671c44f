import { spawn } from 'node:child_process';
import { appendFile, chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../src/store/file.js';
import { MemoryStore } from '../src/store/memory.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function reopen(options = {}) {
  const store = new FileStore(dir, options);
  const map = await store.load();
  return { store, map };
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('FileStore', () => {
  it('tightens an existing store to a 0700 directory and 0600 files, checkpoint included', async () => {
    const { store } = await reopen({ compactBytes: 1 });
    await store.commit([['guest', { name: 'A Guest', mobile: '+919800000000' }]]); // compacts: state.json written
    await store.close();
    await chmod(dir, 0o755);
    await chmod(path.join(dir, 'state.json'), 0o644);
    await chmod(path.join(dir, 'journal.log'), 0o666);
    const { store: again, map } = await reopen();
    expect(map.get('guest')).toEqual({ name: 'A Guest', mobile: '+919800000000' });
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(path.join(dir, 'state.json'))).toBe(0o600);
    expect(await modeOf(path.join(dir, 'journal.log'))).toBe(0o600);
    await again.close();
  });

  it('creates a missing store directory 0700 and leaves a shared sticky parent as it is', async () => {
    const shared = path.join(dir, 'shared');
    const store = new FileStore(path.join(shared, 'a', 'b'), { compactBytes: 1 });
    await store.load();
    await store.commit([['k', 1]]);
    await store.close();
    expect(await modeOf(path.join(shared, 'a', 'b'))).toBe(0o700);
    for (const file of ['state.json', 'journal.log']) expect(await modeOf(path.join(shared, 'a', 'b', file))).toBe(0o600);

    await chmod(shared, 0o1777);
    const inShared = new FileStore(shared);
    await inShared.load();
    await inShared.close();
    expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
    expect(await modeOf(path.join(shared, 'journal.log'))).toBe(0o600);
  });

  it('keeps every committed batch across a reopen; null deletes', async () => {
    const { store } = await reopen();
    await store.commit([
      ['a', 1],
      ['b', { x: [1, 2] }],
    ]);
    await store.commit([
      ['a', null],
      ['c', 'three'],
    ]);
    await store.close();
    const { store: again, map } = await reopen();
    expect([...map]).toEqual([
      ['b', { x: [1, 2] }],
      ['c', 'three'],
    ]);
    await again.close();
  });

  it('cuts a torn last line on load and keeps the batches committed after it', async () => {
    const { store } = await reopen();
    await store.commit([['a', 1]]);
    await store.close();
    await appendFile(path.join(dir, 'journal.log'), '0123456789abcdef [["a",2],["b"'); // kill -9 mid-write
    let { store: s2, map } = await reopen();
    expect([...map]).toEqual([['a', 1]]);
    await s2.commit([['b', 2]]);
    await s2.close();
    ({ store: s2, map } = await reopen());
    expect([...map]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    // a line whose digest does not match its body is as good as torn
    await s2.close();
    const text = await readFile(path.join(dir, 'journal.log'), 'utf8');
    await writeFile(path.join(dir, 'journal.log'), text.replace('["b",2]', '["b",3]'));
    ({ store: s2, map } = await reopen());
    expect([...map]).toEqual([['a', 1]]);
    await s2.close();
  });

  it('compacts into a checkpoint; a crash between the rename and the journal truncation loses nothing', async () => {
    const { store } = await reopen({ compactBytes: 200 });
    for (let i = 0; i < 20; i++)
      await store.commit([
        ['n', i],
        [`k${i % 3}`, i],
      ]);
    expect(await store.journalSize()).toBeLessThan(400);
    await store.close();
    const expected = [...(await reopen()).map];
    expect(new Map(expected).get('n')).toBe(19);

    // the journal as it was before a compaction, beside the checkpoint that already holds it
    const { store: s2 } = await reopen({ compactBytes: 1e9 });
    await s2.commit([['n', 20]]);
    await s2.commit([['k0', 20]]);
    const journal = await readFile(path.join(dir, 'journal.log'));
    await s2.compact();
    await s2.close();
    await writeFile(path.join(dir, 'journal.log'), journal);
    const { store: s3, map } = await reopen();
    expect(map.get('n')).toBe(20);
    expect(map.get('k0')).toBe(20);
    expect(map.get('k1')).toBe(new Map(expected).get('k1'));
    await s3.close();
  });

  it('survives kill -9 during commits: a batch is all there or not at all', async () => {
    // A child commits batches [n = i, k<i> = i] as fast as it can, compacting now and then; it is
    // killed at a random moment. After it, n names the last batch and every k up to n is there.
    const script = `
      import { FileStore } from './sdk/src/store/file.ts';
      const store = new FileStore(process.argv[1], { compactBytes: 4096 });
      const map = await store.load();
      let i = (map.get('n') ?? -1) + 1;
      await store.commit([['n', i], ['k' + i, i]]);
      process.stdout.write('committed ' + i + '\\n');
      for (i++; ; i++) await store.commit([['n', i], ['k' + i, i]]);
    `;
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c) => (err += c));
      // killed only once this run has committed: a loaded machine may take long to get there
      const first = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (c) => {
          const m = /committed (\d+)/.exec(String(c));
          if (m) resolve(Number(m[1]));
        });
        child.on('exit', () => reject(new Error(`child exited early: ${err}`)));
      });
      await new Promise((r) => setTimeout(r, 50 + round * 100));
      child.kill('SIGKILL');
      await new Promise((r) => child.on('exit', r));
      const { store, map } = await reopen();
      const n = map.get('n') as number;
      expect(n).toBeGreaterThanOrEqual(first);
      for (let k = 0; k <= n; k++) expect(map.get(`k${k}`)).toBe(k);
      expect(map.has(`k${n + 1}`)).toBe(false);
      await store.close();
    }
  });
});

describe('MemoryStore', () => {
  it('outlives its engine: a reload sees every commit', async () => {
    const store = new MemoryStore();
    await store.commit([
      ['a', 1],
      ['b', 2],
    ]);
    await store.commit([['a', null]]);
    expect([...(await store.load())]).toEqual([['b', 2]]);
  });
});
