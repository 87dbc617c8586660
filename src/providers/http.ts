import { Agent, FormData, request, type Dispatcher } from 'undici';
import { ProviderError, type ProviderErrorKind } from './types.js';

/**
 * The one HTTP client every upstream adapter uses: keep-alive connections to
 * the provider's base URL, a deadline per call, JSON and binary bodies,
 * server-sent events, and the shared mapping of HTTP failures to the
 * ProviderError taxonomy. A 429 whose Retry-After fits in the configured bound
 * is waited out and sent again to the same provider (contract §10); anything
 * else is handed to the caller typed.
 *
 * Adapters describe only what differs per provider: the auth headers, where
 * the error message sits in an error body, and provider-specific error codes
 * (e.g. a content-policy refusal inside a 400).
 */

export interface HttpPolicy {
  /** Deadline of a call that does the work (a synchronous generation, a submission, a stream's first byte). */
  timeoutMs: number;
  /** Deadline of a status read or a cancel. */
  readTimeoutMs: number;
  /** The longest Retry-After of a 429 that is waited out on the same provider. */
  maxRetryAfterMs: number;
  /** How many times one call waits out a 429 before giving up. */
  rateLimitRetries: number;
  /** Largest upstream body read into memory (JSON with base64 images, audio bytes). */
  maxBodyBytes: number;
  /** Adds the caller's trace context to a call's headers (W3C traceparent); absent when tracing is off. */
  propagate?: ((headers: Record<string, string>) => void) | undefined;
}

export const DEFAULT_HTTP_POLICY: HttpPolicy = {
  timeoutMs: 120_000,
  readTimeoutMs: 30_000,
  maxRetryAfterMs: 10_000,
  rateLimitRetries: 2,
  maxBodyBytes: 200 * 1024 * 1024,
};

/** What an adapter says about its provider's error bodies. */
export interface ErrorDialect {
  /** The human message inside an error body, if there is one. */
  message(body: unknown): string | undefined;
  /** A provider-specific kind for this status and body (e.g. content_policy), overriding the status mapping. */
  kind?(status: number, body: unknown): ProviderErrorKind | undefined;
}

export interface UpstreamCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Appended to the base URL's path. */
  path: string;
  query?: Record<string, string | undefined>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  /**
   * The call starts upstream work (a submission, a synchronous generation):
   * a failure after the request was sent may have started it anyway, so it
   * is `accepted` (no fallback, no blind resubmission).
   */
  creates?: boolean;
  /** Read-only calls use the shorter read deadline. */
  read?: boolean;
  signal?: AbortSignal | undefined;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

