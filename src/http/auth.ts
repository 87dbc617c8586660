import type { FastifyReply, FastifyRequest } from 'fastify';
import { roleAllows, scopeAllows, type Principal } from '../domain/access.js';
import { confirmPrincipal, findKeyBySecret, hashSecret, ipAllowed, recordKeyUsed, type AuthenticatedKey } from '../domain/api-keys.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { authenticateSession } from '../domain/people/sessions.js';
import type { AuthSpec } from './route.js';
import { noteCaller } from './request-log-hook.js';
import { assertCsrf, readSessionToken, sessionCookieNames } from './session-cookie.js';


/**
 * One message for every kind of pause (the principal knows that it is paused, not why): the organization's own
 * answer names the reason.
 */
const pausedError = () =>
  new ApiError(
    'organization_paused',
    "The organization is paused: by an owner, by the spending anomaly detector, or by a balance below zero after a refund or dispute (GET /v1/organization gives the reason). An owner can unpause it; a payment that brings the balance back to zero or more lifts a billing pause.",
  );

/**
 * A write only a live-mode credential may make (AuthSpec.mode), asked of a test-mode one. Checked with role and scope,
 * for every credential alike, so that no route and no use case has to remember it: a test key never reaches what
 * live mode runs on (a live owner, an invitation, the organization's settings), not even through a session.
 */
function assertMode(auth: AuthSpec, principal: Principal): void {
  if (auth.mode === undefined || principal.mode === auth.mode) return;
  const how = principal.sessionId
    ? 'switch the session to live mode (PATCH /v1/session {"mode": "live"})'
    : 'use a live key (sk_live_…)';
  throw new ApiError(
    'live_mode_required',
    `This changes the organization for live mode too (people, its settings, single sign-on, the data policy or billing), which test mode never does: ${how}.`,
  );
}

export type AuthPorts = Pick<AppDeps, 'db' | 'rateLimiter' | 'config'>;

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;
const KEY_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{20,200}$/;

/** How long a process trusts its cached copy of a key before looking it up again (which also refreshes last_used_at). */
const KEY_CACHE_TTL_MS = 60_000;
const KEY_CACHE_MAX = 10_000;

/**
 * Keys recently seen by this process, by secret hash. Used only by routes
 * whose accepting statement confirms the key's fingerprint (`cacheable` in
 * their auth spec), so a stale entry can never let a request through: it
 * costs one fresh authentication instead.
 */
class KeyCache {
  private readonly entries = new Map<string, { found: AuthenticatedKey; expiresAt: number }>();

  get(hash: string): AuthenticatedKey | null {
    const e = this.entries.get(hash);
    if (!e) return null;
    if (e.expiresAt <= Date.now()) {
      this.entries.delete(hash);
      return null;
    }
    return e.found;
  }

  set(hash: string, found: AuthenticatedKey): void {
    this.entries.delete(hash);
    if (this.entries.size >= KEY_CACHE_MAX) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { found, expiresAt: Date.now() + KEY_CACHE_TTL_MS });
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }
}

export interface Authenticator {
  /** The onRequest hook. */
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Authenticates a request again from the database (after StaleAuthentication), without counting it against the rate limit twice. */
  afresh(request: FastifyRequest): Promise<void>;
  /**
   * Makes a principal taken from the key cache a confirmed one before a
   * request is answered from anything but the accepting statement (an error,
   * an idempotent replay): if its key changed, the request is authenticated
   * afresh, which throws the contract's error for a key that no longer passes,
   * and true is returned (what was decided on the cached copy must be decided again).
   */
  confirm(request: FastifyRequest): Promise<boolean>;
}

/**
 * The key a request presents: `Authorization: Bearer sk_…`, or `x-api-key: sk_…` as Anthropic's API takes it (its
 * SDKs and the clients built on them send that). Both may be sent, naming the same key; two different keys are
 * refused rather than one of them chosen. Throws the contract's 401 for a missing or malformed header.
 */
function presentedKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const xApiKey = request.headers['x-api-key'];
  if (Array.isArray(xApiKey)) throw new ApiError('invalid_authorization', 'Send one x-api-key header.');
  const apiKey = xApiKey?.trim() || undefined;
  if ((header === undefined || header === '') && apiKey === undefined) {
    throw new ApiError('missing_authorization', 'No API key provided. Send it as Authorization: Bearer <API_KEY> (or x-api-key: <API_KEY>).');
  }
  let bearer: string | undefined;
  if (header !== undefined && header !== '') {
    const match = BEARER.exec(header);
    if (!match) throw new ApiError('invalid_authorization', 'The Authorization header must be of the form: Bearer <API_KEY>.');
    bearer = match[1]!;
  }
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) {
    throw new ApiError('invalid_authorization', 'Authorization and x-api-key name different keys; send one key (or the same key in both).');
  }
  return (bearer ?? apiKey)!;
}

/**
 * The onRequest hook that turns `Authorization: Bearer sk_…` (or `x-api-key: sk_…`) into a principal,
 * in the contract's order of checks: 401 → IP allowlist 403 → role/scope 403 → live mode 403
 * → paused organization 403 → the key's rate limit 429. Public routes (no
 * `auth` in their definition) skip it.
 */
export function createAuthenticator(deps: AuthPorts): Authenticator {
  const cache = new KeyCache();
  const cookieNames = sessionCookieNames(deps.config.publicUrl);
  const timeouts = { idleS: deps.config.accounts.sessionIdleS, maxS: deps.config.accounts.sessionMaxS };

  // Failed authentications per client address: a brute-force brake that never
  // touches requests with valid keys (contract §9), shared by every node through Redis.
  async function fail(request: FastifyRequest, err: ApiError): Promise<never> {
    const retry = await deps.rateLimiter.failedAuth(request.ip);
    if (retry !== null) {
      throw new ApiError('rate_limit_exceeded', 'Too many failed authentication attempts from this address. Try again later.')
        .withHeader('Retry-After', String(retry));
    }
    throw err;
  }

  /** A key's last use, written at most once a minute (a write per request would cost every request a statement). */
  function noteKeyUsed(request: FastifyRequest, found: AuthenticatedKey): void {
    if (found.lastUsedAt && Date.now() - found.lastUsedAt.getTime() <= 60_000) return;
    recordKeyUsed(deps.db, found.principal.keyId).catch((err: unknown) => request.log.warn({ err }, 'could not record key use'));
  }

  /** The key's checks for this route; throws the contract's error for the first that fails. */
  function admit(request: FastifyRequest, auth: AuthSpec, found: AuthenticatedKey): void {
    const { principal } = found;
    if (!ipAllowed(request.ip, found.ipAllowlist)) {
      throw new ApiError('ip_not_allowed', `Requests from ${request.ip} are not allowed for this API key.`);
    }
    if (!roleAllows(principal.role, auth.role)) {
      throw new ApiError('insufficient_role', `This operation needs the '${auth.role}' role; this key has '${principal.role}'.`);
    }
    if (auth.scope && !scopeAllows(principal.scopes, auth.scope)) {
      throw new ApiError('insufficient_role', `This key lacks the '${auth.scope}' scope.`);
    }
    assertMode(auth, principal);
    if (auth.consumesCredits && principal.paused) {
      throw pausedError();
    }
  }

  /**
   * The session credential (docs/contract-addenda.md, "People"): the dashboard's cookie, taken only when the request
   * presents no API key. Its checks are a key's (role, paused), after the CSRF token of a state-changing request.
   */
  async function authenticateBySession(request: FastifyRequest, auth: AuthSpec, token: string): Promise<void> {
    let found;
    try {
      found = await authenticateSession(deps.db, timeouts, token);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return fail(request, err);
      throw err;
    }
    const { principal } = found;
    // The request log names the member's hidden session key (docs/contract-addenda.md, "People"), refusals included;
    // a session opened with an API key names that key.
    noteCaller(request, principal);
    assertCsrf(request, found.csrfToken);
    if (found.key) {
      // Opened with an API key: the key's checks, in the key's order (role and scopes as a key's, never sessionRole).
      admit(request, auth, found.key);
      if (auth.sessionOnly && !auth.keySession) {
        throw new ApiError('session_required', 'This operation is for a person signed in with an account; this dashboard session was opened with an API key.');
      }
      noteKeyUsed(request, found.key);
      request.principal = principal;
      return;
    }
    const need = auth.sessionRole ?? auth.role;
    if (!roleAllows(principal.role, need)) {
      throw new ApiError('insufficient_role', `This operation needs the '${need}' role; you are '${principal.role}' in this organization.`);
    }
    assertMode(auth, principal);
    if (auth.consumesCredits && principal.paused) {
      throw pausedError();
    }
    request.principal = principal;
  }

  async function lookUp(request: FastifyRequest, secret: string, hash: string): Promise<AuthenticatedKey> {
    const found = await findKeyBySecret(deps.db, secret);
    if (!found) {
      cache.delete(hash);
      return fail(request, new ApiError('invalid_api_key', 'The API key is unknown or has been revoked.'));
    }
    cache.set(hash, found);
    noteKeyUsed(request, found);
    return found;
  }

  /** Sets request.principal, or throws; returns false for public routes. */
  async function authenticate(request: FastifyRequest, useCache: boolean): Promise<boolean> {
    const def = request.routeOptions.config.def;
    if (!def || !def.auth) return false;
    const presentsKey = (request.headers.authorization ?? '') !== '' || request.headers['x-api-key'] !== undefined;
    const sessionToken = presentsKey ? undefined : readSessionToken(request, cookieNames);
    if (sessionToken !== undefined) {
      await authenticateBySession(request, def.auth, sessionToken);
      return true;
    }
    let secret: string;
    try {
      secret = presentedKey(request);
    } catch (err) {
      return fail(request, err as ApiError);
    }
    if (!KEY_SHAPE.test(secret)) return fail(request, new ApiError('invalid_api_key', 'The API key is unknown or has been revoked.'));
    const hash = hashSecret(secret);
    const cached = useCache && def.auth.cacheable ? cache.get(hash) : null;
    if (cached && !def.auth.sessionOnly) {
      noteCaller(request, cached.principal);
      try {
        admit(request, def.auth, cached);
        request.principal = { ...cached.principal, unconfirmedFingerprint: cached.fingerprint };
        return true;
      } catch {
        // A refusal is never based on a cached copy: look the key up and decide on what is current.
      }
    }
    const found = await lookUp(request, secret, hash);
    noteCaller(request, found.principal);
    admit(request, def.auth, found);
    if (def.auth.sessionOnly) throw new ApiError('session_required', 'This operation is for a signed-in person (the dashboard session), not an API key.');
    // A copy: the cache keeps the original, and a request's principal may be changed (its fingerprint confirmed).
    request.principal = { ...found.principal };
    return true;
  }

  return {
    async onRequest(request, reply) {
      if (await authenticate(request, true)) await limitRate(deps, reply, request.principal!);
    },
    async afresh(request) {
      await authenticate(request, false);
    },
    async confirm(request) {
      if (!request.principal || (await confirmPrincipal(deps.db, request.principal))) return false;
      await authenticate(request, false);
      return true;
    },
  };
}

/**
 * The key's per-minute budget (contract §8). The RateLimit-* headers go on the
 * raw response too, because streaming routes write their own head after
 * hijacking the reply and would otherwise drop them.
 */
async function limitRate(deps: AuthPorts, reply: FastifyReply, principal: Principal): Promise<void> {
  const d = await deps.rateLimiter.consume(principal.keyId, principal.plan);
  if (!d) return;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(d.remaining),
    'RateLimit-Reset': String(d.resetS),
  };
  for (const [name, value] of Object.entries(headers)) {
    void reply.header(name, value);
    reply.raw.setHeader(name, value);
  }
  if (!d.allowed) {
    throw new ApiError('rate_limit_exceeded', `This API key is over its plan's limit of ${d.limit} requests per minute. Retry after ${d.resetS} seconds.`)
      .withHeader('Retry-After', String(d.resetS));
  }
}
