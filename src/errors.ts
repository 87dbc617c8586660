/**
 * The closed set of error codes (contract §2): one code → status and type
 * table. Use cases throw ApiError with a code; the HTTP layer renders the
 * envelope. Anything that is not an ApiError becomes a logged 500
 * `internal_error` whose message says nothing about internals.
 */
export const ERROR_TABLE = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  parameter_missing: { status: 400, type: 'invalid_request_error' },
  parameter_invalid: { status: 400, type: 'invalid_request_error' },
  parameter_unknown: { status: 400, type: 'invalid_request_error' },
  model_modality_mismatch: { status: 400, type: 'invalid_request_error' },
  content_policy_violation: { status: 400, type: 'invalid_request_error' },
  missing_authorization: { status: 401, type: 'authentication_error' },
  invalid_authorization: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_credentials: { status: 401, type: 'authentication_error' },
  session_expired: { status: 401, type: 'authentication_error' },
  second_factor_required: { status: 401, type: 'authentication_error' },
  insufficient_credits: { status: 402, type: 'billing_error' },
  budget_exceeded: { status: 402, type: 'billing_error' },
  ip_not_allowed: { status: 403, type: 'permission_error' },
  insufficient_role: { status: 403, type: 'permission_error' },
  organization_paused: { status: 403, type: 'permission_error' },
  plan_limit_exceeded: { status: 403, type: 'permission_error' },
  feature_not_available: { status: 403, type: 'permission_error' },
  signature_invalid: { status: 403, type: 'permission_error' },
  model_not_allowed: { status: 403, type: 'permission_error' },
  csrf_token_invalid: { status: 403, type: 'permission_error' },
  session_required: { status: 403, type: 'permission_error' },
  live_mode_required: { status: 403, type: 'permission_error' },
  sso_required: { status: 403, type: 'permission_error' },
  sign_up_closed: { status: 403, type: 'permission_error' },
  resource_not_found: { status: 404, type: 'invalid_request_error' },
  route_not_found: { status: 404, type: 'invalid_request_error' },
  model_not_found: { status: 404, type: 'invalid_request_error' },
  generation_not_cancelable: { status: 409, type: 'invalid_request_error' },
  generation_not_retryable: { status: 409, type: 'invalid_request_error' },
  generation_canceled: { status: 409, type: 'invalid_request_error' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error' },
  upload_already_completed: { status: 409, type: 'invalid_request_error' },
  moderation_pending: { status: 409, type: 'invalid_request_error' },
  last_owner: { status: 409, type: 'invalid_request_error' },
  email_taken: { status: 409, type: 'invalid_request_error' },
  passkey_required: { status: 409, type: 'invalid_request_error' },
  model_unavailable: { status: 410, type: 'invalid_request_error' },
  invitation_invalid: { status: 410, type: 'invalid_request_error' },
  sign_up_invalid: { status: 410, type: 'invalid_request_error' },
  file_expired: { status: 410, type: 'invalid_request_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  idempotency_key_reused: { status: 422, type: 'idempotency_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  content_blocked: { status: 451, type: 'invalid_request_error' },
  internal_error: { status: 500, type: 'api_error' },
  upstream_error: { status: 502, type: 'upstream_error' },
  provider_unavailable: { status: 503, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;
export type ErrorType = (typeof ERROR_TABLE)[ErrorCode]['type'];

export interface ErrorBody {
  type: ErrorType;
  code: ErrorCode;
  message: string;
  param?: string;
  request_id?: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  /** Extra response headers, e.g. Retry-After on 429. */
  headers: Record<string, string> = {};

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.status = ERROR_TABLE[code].status;
    this.type = ERROR_TABLE[code].type;
  }

  withHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }

  body(requestId: string): { error: ErrorBody } {
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        ...(this.param !== undefined ? { param: this.param } : {}),
        request_id: requestId,
      },
    };
  }
}

export const notFound = (what: string, id: string): ApiError =>
  new ApiError('resource_not_found', `No such ${what}: '${id}'`, 'id');
