/** The failure envelope every refusal of the partner API carries (contract: Errors). */
export interface ErrorEnvelopeBody {
  success: false;
  code: string;
  message: string;
  errors?: Record<string, unknown>;
}

/**
 * A refusal from the service: a non-2xx answer in the contract's failure envelope (or, for a proxy's
 * page, whatever it answered). Branch on `code`, never on `message`.
 */
export class DoorloomApiError extends Error {
  override readonly name = 'DoorloomApiError';
  /** HTTP status. */
  readonly status: number;
  /** The machine-readable code (`VALIDATION_FAILED`, `NOT_FOUND`, …); `HTTP_<status>` when the body had none. */
  readonly code: string;
  /** `errors` of the envelope: dotted field paths to messages for validation, or the code's details. */
  readonly errors: Record<string, unknown> | undefined;
  /** The parsed body (the envelope), or the raw text when it was not JSON. */
  readonly body: unknown;
  /** The HTTP response; its body has been read already (see `body`). */
  readonly response: Response;
  /** `X-Request-Id` of the response, to quote when asking about a failure. */
  readonly requestId: string | null;
  /** Seconds to wait before asking again (429 and 503): `Retry-After`, else `errors.retry_after`. */
  readonly retryAfter: number | null;
  /** How many requests were sent for this call, retries included. */
  readonly attempts: number;

  constructor(response: Response, body: unknown, attempts = 1) {
    const envelope = isEnvelope(body) ? body : null;
    const code = envelope?.code ?? `HTTP_${response.status}`;
    super(`${response.status} ${code}: ${envelope?.message ?? response.statusText}`);
    this.status = response.status;
    this.code = code;
    this.errors = envelope?.errors;
    this.body = body;
    this.response = response;
    this.requestId = response.headers.get('x-request-id');
    this.retryAfter = retryAfterSeconds(response.headers, body);
    this.attempts = attempts;
  }
}

/** The request never got an answer: connection refused or reset, DNS failure, or the per-attempt timeout. */
export class DoorloomNetworkError extends Error {
  override readonly name = 'DoorloomNetworkError';
  /** True when the last attempt was abandoned by the client's timeout. */
  readonly timedOut: boolean;
  readonly attempts: number;
  constructor(message: string, options: { cause: unknown; timedOut: boolean; attempts: number }) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut;
    this.attempts = options.attempts;
  }
}

function isEnvelope(body: unknown): body is ErrorEnvelopeBody {
  return typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string';
}

/**
 * Seconds from `Retry-After` (delta-seconds or an HTTP date), else from the envelope's
 * `errors.retry_after`; null when neither says.
 */
export function retryAfterSeconds(headers: Headers, body: unknown, now = Date.now()): number | null {
  const header = headers.get('retry-after');
  if (header !== null && header.trim() !== '') {
    const trimmed = header.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed);
    const at = Date.parse(trimmed);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  }
  if (isEnvelope(body)) {
    const value = (body.errors as { retry_after?: unknown } | undefined)?.retry_after;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return null;
}