export function header(headers: UpstreamResponse['headers'], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After as seconds or an HTTP date, or OpenAI's retry-after-ms; undefined when absent or unreadable. */
export function retryAfterMs(headers: UpstreamResponse['headers'], now = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const raw = header(headers, 'retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const STATUS_KIND: Array<[(s: number) => boolean, ProviderErrorKind]> = [
  [(s) => s === 401 || s === 403, 'authentication'],
  [(s) => s === 404, 'not_found'],
  [(s) => s === 408, 'timeout'],
  [(s) => s === 429, 'rate_limited'],
  [(s) => s === 503 || s === 529, 'overloaded'],
  [(s) => s >= 500, 'server_error'],
  [(s) => s >= 400, 'bad_request'],
];

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limited', 'overloaded', 'server_error', 'timeout', 'network', 'malformed_response']);
const GATEWAY_FAULT: ReadonlySet<ProviderErrorKind> = new Set(['authentication', 'bad_request', 'not_found']);

/** Builds a typed error from its kind; `accepted` only where the work may have started. */
export function providerError(
  provider: string,
  kind: ProviderErrorKind,
  detail: string,
  extra: { accepted?: boolean; status?: number; retryAfterMs?: number } = {},
): ProviderError {
  return new ProviderError(`${provider}: ${detail}`, {
    kind,
    retryable: RETRYABLE.has(kind),
    accepted: extra.accepted ?? false,
    origin: GATEWAY_FAULT.has(kind) ? 'gateway' : 'provider',
    ...(extra.status !== undefined ? { status: extra.status } : {}),
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
  });
}

// The listener goes when the wait ends either way: a call's signal can outlive many waits.
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal?.removeEventListener('abort', onAbort), resolve()), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Network codes undici reports for a connection that never carried the request. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export class UpstreamHttp {
  private readonly agent: Agent;
  private readonly base: URL;

  constructor(
    readonly provider: string,
    baseUrl: string,
    private readonly authHeaders: Record<string, string>,
    private readonly dialect: ErrorDialect,
    readonly policy: HttpPolicy = DEFAULT_HTTP_POLICY,
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    // Generous keep-alive pool: a gateway sends many concurrent requests to few origins.
    this.agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
  }

  url(path: string, query?: Record<string, string | undefined>): URL {
    const u = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, v);
    return u;
  }

  /** A JSON answer (2xx), or a typed ProviderError. */
  async json(call: UpstreamCall): Promise<UpstreamResponse & { body: unknown }> {
    const res = await this.send(call);
    const text = res.body.toString('utf8');
    const body = parseJson(text);
    if (body === undefined) {
      throw providerError(this.provider, 'malformed_response', `answered ${res.status} with a body that is not JSON`, {
        accepted: call.creates === true,
        status: res.status,
      });
    }
    return { status: res.status, headers: res.headers, body };
  }

  /** A binary answer (2xx): the bytes and their declared type. */
  async binary(call: UpstreamCall): Promise<UpstreamResponse & { bytes: Buffer; mime: string }> {
    const res = await this.send(call);
    const mime = (header(res.headers, 'content-type') ?? 'application/octet-stream').split(';')[0]!.trim();
    if (mime.includes('json') || mime.startsWith('text/')) {
      throw providerError(this.provider, 'malformed_response', `answered ${res.status} with ${mime} where audio was expected`, { accepted: call.creates === true, status: res.status });
    }
    return { status: res.status, headers: res.headers, bytes: res.body, mime };
  }

  /**
   * Server-sent events of a 2xx answer. The first byte must come within the
   * work deadline, and every later chunk within it too (a stalled stream is a
   * timeout, not a hang).
   */
  async *events(call: UpstreamCall): AsyncGenerator<{ event: string | undefined; data: string }, void, undefined> {
    const opened = { ...call, headers: { accept: 'text/event-stream', ...call.headers } };
    const { res, done } = await this.withRateLimitRetries(call, () => this.open(opened, this.policy.timeoutMs, true));
    let received = false;
    try {
      let buffer = '';
      res.body.setEncoding('utf8');
      for await (const chunk of res.body as AsyncIterable<string>) {
        received = true;
        buffer += chunk;
        let sep: RegExpExecArray | null;
        while ((sep = /\r?\n\r?\n/.exec(buffer))) {
          const block = buffer.slice(0, sep.index);
          buffer = buffer.slice(sep.index + sep[0].length);
          const ev = parseSseBlock(block);
          if (ev) yield ev;
          // The consumer stopped listening: events already read are not handed over.
          if (call.signal?.aborted) return;
        }
        if (buffer.length > this.policy.maxBodyBytes) throw providerError(this.provider, 'malformed_response', 'sent an event larger than the body limit', { accepted: true });
      }
      const last = parseSseBlock(buffer);
      if (last) yield last;
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (call.signal?.aborted) return;
      throw this.networkError(err, { ...call, creates: call.creates || received }, done.timedOut);
    } finally {
      done.clear();
      if (!res.body.destroyed) res.body.destroy();
    }
  }

  /** Sends a call and reads its whole 2xx body; 429s within the bound are waited out. */
  private async send(call: UpstreamCall): Promise<UpstreamResponse & { body: Buffer }> {
    const deadline = call.read ? this.policy.readTimeoutMs : this.policy.timeoutMs;
    return this.withRateLimitRetries(call, async () => {
      const { res, done } = await this.open(call, deadline, false);
      try {
        const body = await this.readBody(res, call, done.timedOut);
        return { status: res.statusCode, headers: res.headers, body };
      } finally {
        done.clear();
      }
    });
  }

  /** Runs `fn` again after a 429 whose Retry-After is within the bound (contract §10), a bounded number of times. */
  private async withRateLimitRetries<T>(call: UpstreamCall, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!(err instanceof ProviderError) || err.kind !== 'rate_limited' || attempt >= this.policy.rateLimitRetries) throw err;
        const wait = err.opts.retryAfterMs;
        if (wait === undefined || wait > this.policy.maxRetryAfterMs) throw err;
        await sleep(wait, call.signal);
        if (call.signal?.aborted) throw err;
      }
    }
  }

  /** Opens a request; a non-2xx answer is read and thrown as a typed error. */
  private async open(
    call: UpstreamCall,
    deadlineMs: number,
    streaming: boolean,
  ): Promise<{ res: Dispatcher.ResponseData; done: { clear(): void; timedOut: () => boolean } }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, deadlineMs);
    const onAbort = () => controller.abort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    const done = {
      clear: () => {
        clearTimeout(timer);
        call.signal?.removeEventListener('abort', onAbort);
      },
      timedOut: () => timedOut,
    };
    const headers: Record<string, string> = { ...this.authHeaders, accept: 'application/json', ...call.headers };
    this.policy.propagate?.(headers);
    let body: string | FormData | undefined;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      headers['content-type'] = 'application/json';
    } else if (call.form) {
      body = call.form;
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url(call.path, call.query), {
        dispatcher: this.agent,
        method: call.method,
        headers,
        body,
        signal: controller.signal,
        headersTimeout: deadlineMs,
        // A stream may idle between events as long as a whole call may take.
        bodyTimeout: streaming ? this.policy.timeoutMs : deadlineMs,
      });
    } catch (err) {
      done.clear();
      throw this.networkError(err, call, () => timedOut);
    }
    if (streaming) {
      // The deadline covered the first byte; from here each chunk has bodyTimeout.
      clearTimeout(timer);
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return { res, done };
    try {
      const text = (await this.readBody(res, { ...call, creates: false }, () => timedOut, true)).toString('utf8');
      throw this.statusError(res.statusCode, res.headers, text);
    } finally {
      done.clear();
    }
  }

  private async readBody(res: Dispatcher.ResponseData, call: UpstreamCall, timedOut: () => boolean, errorBody = false): Promise<Buffer> {
    const limit = errorBody ? 64 * 1024 : this.policy.maxBodyBytes;
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        total += buf.length;
        if (total > limit) {
          res.body.destroy();
          if (errorBody) break;
          throw providerError(this.provider, 'malformed_response', `sent a body over the ${limit}-byte limit`, { accepted: call.creates === true, status: res.statusCode });
        }
        chunks.push(buf);
      }
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      // The status line came, the body did not: the provider answered, so a submission was received.
      throw this.networkError(err, { ...call, creates: call.creates === true }, timedOut);
    }
    return Buffer.concat(chunks);
  }

  /** Maps an HTTP error answer to the taxonomy (adapters may name a more specific kind). */
  statusError(status: number, headers: UpstreamResponse['headers'], text: string): ProviderError {
    const body = parseJson(text);
    const kind = this.dialect.kind?.(status, body) ?? STATUS_KIND.find(([test]) => test(status))?.[1] ?? 'server_error';
    const message = (body !== undefined ? this.dialect.message(body) : undefined) ?? (text.trim().slice(0, 300) || 'no error message');
    const wait = retryAfterMs(headers);
    return providerError(this.provider, kind, `HTTP ${status}: ${message}`, { status, ...(wait !== undefined ? { retryAfterMs: wait } : {}) });
  }

  private networkError(err: unknown, call: UpstreamCall, timedOut: () => boolean): ProviderError {
    if (err instanceof ProviderError) return err;
    const e = err as { code?: string; message?: string; cause?: { code?: string } };
    const code = e.code ?? e.cause?.code ?? '';
    const notSent = NOT_SENT.has(code);
    // A connection refused never carried the request; anything later may have started the work.
    const accepted = call.creates === true && !notSent;
    if (timedOut() || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      return providerError(this.provider, 'timeout', `did not answer in time${code ? ` (${code})` : ''}`, { accepted });
    }
    if (call.signal?.aborted) return providerError(this.provider, 'network', 'the call was aborted', { accepted });
    return providerError(this.provider, 'network', `could not be reached (${code || e.message || 'connection failed'})`, { accepted });
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }
}

/** One server-sent event from its lines; null for a comment-only or empty block. */
export function parseSseBlock(block: string): { event: string | undefined; data: string } | null {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0 && event === undefined) return null;
  return { event, data: data.join('\n') };
}

/** Reads a field of an upstream JSON body, or fails as a malformed response. */
export function field<T>(provider: string, body: unknown, path: string, check: (v: unknown) => v is T, accepted = false): T {
  let v: unknown = body;
  for (const key of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  if (!check(v)) throw providerError(provider, 'malformed_response', `answered without a valid \`${path}\``, { accepted });
  return v;
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export { FormData };
