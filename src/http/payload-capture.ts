import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { redactorOf, type Redactor } from '../request-log/redaction.js';
import type { DataPolicyRow } from '../store/data-policies.js';

/** What one response's capture keeps at most; past it the body is cut and marked. */
const MAX_CAPTURED_BYTES = 1024 * 1024;
/**
 * How deep a captured body is kept; below, a value is `[TOO DEEP]`. The document is serialized with JSON.stringify,
 * which recurses: a body nested 100,000 levels deep would overflow the stack. No real request nests this deep.
 */
const MAX_CAPTURED_DEPTH = 256;

/** Request headers worth keeping in `metadata` and `full` captures (never a credential: those are redacted anyway). */
const KEPT_HEADERS = ['content-type', 'content-length', 'user-agent', 'idempotency-key', 'accept', 'anthropic-version', 'openai-organization'];

export interface Capture {
  mode: 'metadata' | 'full';
  redactor: Redactor;
  chunks: Buffer[];
  bytes: number;
  truncated: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the organization's data policy captures this request's payloads (payload-capture.ts). */
    capture: Capture | null;
  }
}

/** The blob key of a request's captured payload. */
export const payloadKey = (requestId: string): string => `payloads/${requestId}.json`;

/**
 * Copies every byte written to the response (Fastify's send, and the streams written on the raw response alike:
 * a streamed chat, an error envelope) as it goes out; nothing waits for it.
 */
function teeResponse(reply: FastifyReply, capture: Capture): void {
  const res = reply.raw;
  const keep = (chunk: unknown, encoding?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    if (capture.bytes + buf.length > MAX_CAPTURED_BYTES) {
      capture.truncated = true;
      return;
    }
    capture.chunks.push(buf);
    capture.bytes += buf.length;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as typeof res.end;
}

function start(request: FastifyRequest, reply: FastifyReply, policy: DataPolicyRow): void {
  if (policy.capture === 'off') return;
  const capture: Capture = {
    mode: policy.capture,
    redactor: redactorOf(policy),
    chunks: [],
    bytes: 0,
    truncated: false,
  };
  request.capture = capture;
  if (policy.capture === 'full') teeResponse(reply, capture);
}

/**
 * The onRequest hook after authentication: an organization that captures payloads has its responses copied. The
 * policy is read through the node's cache (one statement per organization every few seconds); callback style, so
 * a cached policy costs no promise.
 */
export function capturePayloads(deps: Pick<AppDeps, 'dataPolicies'>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const p = request.principal;
    const url = request.routeOptions.url;
    if (!p || url === undefined || !url.startsWith('/v1/')) return done();
    const cached = deps.dataPolicies.peek(p.organizationId);
    if (cached) {
      start(request, reply, cached);
      return done();
    }
    deps.dataPolicies.get(p.organizationId).then(
      (policy) => {
        start(request, reply, policy);
        done();
      },
      () => done(),
    );
  };
}

/** The captured document of a finished request, every rule applied: what the blob store keeps. */
export function capturedDocument(request: FastifyRequest, reply: FastifyReply, capture: Capture): Buffer {
  const r = capture.redactor;
  const headers: Record<string, unknown> = {};
  for (const name of KEPT_HEADERS) if (request.headers[name] !== undefined) headers[name] = request.headers[name];
  const responseType = reply.getHeader('content-type') ?? reply.raw.getHeader('content-type');
  const doc: Record<string, unknown> = {
    request_id: request.id,
    route: `${request.method} ${request.routeOptions.url ?? ''}`,
    request: { headers: r.value(headers), ...(capture.mode === 'full' ? { body: request.body === undefined ? null : r.value(request.body, MAX_CAPTURED_DEPTH) } : {}) },
    response: {
      status: reply.statusCode,
      content_type: typeof responseType === 'string' ? responseType : null,
      bytes: capture.mode === 'full' ? capture.bytes : Number(reply.getHeader('content-length') ?? 0),
      ...(capture.mode === 'full'
        ? { body: r.body(Buffer.concat(capture.chunks), typeof responseType === 'string' ? responseType : undefined, MAX_CAPTURED_DEPTH), truncated: capture.truncated }
        : {}),
    },
  };
  // Once more over the whole text: whatever a field-wise pass could miss (a key in a field name, an escaped form).
  return Buffer.from(r.text(JSON.stringify(doc)));
}
