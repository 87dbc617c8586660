import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../domain/access.js';
import type { AppDeps } from '../deps.js';
import { isObject } from '../providers/http.js';
import { capturedDocument, payloadKey } from './payload-capture.js';

/**
 * What the request log's row of a request says that the request itself does not: the caller when it was refused
 * before it became the principal (a known key from a refused address, of the wrong role, over its rate limit), the
 * generation it made and the model that served it, the error code it was answered with.
 */
export interface LogFacts {
  caller?: { organizationId: string; keyId: string; live: boolean };
  generationId?: string;
  model?: string;
  errorCode?: string;
}

function factsOf(request: FastifyRequest): LogFacts {
  return (request.logFacts ??= {});
}

/** A key was found for the request, whether or not it passes (auth.ts). */
export function noteCaller(request: FastifyRequest, p: Pick<Principal, 'organizationId' | 'keyId' | 'mode'>): void {
  factsOf(request).caller = { organizationId: p.organizationId, keyId: p.keyId, live: p.mode === 'live' };
}

export function noteGeneration(request: FastifyRequest, generationId: string, model: string): void {
  const f = factsOf(request);
  f.generationId = generationId;
  f.model = model;
}

export function noteError(request: FastifyRequest, code: string): void {
  factsOf(request).errorCode = code;
}

/**
 * The onResponse hook's part: queue the row of a /v1 call whose organization is known. Nothing is awaited; the
 * recorder writes rows in batches (request-log/recorder.ts).
 */
export function recordRequest(deps: Pick<AppDeps, 'requestLog' | 'catalog' | 'clock' | 'blobs' | 'log'>, request: FastifyRequest, reply: FastifyReply): void {
  if (!deps.requestLog.enabled) return;
  const url = request.routeOptions.url;
  if (url === undefined || !url.startsWith('/v1/')) return;
  const facts = request.logFacts;
  const p = request.principal;
  const caller = p ? { organizationId: p.organizationId, keyId: p.keyId, live: p.mode === 'live' } : facts?.caller;
  if (!caller) return;
  const status = reply.statusCode;
  let generationId = facts?.generationId ?? null;
  // A read of one generation names it (its cost is shown only to its own organization: the join checks).
  if (generationId === null && status < 400) {
    const id = (request.params as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string' && id.startsWith('gen_')) generationId = id;
  }
  let model = facts?.model ?? null;
  if (model === null && isObject(request.body) && typeof request.body.model === 'string') model = deps.catalog.find(request.body.model)?.slug ?? null;
  const elapsedMs = reply.elapsedTime;
  let payload: string | null = null;
  const capture = request.capture;
  if (capture) {
    payload = payloadKey(request.id);
    const key = payload;
    // After the response, in a later turn: redacting and storing a body never delays a reply.
    // A capture that cannot be made is lost, never the process: this runs outside any request's error handling.
    setImmediate(() => {
      let doc: Buffer;
      try {
        doc = capturedDocument(request, reply, capture);
      } catch (err) {
        deps.log.warn({ err, key }, 'could not make a captured payload');
        return;
      }
      deps.blobs.put(key, doc, 'application/json').catch((err: unknown) => deps.log.warn({ err, key }, 'could not store a captured payload'));
    });
  }
  deps.requestLog.record({
    at: new Date(deps.clock.now() - elapsedMs),
    latencyUs: Math.round(elapsedMs * 1000),
    status,
    live: caller.live,
    organizationId: caller.organizationId,
    requestId: request.id,
    route: `${request.method} ${url}`,
    keyId: caller.keyId,
    model,
    generationId,
    errorCode: facts?.errorCode ?? null,
    payload,
  });
}
