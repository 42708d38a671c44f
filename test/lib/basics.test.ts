import { describe, expect, it } from 'vitest';
import { createClock } from '../../src/lib/clock.js';
import { randomToken, ulid } from '../../src/lib/ids.js';
import { roundMoney } from '../../src/lib/money.js';
import { createSecretBox, parseSecretsKey } from '../../src/lib/secrets.js';
import { addDays, dayOfWeek, eachDate, formatTimestamp, isValidDate, kolkataDate, splitByMonth, windowsForNights } from '../../src/lib/time.js';
import { isForbiddenAddress, webhookUrlProblem } from '../../src/modules/webhooks/webhooks.url.js';
import { randomBytes } from 'node:crypto';

describe('time', () => {
  it('writes timestamps in +05:30 with second precision', () => {
    expect(formatTimestamp(new Date('2026-11-22T18:40:05.987Z'))).toBe('2026-11-23T00:10:05+05:30');
  });
  it('takes the Asia/Kolkata calendar date', () => {
    expect(kolkataDate(new Date('2026-11-22T18:29:59Z'))).toBe('2026-11-22');
    expect(kolkataDate(new Date('2026-11-22T18:30:00Z'))).toBe('2026-11-23');
  });
  it('validates real dates only', () => {
    expect(isValidDate('2028-02-29')).toBe(true);
    for (const bad of ['2027-02-29', '2026-13-01', '2026-1-01', '2026-01-00', '20260101', 20260101, null]) expect(isValidDate(bad)).toBe(false);
  });
  it('does date arithmetic and weekdays', () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(dayOfWeek('2026-11-22')).toBe(0); // a Sunday
    expect(dayOfWeek('2026-11-27')).toBe(5); // a Friday
    expect(eachDate('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });
  it('splits windows by calendar month, inclusive at both ends', () => {
    expect(splitByMonth('2026-11-22', '2027-01-03')).toEqual([
      { from: '2026-11-22', to: '2026-11-30' },
      { from: '2026-12-01', to: '2026-12-31' },
      { from: '2027-01-01', to: '2027-01-03' },
    ]);
    expect(windowsForNights(['2026-12-30', '2026-11-29', '2026-12-31', '2027-01-01', '2026-11-30'])).toEqual([
      { from: '2026-11-29', to: '2026-11-30' },
      { from: '2026-12-30', to: '2026-12-31' },
      { from: '2027-01-01', to: '2027-01-01' },
    ]);
  });
});

describe('money', () => {
  it('rounds to two decimals and drops trailing zeros', () => {
    expect(JSON.stringify(roundMoney('13000.00'))).toBe('13000');
    expect(roundMoney(1.005)).toBe(1.01);
    expect(roundMoney(2.675)).toBe(2.68);
    expect(roundMoney(-1.005)).toBe(-1.01);
    expect(Object.is(roundMoney(-0.001), 0)).toBe(true);
    expect(roundMoney(99.999)).toBe(100);
  });
});

describe('ids and secrets', () => {
  it('makes ULIDs that sort by time', () => {
    const a = ulid(Date.UTC(2026, 0, 1));
    const b = ulid(Date.UTC(2026, 0, 2));
    expect(a).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(a < b).toBe(true);
    expect(ulid(0).slice(0, 10)).toBe('0000000000');
  });
  it('makes distinct ULIDs within one millisecond, across refills of its random pool', () => {
    const ids = Array.from({ length: 2000 }, () => ulid(Date.UTC(2026, 0, 1)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(10, 12))).size).toBeGreaterThan(500);
  });
  it('makes tokens of the given shape', () => {
    expect(randomToken('dlk_', 40)).toMatch(/^dlk_[0-9A-Za-z]{40}$/);
  });
  it('seals and opens secrets, refusing tampering and other keys', () => {
    const box = createSecretBox(randomBytes(32));
    const sealed = box.encrypt('whsec_abc', 7);
    expect(sealed).not.toContain('whsec_abc');
    expect(box.decrypt(sealed, 7)).toBe('whsec_abc');
    expect(() => createSecretBox(randomBytes(32)).decrypt(sealed, 7)).toThrow();
    // another last character of the ciphertext (9 bytes: every base64url character carries data)
    const tampered = sealed.slice(0, -1) + (sealed.endsWith('A') ? 'B' : 'A');
    expect(() => box.decrypt(tampered, 7)).toThrow();
    expect(() => box.decrypt(sealed, 8)).toThrow(); // bound to its integration
  });
  it('reads a 32-byte key as hex or base64 only', () => {
    expect(parseSecretsKey('ab'.repeat(32)).length).toBe(32);
    expect(parseSecretsKey(randomBytes(32).toString('base64')).length).toBe(32);
    expect(() => parseSecretsKey('short')).toThrow();
  });
});

describe('clock', () => {
  it('runs at real speed plus an offset', () => {
    const clock = createClock(0);
    const before = clock.nowMs();
    clock.setOffsetSeconds(3600);
    expect(clock.nowMs() - before).toBeGreaterThanOrEqual(3600_000);
    expect(clock.offsetSeconds()).toBe(3600);
  });
});

describe('webhook URL guard', () => {
  it('refuses loopback, private, link-local, CGNAT, mapped and metadata addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:a00:1',
      '::ffff:8.8.8.8',
      '224.0.0.1',
    ]) {
      expect(isForbiddenAddress(ip), ip).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700::1111']) expect(isForbiddenAddress(ip), ip).toBe(false);
    // IPv4-mapped is refused whatever it carries (docs/decisions.md, Webhook targets)
    expect(isForbiddenAddress('::ffff:8.8.8.8')).toBe(true);
  });
  it('wants https and no credentials unless insecure targets are allowed', () => {
    expect(webhookUrlProblem('https://hooks.example.com/x', { insecure: false, private: false })).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/x', { insecure: false, private: false })).not.toBeNull();
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/x', { insecure: false, private: false })).not.toBeNull();
    expect(webhookUrlProblem('https://[::ffff:7f00:1]/x', { insecure: false, private: false })).not.toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:9000/x', { insecure: true, private: true })).toBeNull();
  });
});
