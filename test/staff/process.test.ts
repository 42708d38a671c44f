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

  it('recovery: STAFF_TOKEN_REVOKE_OTHERS=1 leaves only STAFF_TOKEN; removing STAFF_TOKEN revokes it and prints a new token', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'doorloom-staff-recovery-'));
    try {
      const first = await spawnService({ DATA_DIR: dir, STAFF_TOKEN });
      const minted: string[] = [];
      try {
        await first.ready();
        for (const body of [{ name: 'attacker', scope: 'admin' }, { name: 'ops' }]) {
          const res = await staffCall(first, STAFF_TOKEN, 'POST', body);
          expect(res.status).toBe(201);
          minted.push(((await res.json()) as { data: { token: string } }).data.token);
        }
        for (const token of minted) expect((await staffCall(first, token)).status).toBe(200);
      } finally {
        await stopGracefully(first);
      }
      // the start says WEBHOOK_ALLOW_PRIVATE is on (the tests' environment sets it)
      expect(first.stdout()).toContain('WEBHOOK_ALLOW_PRIVATE on');

      const recovery = await spawnService({ DATA_DIR: dir, STAFF_TOKEN, STAFF_TOKEN_REVOKE_OTHERS: '1' });
      try {
        await recovery.ready();
        for (const token of minted) expect((await staffCall(recovery, token)).status).toBe(401);
        const list = (await (await staffCall(recovery, STAFF_TOKEN)).json()) as { data: Array<{ name: string }> };
        expect(list.data.map((t) => t.name)).toEqual(['STAFF_TOKEN']);
      } finally {
        await stopGracefully(recovery);
      }
      expect(recovery.stdout()).toContain('revoked 2 staff tokens');

      const unset = await spawnService({ DATA_DIR: dir, STAFF_TOKEN: undefined });
      try {
        await unset.ready();
        expect((await staffCall(unset, STAFF_TOKEN)).status).toBe(401);
        const printed = /staff token: (dls_[A-Za-z0-9]{40})/.exec(unset.stdout())?.[1];
        expect(printed).toBeDefined();
        expect((await staffCall(unset, printed!)).status).toBe(200);
      } finally {
        await stopGracefully(unset);
      }
      expect(unset.stdout()).toContain('STAFF_TOKEN is no longer set: revoked the staff token it had set');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 360_000); // three starts of the real process on a loaded machine
});
