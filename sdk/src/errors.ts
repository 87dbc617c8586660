/**
 * Errors the client throws. Every answer of mmgen that is not a 2xx becomes an
 * APIError subclass chosen by its HTTP status, carrying the envelope's `code`,
 * `type`, `param` and `request_id` (quote it when you report a problem).
 * Failures to reach mmgen at all are APIConnectionError.
 */

/** The error codes mmgen answers with (contract §2 and its addenda). */
export const ERROR_CODES = [
  'invalid_json',
  'parameter_missing',
  'parameter_invalid',
  'parameter_unknown',
  'model_modality_mismatch',
  'content_policy_violation',
  'missing_authorization',
  'invalid_authorization',
  'invalid_api_key',
  'invalid_credentials',
  'session_expired',
  'second_factor_required',
  'insufficient_credits',
  'budget_exceeded',
  'ip_not_allowed',
  'insufficient_role',
  'organization_paused',
  'plan_limit_exceeded',
  'feature_not_available',
  'signature_invalid',
  'model_not_allowed',
  'csrf_token_invalid',
  'session_required',
  'live_mode_required',
  'sso_required',
  'sign_up_closed',
  'resource_not_found',
  'route_not_found',
  'model_not_found',
  'generation_not_cancelable',
  'generation_not_retryable',
  'generation_canceled',
  'idempotency_key_in_use',
  'upload_already_completed',
  'moderation_pending',
  'last_owner',
  'passkey_required',
  'email_taken',
  'model_unavailable',
  'invitation_invalid',
  'sign_up_invalid',
  'file_expired',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limit_exceeded',
  'content_blocked',
  'internal_error',
  'upstream_error',
  'provider_unavailable',
  'service_unavailable',
] as const;

/** A known error code, or another string from a newer mmgen than this SDK knows. */
export type ErrorCode = (typeof ERROR_CODES)[number] | (string & {});

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'api_error'
  | (string & {});

/** The `error` object of mmgen's error envelope. */
export interface ErrorBody {
  type: ErrorType;
  code: ErrorCode;
  message: string;
  param?: string;
  request_id?: string;
}

/** The base of every error this SDK throws. */
export class MmgenError extends Error {
  override name = 'MmgenError';
}

export class APIError extends MmgenError {
  override name = 'APIError';
  /** The HTTP status; undefined for an error sent inside a stream. */
  readonly status: number | undefined;
  readonly code: ErrorCode | undefined;
  readonly type: ErrorType | undefined;
  /** The request field the error is about, e.g. `prompt`, `messages[0].role`, `Idempotency-Key`. */
  readonly param: string | undefined;
  /** mmgen's `req_…` id of the request (from the body, else the X-Request-Id header). */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;
  /** The parsed error object, when mmgen sent one. */
  readonly error: ErrorBody | undefined;

  constructor(status: number | undefined, error: ErrorBody | undefined, message: string | undefined, headers: Headers | undefined) {
    super(APIError.describe(status, error, message, headers));
    this.status = status;
    this.error = error;
    this.code = error?.code;
    this.type = error?.type;
    this.param = error?.param;
    this.headers = headers;
    this.requestId = error?.request_id ?? headers?.get('x-request-id') ?? undefined;
  }

  private static describe(status: number | undefined, error: ErrorBody | undefined, message: string | undefined, headers: Headers | undefined): string {
    const text = error?.message ?? message ?? 'mmgen answered with an error';
    const parts = [status !== undefined ? String(status) : undefined, error?.code].filter(Boolean).join(' ');
    const requestId = error?.request_id ?? headers?.get('x-request-id');
    return `${parts ? `${parts}: ` : ''}${text}${requestId ? ` (request ${requestId})` : ''}`;
  }

  /** The subclass for a status. */
  static fromResponse(status: number, error: ErrorBody | undefined, message: string | undefined, headers: Headers): APIError {
    const Class = (error?.code === 'budget_exceeded' ? BudgetExceededError : STATUS_CLASSES[status]) ?? (status >= 500 ? InternalServerError : APIError);
    return new Class(status, error, message, headers);
  }
}

export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
/** 402: the wallet's available credits cannot cover the reservation; nothing was charged. */
export class InsufficientCreditsError extends APIError {
  override name = 'InsufficientCreditsError';
}
/**
 * 402 `budget_exceeded`: the reservation would take the key's or the organization's spend this month past a
 * blocking budget; nothing was reserved. A 402 like running out of credits, so code catching that catches this too.
 */
export class BudgetExceededError extends InsufficientCreditsError {
  override name = 'BudgetExceededError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
/** 410: the model was delisted (`model_unavailable`), or the file was deleted under the organization's retention (`file_expired`). */
export class GoneError extends APIError {
  override name = 'GoneError';
}
export class PayloadTooLargeError extends APIError {
  override name = 'PayloadTooLargeError';
}
export class UnsupportedMediaTypeError extends APIError {
  override name = 'UnsupportedMediaTypeError';
}
/** 422: the Idempotency-Key was used before with another endpoint or body. */
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
  /** Seconds mmgen asked to wait (Retry-After), when it said. */
  get retryAfter(): number | undefined {
    const raw = this.headers?.get('retry-after');
    const n = raw === null || raw === undefined ? NaN : Number(raw);
    return Number.isFinite(n) ? n : undefined;
  }
}
/** 451: moderation blocked it (a file, or every output of a synchronous generation, which was refunded). */
export class ContentBlockedError extends APIError {
  override name = 'ContentBlockedError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}
/** 502: a synchronous generation failed at the provider (it was refunded). */
export class UpstreamError extends InternalServerError {
  override name = 'UpstreamError';
}
/** 503: `provider_unavailable` (no credentials for the model's provider) or `service_unavailable` (mmgen cannot reach its database; retried). */
export class ServiceUnavailableError extends InternalServerError {
  override name = 'ServiceUnavailableError';
}

const STATUS_CLASSES: Record<number, new (...args: ConstructorParameters<typeof APIError>) => APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: InsufficientCreditsError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  451: ContentBlockedError,
  500: InternalServerError,
  502: UpstreamError,
  503: ServiceUnavailableError,
};

/** mmgen could not be reached, or the connection broke before an answer arrived. */
export class APIConnectionError extends MmgenError {
  override name = 'APIConnectionError';
  constructor(message = 'Could not reach mmgen.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(message = 'The request to mmgen timed out.') {
    super(message);
  }
}

/** The caller's AbortSignal fired. */
export class APIUserAbortError extends MmgenError {
  override name = 'APIUserAbortError';
  constructor(message = 'The request was aborted.') {
    super(message);
  }
}

/** `wait()` ran out of time; `last` is the most recent state it saw. */
export class WaitTimeoutError<T = unknown> extends MmgenError {
  override name = 'WaitTimeoutError';
  constructor(
    message: string,
    readonly last: T | undefined,
  ) {
    super(message);
  }
}

export type WebhookVerificationFailure =
  | 'missing_header'
  | 'malformed_header'
  | 'no_signatures'
  | 'signature_mismatch'
  | 'timestamp_out_of_tolerance'
  | 'invalid_payload';

/** verifyWebhook refused a delivery; `reason` says why. Answer such a request with 400 and do not act on it. */
export class WebhookVerificationError extends MmgenError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Reads an error envelope from a parsed body, if it is one. */
export function errorBodyOf(body: unknown): ErrorBody | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const e = (body as { error?: unknown }).error;
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, message, type } = e as Partial<ErrorBody>;
  if (typeof code !== 'string' || typeof message !== 'string' || typeof type !== 'string') return undefined;
  return e as ErrorBody;
}
