import type { FastifyRequest } from 'fastify';
import type { Principal } from '../domain/access.js';
import { keyActor, type AuditOrigin } from '../domain/audit.js';

/**
 * Who made a change through the API, for the audit log: the caller (a key and its member, or a signed-in member), the
 * mode it acted in, the address, the request id.
 */
export function requestOrigin(principal: Principal, request: FastifyRequest): AuditOrigin {
  const where = { address: request.ip, requestId: request.id };
  if (principal.sessionId) {
    // A signed-in person acts through their membership's hidden session key of the session's mode
    // (docs/contract-addenda.md, "People"): the entry names the member. What is the person's own (their account,
    // passkeys, sessions: the session-only operations and signing out) is no mode's and read in both; anything else
    // was done in the session's mode, as a key's change is, and only that mode reads it (a live key's creation is
    // not a test-mode reader's business).
    const auth = request.routeOptions.config.def?.auth;
    const own = !auth || auth.sessionOnly === true;
    return { actor: { type: 'member', id: principal.userId }, ...where, mode: own ? null : principal.mode };
  }
  return { actor: keyActor(principal), ...where, mode: principal.mode };
}
