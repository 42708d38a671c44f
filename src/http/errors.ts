/** Field errors keyed by dotted path (`units.2.external_id`), each holding messages. */
export type FieldErrors = Record<string, string[]>;

/**
 * The one error type. Everything a handler refuses is thrown as an AppError and turned into the
 * contract's failure envelope by the error handler; `errors` is passed through as it is.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: Record<string, unknown>,
    /** Extra response headers (Retry-After, Allow, …). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function validationFailed(errors: FieldErrors, message = 'The given data was invalid.'): AppError {
  return new AppError(422, 'VALIDATION_FAILED', message, errors);
}

export function notFound(message = 'Not found.'): AppError {
  return new AppError(404, 'NOT_FOUND', message);
}

/** Collects field errors while a body is checked by hand, then throws them all at once. */
export class FieldErrorCollector {
  readonly errors: FieldErrors = {};
  add(key: string, message: string): this {
    (this.errors[key] ??= []).push(message);
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
  return new AppError(
    503,
    'DATABASE_UNAVAILABLE',
    'The database is unavailable. Retry in a few seconds.',
    undefined,
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );
}
