import type { FastifyRequest } from 'fastify';
import type { Principal } from '../domain/access.js';
import { keyActor, type AuditOrigin } from '../domain/audit.js';

/** Who made a change through the API, for the audit log: the calling key (and its member) and its mode, the address, the request id. */
export function requestOrigin(principal: Principal, request: FastifyRequest): AuditOrigin {
  // A signed-in person acts through their membership's hidden session key (docs/contract-addenda.md, "People"):
  // the entry names the member, and is read in both modes, as what a person changes is not one mode's data.
  if (principal.sessionId) return { actor: { type: 'member', id: principal.userId }, address: request.ip, requestId: request.id, mode: null };
  return { actor: keyActor(principal), address: request.ip, requestId: request.id, mode: principal.mode };
}
