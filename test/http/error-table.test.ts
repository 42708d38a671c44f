import { describe, expect, it } from 'vitest';
import { AppError, ERROR_STATUS, fail, resumeOfDisabled } from '../../src/http/errors.js';

// An AppError is built from a code only: its status is the one ERROR_STATUS gives that code, so a
// status written at a throw site does not compile (below), and no scan of the source is needed.

describe('the error table', () => {
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
      BAD_REQUEST: 400,
      SHUTTING_DOWN: 503,
    });
  });

  it('builds an AppError with the status of its code', () => {
    const error = fail('SYNC_TOO_SOON', 'later', { retry_after: 5 }, { 'Retry-After': '5' });
    expect([error.status, error.code, error.message, error.errors, error.headers]).toEqual([
      429,
      'SYNC_TOO_SOON',
      'later',
      { retry_after: 5 },
      { 'Retry-After': '5' },
    ]);
    expect(new AppError('UNIT_INACTIVE', 'off sale').status).toBe(422);
  });

  it('refuses a status or an unknown code at the site', () => {
    // @ts-expect-error a status is not an ErrorCode
    expect(() => new AppError(422, 'UNIT_INACTIVE', 'off sale')).not.toThrow();
    // @ts-expect-error a code must be in the table
    expect(fail('SOMETHING_ELSE', 'no').code).toBe('SOMETHING_ELSE');
  });

  it('gives INTEGRATION_DISABLED its second status only on a staff resume', () => {
    const error = resumeOfDisabled();
    expect([error.status, error.code]).toEqual([409, 'INTEGRATION_DISABLED']);
    expect(fail('INTEGRATION_DISABLED', 'disabled').status).toBe(403);
  });
});
