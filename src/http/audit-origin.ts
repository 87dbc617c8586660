import type { FastifyRequest } from 'fastify';
import type { Principal } from '../domain/access.js';
import { keyActor, type AuditOrigin } from '../domain/audit.js';

/** Who made a change through the API, for the audit log: the calling key (and its member) and its mode, the address, the request id. */
export function requestOrigin(principal: Principal, request: FastifyRequest): AuditOrigin {
  return { actor: keyActor(principal), address: request.ip, requestId: request.id, mode: principal.mode };
}
