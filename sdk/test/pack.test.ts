import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { generateWebhookSecret } from '../src/webhooks.js';
import { startTestReceiver } from './certify-receivers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
/** Only what npm and node need: nothing of the repository's environment leaks into the partner's project. */
const ENV = { PATH: process.env.PATH, HOME: process.env.HOME, ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}) };

let dir: string | null = null;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

// The package touches no database: it is checked once, in the embedded run, not again in each database run.
it.skipIf(Boolean(process.env.DATABASE_URL))(
  'npm pack -w sdk gives a tarball that installs into an empty project: ESM import, TypeScript types and the doorloom-partner command work there',
  { timeout: 300_000 },
  async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-pack-'));
    const { stdout: packed } = await run('npm', ['pack', '-w', 'sdk', '--pack-destination', dir, '--json'], {
      cwd: ROOT,
      env: ENV,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [{ filename }] = JSON.parse(packed) as Array<{ filename: string }>;
    expect(filename).toBe('doorloom-partner-sdk-0.1.0.tgz');

    // a partner's project of their own, outside the repository: no node_modules above it to fall back on
    const app = path.join(dir, 'partner-app');
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
    await run('npm', ['install', `../${filename}`, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: app, env: ENV });
    const installed = path.join(app, 'node_modules/@doorloom/partner-sdk');
    expect((await lstat(installed)).isSymbolicLink()).toBe(false);

    // every import of the package stays inside it or names a builtin or a declared dependency
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const strays: string[] = [];
    let imports = 0;
    for (const file of await filesUnder(installed)) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const text = await readFile(file, 'utf8');
      const specs = [
        ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm),
        ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
        ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
      ].map((m) => m[1]);
      imports += specs.length;
      for (const spec of specs) {
        if (spec.startsWith('.')) {
          if (!path.resolve(path.dirname(file), spec).startsWith(installed + path.sep)) strays.push(`${file}: ${spec}`);
        } else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) {
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
          if (!declared.has(name)) strays.push(`${file}: ${spec}`);
        }
      }
    }
    expect(strays).toEqual([]);
    expect(imports).toBeGreaterThan(20);

    // ESM import, used for real: a delivery signed as the service signs it verifies
    await writeFile(
      path.join(app, 'check.mjs'),
      `import { createHmac } from 'node:crypto';
import { createDoorloomClient, createWebhookVerifier, SyncEngine, MemoryStore } from '@doorloom/partner-sdk';
const secret = 'whsec_' + Buffer.from('partner-secret-partner-secret-32').toString('base64');
const body = JSON.stringify({ id: '01J0000000000000000000000', type: 'ping', sequence: null, data: {} });
const t = Math.floor(Date.now() / 1000);
const v1 = createHmac('sha256', secret).update(t + '.' + body).digest('hex');
const event = createWebhookVerifier({ secrets: secret }).verify(body, { 'x-service-signature': 't=' + t + ',v1=' + v1 });
console.log(JSON.stringify({ type: event.type, client: typeof createDoorloomClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' }).me, engine: typeof SyncEngine, store: typeof MemoryStore }));
`,
    );
    const { stdout: checked } = await run(process.execPath, ['check.mjs'], { cwd: app, env: ENV });
    expect(JSON.parse(checked)).toEqual({ type: 'ping', client: 'function', engine: 'function', store: 'function' });

    // the types check with tsc in that project (the library's declarations too: no skipLibCheck)
    await writeFile(
      path.join(app, 'index.ts'),
      `import { createDoorloomClient, createWebhookVerifier, SyncEngine, MemoryStore, isKnownEvent, type DoorloomEvent, type Booking, type AvailabilitySnapshot } from '@doorloom/partner-sdk';
const client = createDoorloomClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'k' });
export async function nights(): Promise<number> {
  const snapshot: AvailabilitySnapshot = await client.getAvailability('VILLA-1', { from: '2026-12-01', to: '2026-12-31' });
  return snapshot.data.dates.filter((d) => d.available_units > 0).length;
}
export function kind(event: DoorloomEvent): string {
  return isKnownEvent(event) && event.type === 'booking.changed' ? event.data.booking.status : event.type;
}
export const engine = new SyncEngine({ api: null as never, store: new MemoryStore() });
export const accepts: (body: string, headers: Record<string, string>) => boolean = createWebhookVerifier({ secrets: 'whsec_x' }).accepts;
export type B = Booking['id'];
`,
    );
    await writeFile(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true },
        include: ['index.ts'],
      }),
    );
    await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app, env: ENV });
    // and a type error there is one (the check above can fail)
    await writeFile(
      path.join(app, 'wrong.ts'),
      `import { createDoorloomClient } from '@doorloom/partner-sdk';\nexport const c = createDoorloomClient({ baseUrl: 1 });\n`,
    );
    await expect(
      run(path.join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', 'wrong.ts'], {
        cwd: app,
        env: ENV,
      }),
    ).rejects.toMatchObject({
      stdout: expect.stringContaining('wrong.ts'),
    });

    // the command, through npx, as a partner runs it
    const { stdout: help } = await run('npx', ['--no-install', 'doorloom-partner', '--help'], { cwd: app, env: ENV });
    expect(help).toMatch(/^usage: doorloom-partner <command>/);
    expect(help).toContain('doorloom-partner certify');
    const secret = generateWebhookSecret();
    const receiver = await startTestReceiver(secret);
    try {
      const { stdout: certified } = await run('npx', ['--no-install', 'doorloom-partner', 'certify', '--receiver', receiver.url, '--json'], {
        cwd: app,
        env: { ...ENV, DOORLOOM_WEBHOOK_SECRET: secret },
      });
      expect(JSON.parse(certified)).toMatchObject({ passed: true });
    } finally {
      await receiver.close();
    }
  },
);
