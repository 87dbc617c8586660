import type { FastifyReply, FastifyRequest } from 'fastify';
import { roleAllows, scopeAllows, type Principal } from '../domain/access.js';
import { findKeyBySecret, ipAllowed, touchKey } from '../domain/api-keys.js';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;
const KEY_SHAPE = /^sk_(live|test)_[0-9A-Za-z]{20,200}$/;

/**
 * The onRequest hook that turns `Authorization: Bearer sk_…` into a principal,
 * in the contract's order of checks: 401 → IP allowlist 403 → role/scope 403
 * → paused organization 403 → the key's rate limit 429. Public routes (no
 * `auth` in their definition) skip it.
 */
export function createAuthenticator(deps: AppDeps) {
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

  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const def = request.routeOptions.config.def;
    if (!def || !def.auth) return;
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      return fail(request, new ApiError('missing_authorization', 'No API key provided. Send it as Authorization: Bearer <API_KEY>.'));
    }
    const match = BEARER.exec(header);
    if (!match) {
      return fail(request, new ApiError('invalid_authorization', 'The Authorization header must be of the form: Bearer <API_KEY>.'));
    }
    const secret = match[1]!;
    const found = KEY_SHAPE.test(secret) ? await findKeyBySecret(deps.db, secret) : null;
    if (!found) return fail(request, new ApiError('invalid_api_key', 'The API key is unknown or has been revoked.'));

    const { principal } = found;
    if (!ipAllowed(request.ip, found.ipAllowlist)) {
      throw new ApiError('ip_not_allowed', `Requests from ${request.ip} are not allowed for this API key.`);
    }
    const { role, scope, consumesCredits } = def.auth;
    if (!roleAllows(principal.role, role)) {
      throw new ApiError('insufficient_role', `This operation needs the '${role}' role; this key has '${principal.role}'.`);
    }
    if (scope && !scopeAllows(principal.scopes, scope)) {
      throw new ApiError('insufficient_role', `This key lacks the '${scope}' scope.`);
    }
    if (consumesCredits && principal.paused) {
      throw new ApiError('organization_paused', 'The organization is paused by the spending anomaly detector. An owner can unpause it.');
    }
    request.principal = principal;
    if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > 60_000) {
      touchKey(deps.db, principal.keyId).catch((err: unknown) => request.log.warn({ err }, 'could not record key use'));
    }
    await limitRate(deps, reply, principal);
  };
}

/**
 * The key's per-minute budget (contract §8). The RateLimit-* headers go on the
 * raw response too, because streaming routes write their own head after
 * hijacking the reply and would otherwise drop them.
 */
async function limitRate(deps: AppDeps, reply: FastifyReply, principal: Principal): Promise<void> {
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
