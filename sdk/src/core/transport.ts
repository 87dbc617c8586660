import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, MmgenError, errorBodyOf } from '../errors.js';
import { VERSION } from '../version.js';
import { APIPromise, type WithResponse } from './api-promise.js';
import { anySignal, isBrowser, queryString, sleep, uuid } from './util.js';

/**
 * How a request may be repeated after a failure:
 * - `idempotent`: repeating it changes nothing (GET, PATCH, DELETE, cancel,
 *   an upload PUT of the same bytes): retried on 408, 429, 5xx and network errors.
 * - `idempotency-key`: a credit-consuming POST. It carries an Idempotency-Key
 *   that stays the same across its attempts, so mmgen executes it once and
 *   replays the first answer; retried like `idempotent`, and on 409
 *   `idempotency_key_in_use` (the first attempt is still running).
 * - `throttled-only`: any other POST (creating a webhook, a key, an upload):
 *   mmgen does not deduplicate these, so only answers that prove nothing was
 *   done (429, 503) are retried, never a network error that may have hidden a success.
 */
export type RetryPolicy = 'idempotent' | 'idempotency-key' | 'throttled-only';

/** Per-call options, the last argument of every method. */
export interface RequestOptions {
  /** For credit-consuming POSTs: your own key (1–255 printable ASCII). By default the SDK makes one per call. */
  idempotencyKey?: string;
  /** Milliseconds for one attempt (until the whole answer has arrived). */
  timeout?: number;
  /** Retries after the first attempt. */
  maxRetries?: number;
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  /** A path under the base URL (`/v1/…`), or an absolute URL (presigned upload URLs). */
  path: string;
  query?: Record<string, unknown> | undefined;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (file uploads). */
  raw?: { body: Blob | ArrayBuffer | ArrayBufferView; contentType: string };
  retry: RetryPolicy;
  /** false: no Authorization header (presigned URLs carry their own credential). */
  auth?: boolean;
  accept?: string;
}

export interface TransportConfig {
  apiKey: string;
  baseURL: string;
  timeout: number;
  maxRetries: number;
  maxRetryDelay: number;
  fetch: typeof fetch;
  defaultHeaders: Record<string, string>;
}

type FetchBody = NonNullable<Parameters<typeof fetch>[1]>['body'];

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Delay before retry number `attempt + 1`: Retry-After when mmgen sent one, else exponential backoff with jitter. */
export function retryDelayMs(headers: Headers | undefined, attempt: number): { ms: number; fromServer: boolean } {
  const retryAfterMs = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(retryAfterMs) && retryAfterMs >= 0) return { ms: retryAfterMs, fromServer: true };
  const retryAfter = headers?.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return { ms: seconds * 1000, fromServer: true };
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return { ms: Math.max(0, date - Date.now()), fromServer: true };
  }
  const base = Math.min(500 * 2 ** attempt, 8000);
  return { ms: base * (1 - Math.random() * 0.25), fromServer: false };
}

function shouldRetryStatus(policy: RetryPolicy, status: number, error: APIError): boolean {
  if (status === 429) return true;
  // Configuration, not a passing state: the same answer would come back.
  if (error.code === 'provider_unavailable') return false;
  if (policy === 'throttled-only') return status === 503;
  if (status === 409) return policy === 'idempotency-key' && error.code === 'idempotency_key_in_use';
  return RETRYABLE_STATUS.has(status);
}

function jsonOrText(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

export class Transport {
  constructor(readonly config: TransportConfig) {}

  url(path: string, query?: Record<string, unknown>): string {
    const base = /^https?:\/\//i.test(path) ? path : `${this.config.baseURL}${path}`;
    return `${base}${queryString(query)}`;
  }

  /** A request whose JSON answer is parsed; errors and retries handled. */
  request<T>(spec: RequestSpec, opts: RequestOptions = {}): APIPromise<T> {
    return new APIPromise<T>(
      this.send(spec, opts, async (response) => {
        const text = await response.text();
        const data = jsonOrText(text);
        if (typeof data === 'string' && text !== '') throw new MmgenError(`mmgen answered ${response.status} with a body that is not JSON.`);
        return data as T;
      }),
    );
  }

  /**
   * Sends with retries. `read` consumes a 2xx response inside the attempt (so
   * a connection that breaks mid-body is retried too); for a stream it may
   * return the response itself, and the attempt timeout then stops at the headers.
   */
  async send<T>(spec: RequestSpec, opts: RequestOptions, read: (response: Response) => Promise<T>, streaming = false): Promise<WithResponse<T>> {
    const maxRetries = opts.maxRetries ?? this.config.maxRetries;
    const timeout = opts.timeout ?? this.config.timeout;
    const headers = this.headers(spec, opts);
    const url = this.url(spec.path, spec.query);
    const body = spec.raw ? spec.raw.body : spec.body === undefined ? undefined : JSON.stringify(spec.body);

    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw new APIUserAbortError();
      const timer = new AbortController();
      const { signal, dispose } = anySignal([opts.signal, timer.signal]);
      const timeoutId = setTimeout(() => timer.abort(), timeout);
      let failure: MmgenError;
      let retryHeaders: Headers | undefined;
      try {
        const response = await this.config.fetch(url, { method: spec.method, headers, body: body as FetchBody, signal });
        if (response.ok) {
          const data = await read(response);
          return { data, response, requestId: response.headers.get('x-request-id') };
        }
        const text = await response.text();
        const parsed = jsonOrText(text);
        const envelope = errorBodyOf(parsed);
        const apiError = APIError.fromResponse(response.status, envelope, typeof parsed === 'string' && parsed ? parsed.slice(0, 300) : undefined, response.headers);
        if (!shouldRetryStatus(spec.retry, response.status, apiError)) throw apiError;
        failure = apiError;
        retryHeaders = response.headers;
      } catch (err) {
        if (err instanceof APIError) throw err;
        if (opts.signal?.aborted) throw new APIUserAbortError();
        if (err instanceof MmgenError) throw err;
        failure = timer.signal.aborted ? new APIConnectionTimeoutError(`No answer from mmgen within ${timeout} ms (${spec.method} ${spec.path}).`) : new APIConnectionError(`Could not reach mmgen at ${this.config.baseURL}: ${(err as Error)?.message ?? err}`, { cause: err });
        if (spec.retry === 'throttled-only') throw failure;
      } finally {
        clearTimeout(timeoutId);
        // A stream keeps its caller's signal attached; everything else is done with it.
        if (!streaming) dispose();
      }
      if (attempt >= maxRetries) throw failure;
      const delay = retryDelayMs(retryHeaders, attempt);
      // A server that asks for a longer wait than we are willing to sleep gets its error surfaced instead.
      if (delay.fromServer && delay.ms > this.config.maxRetryDelay) throw failure;
      await sleep(delay.ms, opts.signal);
    }
  }

  private headers(spec: RequestSpec, opts: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json' };
    if (spec.auth !== false) headers.authorization = `Bearer ${this.config.apiKey}`;
    if (spec.raw) headers['content-type'] = spec.raw.contentType;
    else if (spec.body !== undefined) headers['content-type'] = 'application/json';
    // Browsers own User-Agent; elsewhere it tells mmgen's operators which client called.
    if (!isBrowser()) headers['user-agent'] = `mmgen-sdk-js/${VERSION}`;
    if (spec.retry === 'idempotency-key') headers['idempotency-key'] = opts.idempotencyKey ?? `mmgen-sdk-${uuid()}`;
    if (spec.auth !== false) Object.assign(headers, this.config.defaultHeaders);
    return Object.assign(headers, opts.headers);
  }
}
