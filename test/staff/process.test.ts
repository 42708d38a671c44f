import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_TOKEN } from '../helpers/context.js';
import { spawnService, type Service } from '../infra/service.js';

/**
 * The real process on the embedded database, restarted with another STAFF_TOKEN: the previous
 * bootstrap token stops working, a named token survives.
 */
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-staff-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function stopGracefully(service: Service) {
  service.child.kill('SIGTERM');
  const { code } = await service.exited;
  expect(code).toBe(0);
}

const staffCall = (service: Service, token: string, method = 'GET', body?: unknown) =>
  fetch(`${service.url}/api/staff/v1/staff-tokens`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe('staff tokens across restarts of the real process', () => {
  it('a new STAFF_TOKEN revokes the previous one; named tokens stay', async () => {
    const first = await spawnService({ DATA_DIR: dataDir, STAFF_TOKEN });
    let named: string;
    try {
      await first.ready();
      const minted = await staffCall(first, STAFF_TOKEN, 'POST', { name: 'survivor' });
      expect(minted.status).toBe(201);
      expect(minted.headers.get('cache-control')).toBe('no-store');
      named = ((await minted.json()) as { data: { token: string } }).data.token;
    } finally {
      await stopGracefully(first);
    }

    const next = `dls_${'R'.repeat(20)}${'7'.repeat(20)}`;
    const second = await spawnService({ DATA_DIR: dataDir, STAFF_TOKEN: next });
    try {
      await second.ready();
      const old = await staffCall(second, STAFF_TOKEN);
      expect(old.status).toBe(401);
      expect(await old.json()).toMatchObject({ success: false, code: 'UNAUTHENTICATED' });
      expect((await staffCall(second, next)).status).toBe(200);
      const list = (await (await staffCall(second, named)).json()) as { data: Array<{ name: string; kind: string }> };
      expect(list.data.map((t) => [t.kind, t.name]).sort()).toEqual([
        ['bootstrap', 'STAFF_TOKEN'],
        ['named', 'survivor'],
      ]);
    } finally {
      await stopGracefully(second);
    }
  }, 240_000); // two starts of the real process on a loaded machine
});
