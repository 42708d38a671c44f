import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { freePort } from '../../scripts/lib.js';
import { spawnService } from './service.js';

/** Bad settings end the real process with one line on stderr and exit 2; no stack trace. */

async function startFails(env: Record<string, string | undefined>) {
  const service = await spawnService(env);
  const { code } = await service.exited;
  return { code, stderr: service.stderr(), stdout: service.stdout() };
}

describe('configuration errors (real process)', { timeout: 180_000 }, () => {
  const cases: Array<[string, Record<string, string | undefined>, RegExp]> = [
    ['SECRETS_KEY too short', { SECRETS_KEY: 'abc' }, /SECRETS_KEY must be 32 bytes/],
    ['PORT not a number', { PORT: 'x' }, /PORT must be an integer/],
    ['TEST_CLOCK not a boolean', { TEST_CLOCK: 'maybe' }, /TEST_CLOCK must be one of 1\/0, true\/false, on\/off/],
    ['NO_BACKGROUND=yes', { NO_BACKGROUND: 'yes' }, /NO_BACKGROUND must be one of/],
    ['DATABASE_URL of another kind', { DATABASE_URL: 'mysql://root@localhost/test' }, /DATABASE_URL must be postgres:\/\//],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    ['WORKERS on the embedded database', { WORKERS: '2', DATABASE_URL: 'memory:' }, /WORKERS above 1 needs PostgreSQL/],
    ['REQUEST_TIMEOUT_SECONDS zero', { REQUEST_TIMEOUT_SECONDS: '0' }, /REQUEST_TIMEOUT_SECONDS must be an integer from 1/],
    ['WEBHOOK_ALLOW_PRIVATE not a boolean', { WEBHOOK_ALLOW_PRIVATE: 'yes' }, /WEBHOOK_ALLOW_PRIVATE must be one of 1\/0, true\/false, on\/off/],
    [
      'STAFF_TOKEN_REVOKE_OTHERS without STAFF_TOKEN',
      { STAFF_TOKEN_REVOKE_OTHERS: '1', STAFF_TOKEN: undefined },
      /STAFF_TOKEN_REVOKE_OTHERS needs STAFF_TOKEN/,
    ],
    [
      'DATABASE_POOL_MODE unknown',
      { DATABASE_POOL_MODE: 'statement', DATABASE_URL: 'postgres://root@127.0.0.1:1/x' },
      /DATABASE_POOL_MODE must be session or transaction, got "statement"/,
    ],
    [
      'DATABASE_DIRECT_URL of another kind',
      { DATABASE_DIRECT_URL: 'http://db', DATABASE_URL: 'postgres://root@127.0.0.1:1/x' },
      /DATABASE_DIRECT_URL must be postgres:\/\//,
    ],
    ['DATA_DIR under a file', { DATA_DIR: '/dev/null/data', DATABASE_URL: undefined }, /DATA_DIR \/dev\/null\/data cannot be used/],
  ];

  it('each bad setting: exit 2 and one line "configuration error: …"', async () => {
    const results = await Promise.all(cases.map(([, env]) => startFails({ DATABASE_URL: 'memory:', ...env })));
    results.forEach((result, i) => {
      const [name, , pattern] = cases[i];
      expect(result.code, name).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toMatch(/^configuration error: /);
      expect(lines[0], name).toMatch(pattern);
      expect(result.stderr, name).not.toMatch(/\n\s+at /);
    });
  }); // eleven service processes start at once: slow on a loaded machine (the describe's budget)

  it('an unreachable PostgreSQL: exit 1 and one line naming host, port and cause', async () => {
    const port = await freePort(); // nothing listens there
    const result = await startFails({ DATABASE_URL: `postgres://root@127.0.0.1:${port}/test` });
    expect(result.code).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^cannot reach the database at 127\\.0\\.0\\.1:${port}/test: .*ECONNREFUSED`));
  });
});

describe('boolean settings', () => {
  it.each([
    ['1', true],
    ['true', true],
    ['TRUE', true],
    ['on', true],
    ['On', true],
    ['0', false],
    ['false', false],
    ['off', false],
    ['OFF', false],
  ])('TEST_CLOCK=%s → %s (and the same for every boolean)', (raw, value) => {
    const config = loadConfig({ TEST_CLOCK: raw, WEBHOOK_ALLOW_INSECURE: raw, WEBHOOK_ALLOW_PRIVATE: raw, NO_BACKGROUND: raw, RATE_LIMITS: raw });
    expect(config.testClock).toBe(value);
    expect(config.webhookAllowInsecure).toBe(value);
    expect(config.webhookAllowPrivate).toBe(value);
    expect(config.background).toBe(!value);
    expect(config.rateLimits).toBe(value);
  });

  it.each(['yes', 'no', 'maybe', '2', 'enabled'])('refuses %s', (raw) => {
    for (const name of ['TEST_CLOCK', 'WEBHOOK_ALLOW_INSECURE', 'WEBHOOK_ALLOW_PRIVATE', 'NO_BACKGROUND', 'RATE_LIMITS', 'STAFF_TOKEN_REVOKE_OTHERS']) {
      expect(() => loadConfig({ [name]: raw })).toThrow(ConfigError);
    }
  });

  it('unset booleans take their defaults', () => {
    const config = loadConfig({});
    expect([
      config.testClock,
      config.webhookAllowInsecure,
      config.webhookAllowPrivate,
      config.background,
      config.rateLimits,
      config.staffTokenRevokeOthers,
    ]).toEqual([false, false, false, true, true, false]);
    expect(config.requestTimeoutMs).toBe(30_000);
  });
});

describe('database pool settings', () => {
  const pg = 'postgres://root@127.0.0.1:5432/test';

  it('DATABASE_POOL_MODE: session by default, session or transaction when set', () => {
    expect(loadConfig({ DATABASE_URL: pg })).toMatchObject({ databasePoolMode: 'session', databaseDirectUrl: null });
    expect(loadConfig({ DATABASE_URL: pg, DATABASE_POOL_MODE: 'session' }).databasePoolMode).toBe('session');
    expect(loadConfig({ DATABASE_URL: pg, DATABASE_POOL_MODE: 'transaction' }).databasePoolMode).toBe('transaction');
    expect(loadConfig({ DATABASE_URL: pg, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: 'postgres://root@127.0.0.1:5433/test' })).toMatchObject({
      databasePoolMode: 'transaction',
      databaseDirectUrl: 'postgres://root@127.0.0.1:5433/test',
    });
  });

  it.each([
    [{ DATABASE_URL: pg, DATABASE_POOL_MODE: 'statement' }, /DATABASE_POOL_MODE must be session or transaction/],
    [{ DATABASE_URL: 'memory:', DATABASE_POOL_MODE: 'transaction' }, /DATABASE_POOL_MODE=transaction needs DATABASE_URL=postgres/],
    [{ DATABASE_URL: pg, DATABASE_DIRECT_URL: 'not a url' }, /DATABASE_DIRECT_URL must be postgres/],
    [{ DATABASE_URL: 'memory:', DATABASE_DIRECT_URL: pg }, /DATABASE_DIRECT_URL needs DATABASE_URL=postgres/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });
});
