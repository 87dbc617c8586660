import type { ErrorBody } from './types.js';

/** An error answered by the API (the contract's envelope), or a network failure (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** A random Idempotency-Key; crypto.randomUUID exists only in secure contexts, getRandomValues everywhere. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'dash-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface RequestOptions {
  signal?: AbortSignal;
  idempotencyKey?: string;
}

/**
 * How the dashboard proves who it is: an API key pasted at sign-in (a bearer token, never a cookie), or a signed-in
 * person's session (the server's HttpOnly cookie, sent by the browser, and its CSRF token in X-CSRF-Token).
 */
export type Credential = { kind: 'key'; key: string } | { kind: 'session'; csrfToken: string; mode: 'live' | 'test' };

/** The header a signed-in request that changes something must carry (docs/contract-addenda.md, "People"). */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * A tab's own session against the browser's: the session cookie is the browser's, so a sign-in or sign-out in another
 * tab changes what this tab's requests would act as. `current` says whether the browser still holds this tab's session
 * in the organization and mode the tab knows (a switch issues a new CSRF token, as a sign-in does); when it does not,
 * nothing is sent and `replaced` is called (the tab then catches up).
 */
export interface SessionGuard {
  current: () => boolean;
  replaced: () => void;
}

/**
 * The dashboard's only way to talk to mmgen: the public /v1 API of the origin it is served from, as an API key or
 * a signed-in person's session, so that everything it does a user could do with curl.
 */
export class Api {
  readonly credential: Credential;

  constructor(
    credential: Credential | string,
    /** Called when the credential stops working mid-session (revoked key, ended session): the session ends. */
    private readonly onKeyRejected: (err: ApiError) => void = () => {},
    private readonly guard?: SessionGuard,
  ) {
    this.credential = typeof credential === 'string' ? { kind: 'key', key: credential } : credential;
  }

  get mode(): 'live' | 'test' {
    const c = this.credential;
    return c.kind === 'session' ? c.mode : c.key.startsWith('sk_live_') ? 'live' : 'test';
  }

  /** The browser sends the session cookie only for a session; a key's requests carry no cookie at all. */
  get credentials(): 'same-origin' | 'omit' {
    return this.credential.kind === 'session' ? 'same-origin' : 'omit';
  }

  /**
   * The headers of a request to send now. Every request is built here (the SSE stream and the audit export too), so
   * here is where a tab whose session the browser no longer holds stops: nothing is sent, `session_replaced`.
   */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    // A read would be answered for whichever session the cookie now names, under this tab's organization's name.
    if (this.guard && !this.guard.current()) {
      this.guard.replaced();
      throw new ApiError(0, 'session_replaced', 'This browser signed in or out in another tab; this tab is switching to that session.');
    }
    const c = this.credential;
    // The CSRF token is sent on reads too: harmless there, and one code path for every request.
    return c.kind === 'session' ? { [CSRF_HEADER]: c.csrfToken, ...extra } : { Authorization: `Bearer ${c.key}`, ...extra };
  }

  async request<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
    const headers = this.headers();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: opts.signal ?? null,
        credentials: this.credentials,
      });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'network_error', 'mmgen could not be reached. Check that the server is running.');
    }
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: reported below
    }
    if (!res.ok) {
      const e = (parsed as ErrorBody | undefined)?.error;
      const err = e
        ? new ApiError(res.status, e.code, e.message, e.param, e.request_id ?? res.headers.get('x-request-id') ?? undefined)
        : new ApiError(res.status, 'http_error', `HTTP ${res.status} ${res.statusText}`);
      // A 401 for a session the browser has since replaced says nothing of the one it holds now: catch up, sign nothing out.
      // A 403 csrf_token_invalid is the same news when it crossed a switch in another tab (a switch issues a new token).
      const guard = this.guard;
      if (guard && !guard.current() && (res.status === 401 || err.code === 'csrf_token_invalid')) guard.replaced();
      else if (res.status === 401) this.onKeyRejected(err);
      throw err;
    }
    return parsed as T;
  }

  get<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('GET', path, undefined, opts);
  }
  post<T>(path: string, body?: unknown, opts?: RequestOptions): Promise<T> {
    return this.request<T>('POST', path, body, opts);
  }
  patch<T>(path: string, body: unknown, opts?: RequestOptions): Promise<T> {
    return this.request<T>('PATCH', path, body, opts);
  }
  put<T>(path: string, body: unknown, opts?: RequestOptions): Promise<T> {
    return this.request<T>('PUT', path, body, opts);
  }
  del<T>(path: string, opts?: RequestOptions): Promise<T> {
    return this.request<T>('DELETE', path, undefined, opts);
  }
}

/** `?a=1&b=x` from the defined entries of an object. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
