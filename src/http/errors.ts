/** Field errors keyed by dotted path (`units.2.external_id`), each holding messages. */
export type FieldErrors = Record<string, string[]>;

/** Every error code the service answers, with its one HTTP status. */
export const ERROR_STATUS = {
  /** Any client error Fastify or Node's HTTP parser refuses without a code of ours. */
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  UNAUTHENTICATED: 401,
  NOT_INTEGRATION_TOKEN: 403,
  NOT_STAFF_TOKEN: 403,
  INSUFFICIENT_SCOPE: 403,
  INTEGRATION_DISABLED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  IN_PROGRESS: 409,
  PROPERTY_EXTERNAL_ID_EXISTS: 409,
  UNAVAILABLE: 409,
  SLUG_EXISTS: 409,
  STAFF_TOKEN_CONFIGURED: 409,
  LAST_STAFF_TOKEN: 409,
  TEST_CLOCK_DISABLED: 409,
  CURSOR_EXPIRED: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  /** A Range the docs' static files cannot serve. */
  RANGE_NOT_SATISFIABLE: 416,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  IDEMPOTENCY_KEY_REQUIRED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  PROPERTY_ARCHIVED: 422,
  PROPERTY_INACTIVE: 422,
  PROPERTY_NOT_MAPPED: 422,
  UNIT_INACTIVE: 422,
  INVALID_STATUS_TRANSITION: 422,
  BOOKING_NOT_MODIFIABLE: 422,
  RATE_LIMITED: 429,
  SYNC_TOO_SOON: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  DATABASE_UNAVAILABLE: 503,
  NOT_READY: 503,
  METRICS_UNAVAILABLE: 503,
  /** /healthz and /readyz while the node drains, so a proxy takes it out of its pool. */
  SHUTTING_DOWN: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Codes with a second status in one situation, each documented where it is thrown. A staff resume
 * of a disabled integration is 409, a conflict with its state; a partner's call as one is 403.
 */
export const SECOND_STATUS = {
  INTEGRATION_DISABLED: 409,
} as const satisfies Partial<Record<ErrorCode, number>>;

/**
 * The one error type. Everything a handler refuses is thrown as an AppError and turned into the
 * contract's failure envelope by the error handler; `errors` is passed through as it is. It is
 * built from a code, and its status is the one ERROR_STATUS gives that code.
 */
export class AppError extends Error {
  #secondStatus = false;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: Record<string, unknown>,
    /** Extra response headers (Retry-After, Allow, …). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return this.#secondStatus && this.code in SECOND_STATUS ? SECOND_STATUS[this.code as keyof typeof SECOND_STATUS] : ERROR_STATUS[this.code];
  }

  /** `code` with its status from SECOND_STATUS, for the one situation that table names. */
  static withSecondStatus(code: keyof typeof SECOND_STATUS, message: string): AppError {
    const error = new AppError(code, message);
    error.#secondStatus = true;
    return error;
  }
}

/** An AppError for `code`, with the status the table gives it. */
export function fail(code: ErrorCode, message: string, errors?: Record<string, unknown>, headers?: Record<string, string>): AppError {
  return new AppError(code, message, errors, headers);
}

/** A staff resume of a disabled integration: 409, a conflict with its state (SECOND_STATUS). */
export function resumeOfDisabled(): AppError {
  return AppError.withSecondStatus('INTEGRATION_DISABLED', 'The integration is disabled; re-enable it with PATCH status "active".');
}

export function validationFailed(errors: FieldErrors, message = 'The given data was invalid.'): AppError {
  return fail('VALIDATION_FAILED', message, errors);
}

export function notFound(message = 'Not found.'): AppError {
  return fail('NOT_FOUND', message);
}

/**
 * Collects field errors while a body is checked, each message once per key, then throws them all
 * at once. With a prefix (`properties.3`) every key is under it; an empty key names the prefix
 * itself, or `body` when there is none.
 */
export class FieldErrorCollector {
  readonly errors: FieldErrors = {};
  constructor(private readonly prefix = '') {}
  add(key: string, message: string): this {
    const path = this.prefix ? (key ? `${this.prefix}.${key}` : this.prefix) : key || 'body';
    const list = (this.errors[path] ??= []);
    if (!list.includes(message)) list.push(message);
    return this;
  }
  /** Adds errors whose keys are already full paths. */
  merge(more: FieldErrors): this {
    for (const [key, messages] of Object.entries(more)) {
      const list = (this.errors[key] ??= []);
      for (const m of messages) if (!list.includes(m)) list.push(m);
    }
    return this;
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
  throwIfAny(): void {
    if (!this.empty) throw validationFailed(this.errors);
  }
}

/** Seconds a client is told to wait (Retry-After) while the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** 503 when the database cannot be reached or cannot answer in time (never a bare 500). */
export function databaseUnavailable(): AppError {
  return fail('DATABASE_UNAVAILABLE', 'The database is unavailable. Retry in a few seconds.', undefined, {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });
}
