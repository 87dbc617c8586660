import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';

/**
 * The instance operator's credential (MMGEN_ADMIN_TOKEN), which opens the admin API and nothing else; an
 * organization's API key, of whatever role, never opens it. Off (no token configured): the admin API is not
 * there (404). A wrong token counts against the address's failed-authentication brake, as a wrong key does.
 */
export async function requireOperator(request: FastifyRequest, deps: Pick<AppDeps, 'config' | 'rateLimiter'>): Promise<void> {
  const expected = deps.config.adminToken;
  if (!expected) {
    throw new ApiError('route_not_found', 'The admin API is off on this installation: its operator turns it on by setting MMGEN_ADMIN_TOKEN.');
  }
  const header = request.headers.authorization;
  if (!header) throw new ApiError('missing_authorization', "The admin API needs the operator's credential: Authorization: Bearer <MMGEN_ADMIN_TOKEN>.");
  const match = /^Bearer (\S+)$/.exec(header);
  if (!match) throw new ApiError('invalid_authorization', 'The Authorization header must be of the form: Bearer <MMGEN_ADMIN_TOKEN>.');
  const presented = match[1]!;
  // Digests of equal length, compared in constant time: neither the token nor its length leaks through timing.
  const same = timingSafeEqual(digest(presented), digest(expected));
  if (same) return;
  const retry = await deps.rateLimiter.failedAuth(request.ip);
  if (retry !== null) {
    throw new ApiError('rate_limit_exceeded', 'Too many failed authentication attempts from this address. Try again later.').withHeader('Retry-After', String(retry));
  }
  if (presented.startsWith('sk_')) {
    throw new ApiError('insufficient_role', "The admin API takes the instance operator's credential (MMGEN_ADMIN_TOKEN), not an organization's API key.");
  }
  throw new ApiError('invalid_authorization', 'The operator credential is not this installation\'s MMGEN_ADMIN_TOKEN.');
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Who made a change, for the audit: the operator's own name for themself (X-Mmgen-Operator), and the address. */
export function operatorActor(request: FastifyRequest): string {
  const named = request.headers['x-mmgen-operator'];
  const name = typeof named === 'string' && named.trim() ? named.trim().slice(0, 100) : 'operator';
  return `${name} (admin API, ${request.ip})`;
}
