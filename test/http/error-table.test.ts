import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, fail } from '../../src/http/errors.js';

// A scan of the source: every error code a module throws or answers has its one status in ERROR_STATUS.

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const sources = sourceFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));

/** [file, code, status written at the site or null] for every place an error code is thrown or answered. */
function sites(): [string, string, number | null][] {
  const found: [string, string, number | null][] = [];
  const patterns: [RegExp, boolean][] = [
    [/new AppError\(\s*(\d+),\s*'([A-Z_]+)'/g, true],
    [/\bfail\(\s*'([A-Z_]+)'/g, false],
    [/\bsendFailure\([^;]*?'([A-Z_]+)'/g, false],
    [/\bfailureBody\(\s*'([A-Z_]+)'/g, false],
  ];
  for (const { path, text } of sources) {
    // webhooks.send.ts has a `fail` of its own, for delivery outcomes
    const importsFail = /import \{[^}]*\bfail\b[^}]*\} from '[./]*(?:http\/)?errors\.js'/.test(text) || path === join('src', 'http', 'errors.ts');
    for (const [pattern, withStatus] of patterns) {
      if (pattern.source.startsWith('\\bfail') && !importsFail) continue;
      for (const m of text.matchAll(pattern)) found.push(withStatus ? [path, m[2], Number(m[1])] : [path, m[1], null]);
    }
  }
  return found;
}

describe('the error table', () => {
  it('holds every code thrown or answered in src/, and no code nothing uses', () => {
    const found = sites();
    // the scan sees the sites the table exists for
    expect(found.length).toBeGreaterThan(40);
    const unknown = found.filter(([, code]) => !(code in ERROR_STATUS)).map(([path, code]) => `${path}: ${code}`);
    expect(unknown).toEqual([]);
    // codes named elsewhere: typed tables such as caps.ts's client errors
    const elsewhere = sources.filter(({ path }) => path !== join('src', 'http', 'errors.ts')).map(({ text }) => text).join('\n');
    const used = new Set([...found.map(([, code]) => code), ...Object.keys(ERROR_STATUS).filter((code) => elsewhere.includes(`'${code}'`))]);
    expect(Object.keys(ERROR_STATUS).filter((code) => !used.has(code))).toEqual([]);
  });

  it('gives a status written at a site only where the table agrees, or at the one documented exception', () => {
    const disagreeing = sites()
      .filter(([, code, status]) => status !== null && status !== ERROR_STATUS[code as keyof typeof ERROR_STATUS])
      .map(([path, code, status]) => `${path}: ${status} ${code}`);
    expect(disagreeing).toEqual([join('src', 'http', 'errors.ts') + ': 409 INTEGRATION_DISABLED']);
  });

  it("keeps the contract's statuses", () => {
    expect(ERROR_STATUS).toMatchObject({
      VALIDATION_FAILED: 422,
      IDEMPOTENCY_KEY_REQUIRED: 422,
      IDEMPOTENCY_KEY_REUSED: 422,
      PROPERTY_ARCHIVED: 422,
      PROPERTY_NOT_MAPPED: 422,
      NOT_FOUND: 404,
      IN_PROGRESS: 409,
      PROPERTY_EXTERNAL_ID_EXISTS: 409,
      UNAVAILABLE: 409,
      RATE_LIMITED: 429,
      SYNC_TOO_SOON: 429,
      UNAUTHENTICATED: 401,
      NOT_INTEGRATION_TOKEN: 403,
      INTEGRATION_DISABLED: 403,
    });
  });

  it('builds an AppError with the status of its code', () => {
    const error = fail('SYNC_TOO_SOON', 'later', { retry_after: 5 }, { 'Retry-After': '5' });
    expect([error.status, error.code, error.message, error.errors, error.headers]).toEqual([429, 'SYNC_TOO_SOON', 'later', { retry_after: 5 }, { 'Retry-After': '5' }]);
  });
});
