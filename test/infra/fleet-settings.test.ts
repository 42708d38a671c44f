import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { spawnService } from './service.js';

/** TRUST_PROXY and SHUTDOWN_DRAIN_MS: what is accepted, and a bad value ends the real process with one line, exit 2. */

describe('TRUST_PROXY', () => {
  it('unset or empty trusts no proxy; addresses and CIDRs, IPv4 and IPv6, are kept as given', () => {
    expect(loadConfig({}).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: ' ' }).trustProxy).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1' }).trustProxy).toEqual(['127.0.0.1']);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1,fd00::/8' }).trustProxy).toEqual(['10.0.0.0/8', '::1', 'fd00::/8']);
  });

  it.each(['proxy.internal', '10', '1.2.3', '10.0.0.0/33', '10.0.0.1/', '127.0.0.1,', 'true', '10.0.0.0/255.0.0.0'])('%s is refused', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/^TRUST_PROXY must be comma-separated IP addresses or CIDRs/);
  });
});

describe('SHUTDOWN_DRAIN_MS', () => {
  it('defaults to 5 s; 0 skips the drain', () => {
    expect(loadConfig({}).shutdownDrainMs).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '0' }).shutdownDrainMs).toBe(0);
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: '-1' })).toThrow(/SHUTDOWN_DRAIN_MS must be an integer from 0 to 120000/);
  });
});

describe('bad fleet settings (real process)', { timeout: 180_000 }, () => {
  it.each([
    ['TRUST_PROXY', { TRUST_PROXY: 'haproxy.local' }, /^configuration error: TRUST_PROXY must be comma-separated IP addresses or CIDRs/],
    ['SHUTDOWN_DRAIN_MS', { SHUTDOWN_DRAIN_MS: 'soon' }, /^configuration error: SHUTDOWN_DRAIN_MS must be an integer/],
  ])('%s: exit 2 and one line', async (_name, env, pattern) => {
    const service = await spawnService({ DATABASE_URL: 'memory:', ...env });
    const { code } = await service.exited;
    expect(code).toBe(2);
    const lines = service.stderr().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
  });
});
