import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import type { Db } from '../store/db.js';
import { NODE_DEAD_AFTER_S } from '../node-liveness.js';
import {
  completeIdempotencyClaim,
  deleteExpiredIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  insertIdempotencyClaim,
  releaseIdempotencyClaim,
  renewIdempotencyClaim,
  takeOverIdempotencyClaim,
  type IdempotencyClaim,
  type IdempotencyKeyRow,
  type NewIdempotencyClaim,
} from '../store/idempotency.js';
import type { Authenticator } from './auth.js';
import { DEPRECATION_HEADER_NAMES } from './deprecation-headers.js';
import { canonicalJson } from '../canonical-json.js';

export type IdempotencyPorts = Pick<AppDeps, 'db' | 'nodeId'>;

/**
 * Idempotency-Key on credit-consuming POSTs (contract §8; decisions in
 * docs/contract-addenda.md, "Idempotency and rate limits").
 *
 * The preHandler runs after authentication, the rate limit and body
 * validation, so none of those errors ever touch a key. It claims the key
 * with one INSERT … ON CONFLICT DO NOTHING: of any number of concurrent
 * requests with one key, on any number of nodes, exactly one executes. The
 * others see the row: a different request → 422, still running → 409,
 * finished → the stored response again. onSend then keeps the response (2xx
 * and 402) or lets the claim go (anything else), before the client sees it,
 * so a retry right after a response never meets a stale in-flight claim.
 *
 * Across crashes (docs/contract-addenda.md, "Idempotency across crashes"):
 * the accepting transaction names its generation (or comparison) on the
 * claim, so the key and its effect are one fact. A claim whose node stopped
 * beating (node-liveness.ts), or whose request stopped renewing it, is an
 * orphan: the next request with the key takes it over, and is answered from
 * what the dead request accepted (`resume`, with Idempotent-Replayed), or, if
 * it accepted nothing, runs as the first request would have.
 */

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: Claim | null;
  }
}

interface Claim extends IdempotencyClaim {
  /** What an earlier request with this key accepted before it died: the route answers from it instead of accepting. */
  resume: string | null;
  /** Set once the response has been kept or the claim released. */
  settled: boolean;
  heartbeat: NodeJS.Timeout;
}

const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
/** Headers of the first response that a replay repeats; the rest (request id, rate limits) belong to the replay itself. */
const KEPT_HEADERS = ['content-type', 'cache-control', 'location', 'x-mmgen-generation-id', ...DEPRECATION_HEADER_NAMES];
/**
 * Marks a kept body stored as base64 (audio from POST /v1/audio/speech): the column is text, and binary bytes read
 * as UTF-8 would not come back. Never sent to a client.
 */
const BASE64_BODY = 'x-mmgen-kept-body-base64';
/** A binary answer: not text, by its media type. */
function isBinary(contentType: string | undefined): boolean {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return t !== '' && !t.startsWith('text/') && !t.endsWith('json') && !t.endsWith('+xml');
}
// A request renews its claim while it runs; a claim not renewed for STALE_AFTER_S was left by a request that
// is gone (its node may still live: a response that could not be recorded), and is an orphan. A dead node's
// claims are orphans sooner, after NODE_DEAD_AFTER_S. Neither bound decides money: an orphan is answered
// from what it accepted.
const HEARTBEAT_MS = 5_000;
const STALE_AFTER_S = 20;
const ORPHANS = { nodeDeadAfterSeconds: NODE_DEAD_AFTER_S, staleAfterSeconds: STALE_AFTER_S };
const SWEEP_EVERY_MS = 10 * 60_000;
/**
 * A bound on what is held in memory while a hijacked response streams. The
 * longest chat stream (32768 tokens) stays far below it; past it the response
 * is not kept and the key is released, which is logged.
 */
const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

export function isIdempotencyKeyValid(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/** Executed requests whose response is kept for replays: 2xx and 402 (nothing was charged, and a retry would say the same). */
function kept(status: number): boolean {
  return (status >= 200 && status < 300) || status === 402;
}

/** A file in a parsed multipart body counts by its digest: the same bytes, however they were framed. */
const fileDigest = (v: unknown): string | undefined => (Buffer.isBuffer(v) ? JSON.stringify(`sha256:${createHash('sha256').update(v).digest('hex')}`) : undefined);

/** The body's fingerprint text: key order never makes two bodies differ. */
const fingerprintText = (body: unknown): string => canonicalJson(body, fileDigest);

export function registerIdempotency(app: FastifyInstance, deps: IdempotencyPorts, authenticator: Authenticator): void {
  app.decorateRequest('idempotency', null);
  let lastSweep = 0;

  app.addHook('preHandler', async (request, reply) => {
    const def = request.routeOptions.config.def;
    if (request.method !== 'POST' || !def?.auth?.consumesCredits || !request.principal) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (!isIdempotencyKeyValid(key)) {
      throw new ApiError('parameter_invalid', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.', 'Idempotency-Key');
    }
    if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = Date.now();
      deleteExpiredIdempotencyKeys(deps.db).catch((err: unknown) => request.log.warn({ err }, 'could not delete expired idempotency keys'));
    }
    const fingerprint = {
      apiKeyId: request.principal.keyId,
      key,
      method: request.method,
      path: (request.url.split('?')[0] ?? '').replace(/(.)\/+$/, '$1'),
      requestSha256: createHash('sha256').update(fingerprintText(request.body ?? {})).digest('hex'),
      requestId: request.id,
      nodeId: deps.nodeId,
    };
    const found = await claim(deps.db, fingerprint);
    if ('claimed' in found) {
      const c: Claim = {
        apiKeyId: fingerprint.apiKeyId,
        key,
        requestId: request.id,
        resume: found.resume,
        settled: false,
        heartbeat: setInterval(() => {
          renew(deps.db, c).catch((err: unknown) => request.log.warn({ err }, 'could not renew an idempotency claim'));
        }, HEARTBEAT_MS).unref(),
      };
      request.idempotency = c;
      if (c.resume) {
        // An answer from what was accepted, like a stored one, goes only to a key that is still what it was.
        await authenticator.confirm(request);
        // The answer is the dead request's, as a replay is (a streamed one too: the raw header reaches writeHead).
        void reply.header('Idempotent-Replayed', 'true');
        reply.raw.setHeader('Idempotent-Replayed', 'true');
        request.log.info({ resume: c.resume }, 'answering from what an earlier request with this Idempotency-Key accepted');
      }
      captureHijackedResponse(deps, request, reply, c);
      return;
    }
    const row = found.row;
    if (row.method !== fingerprint.method || row.path !== fingerprint.path) {
      throw new ApiError(
        'idempotency_key_reused',
        `This Idempotency-Key was already used for ${row.method} ${row.path}. Use a new key for a different request.`,
        'Idempotency-Key',
      );
    }
    if (row.request_sha256 !== fingerprint.requestSha256) {
      throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body. Use a new key for a different request.', 'Idempotency-Key');
    }
    if (row.state === 'in_flight') {
      throw new ApiError('idempotency_key_in_use', 'The first request with this Idempotency-Key is still being processed. Retry once it has completed.', 'Idempotency-Key');
    }
    // A stored answer goes only to a key that is still what it was (the cache may hold a revoked one).
    await authenticator.confirm(request);
    return replay(request, reply, row);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const c = request.idempotency;
    if (!c || c.settled) return payload;
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const v = reply.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    let body: string | null = null;
    if (typeof payload === 'string') body = payload;
    else if (Buffer.isBuffer(payload)) {
      const binary = isBinary(headers['content-type']);
      body = payload.toString(binary ? 'base64' : 'utf8');
      if (binary) headers[BASE64_BODY] = '1';
    }
    await settle(deps, request, c, reply.statusCode, headers, body);
    return payload;
  });
}

/**
 * Claims the key, taking over an orphaned claim of the same request (`resume`: what it accepted), or returns
 * the row that holds it: a different request, one still being worked on, or a kept answer.
 */
async function claim(db: Db, f: NewIdempotencyClaim): Promise<{ claimed: true; resume: string | null } | { row: IdempotencyKeyRow }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await insertIdempotencyClaim(db, f)) return { claimed: true, resume: null };
    const row = await findIdempotencyKey(db, f.apiKeyId, f.key, ORPHANS);
    // Released by its request between our claim attempt and the lookup: try to claim again.
    if (!row) continue;
    if (row.expired) {
      await deleteExpiredIdempotencyKey(db, f.apiKeyId, f.key);
      continue;
    }
    // Only the same request takes an orphan over; another one is told it differs (422), whatever the claim's state.
    const same = row.method === f.method && row.path === f.path && row.request_sha256 === f.requestSha256;
    if (!row.orphaned || !same) return { row };
    const resume = await takeOverIdempotencyClaim(db, { apiKeyId: f.apiKeyId, key: f.key, requestId: row.request_id }, f.requestId, f.nodeId);
    if (resume !== undefined) return { claimed: true, resume };
    // Another retry took it over first: look again.
  }
  throw new ApiError('idempotency_key_in_use', 'Another request with this Idempotency-Key is being processed. Retry shortly.', 'Idempotency-Key');
}

function replay(request: FastifyRequest, reply: FastifyReply, row: IdempotencyKeyRow): FastifyReply {
  const { [BASE64_BODY]: base64, ...headers } = row.response_headers ?? {};
  let body: string | Buffer = row.response_body ?? '';
  if (base64) body = Buffer.from(body, 'base64');
  const status = row.response_status ?? 200;
  if (status >= 400 && typeof body === 'string') {
    // An error body names its request; the replay is a request of its own, and §1 wants the body and X-Request-Id to agree.
    try {
      const parsed = JSON.parse(body) as { error?: { request_id?: string } };
      if (parsed.error) {
        parsed.error.request_id = request.id;
        body = JSON.stringify(parsed);
      }
    } catch {
      // not JSON: replayed as stored
    }
  }
  void reply.headers(headers).header('Idempotent-Replayed', 'true').code(status);
  return reply.send(body);
}

async function settle(deps: IdempotencyPorts, request: FastifyRequest, c: Claim, status: number, headers: Record<string, string>, body: string | null): Promise<void> {
  if (c.settled) return;
  c.settled = true;
  clearInterval(c.heartbeat);
  try {
    if (kept(status) && body !== null) {
      await completeIdempotencyClaim(deps.db, c, { status, headers, body });
    } else {
      await releaseIdempotencyClaim(deps.db, c);
    }
  } catch (err) {
    // The response itself is not failed for this: the request has executed. The claim stays in flight until
    // it goes stale; then the next request with the key takes it over and is answered from what this one accepted.
    request.log.error({ err, reqId: request.id }, 'could not record the outcome of an idempotent request');
  }
}

async function renew(db: Db, c: Claim): Promise<void> {
  if (c.settled) return;
  await renewIdempotencyClaim(db, c);
}

/**
 * A route that hijacks the reply (chat completions with stream: true) writes
 * to the socket itself, and onSend never runs. Its bytes are recorded here and
 * the claim settled when it ends; the final end() waits for that, so a client
 * retrying the moment its stream ends finds the response kept, not in flight.
 * Nothing is recorded for normal replies: onSend settles those first.
 */
function captureHijackedResponse(deps: IdempotencyPorts, request: FastifyRequest, reply: FastifyReply, c: Claim): void {
  const res = reply.raw;
  const chunks: Buffer[] = [];
  let size = 0;
  let contentType: string | undefined;
  const record = (chunk: unknown, encoding: unknown): void => {
    if (c.settled || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size <= MAX_CAPTURE_BYTES) chunks.push(buf);
  };

  const writeHead = res.writeHead;
  const write = res.write;
  const end = res.end;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const headers = args.find((a) => typeof a === 'object' && a !== null && !Array.isArray(a)) as Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === 'content-type') contentType = String(v);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as typeof res.writeHead;
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    record(args[0], args[1]);
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof res.write;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (c.settled) return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    record(args[0], args[1]);
    const type = contentType ?? String(res.getHeader('content-type') ?? 'application/octet-stream');
    let body: string | null = null;
    if (size <= MAX_CAPTURE_BYTES) body = Buffer.concat(chunks).toString('utf8');
    else request.log.error({ reqId: request.id, bytes: size }, 'response too large to keep for its Idempotency-Key; the key is released');
    if (body !== null && type.startsWith('text/event-stream')) {
      // A stream that broke off (an error event instead of [DONE]) ended like a 5xx: not kept.
      body = /data: \[DONE\]\s*$/.test(body) ? compactSse(body) : null;
    }
    const headers: Record<string, string> = { 'content-type': type };
    if (type.startsWith('text/event-stream')) headers['cache-control'] = 'no-cache';
    // Set on the raw response before its head (deprecation-headers.ts), so they are read back here.
    for (const name of DEPRECATION_HEADER_NAMES) {
      const v = res.getHeader(name);
      if (v !== undefined) headers[name] = String(v);
    }
    void settle(deps, request, c, res.statusCode, headers, body).finally(() => (end as (...a: unknown[]) => ServerResponse).apply(res, args));
    return res;
  } as typeof res.end;
}

/**
 * Merges consecutive content-only chunks of an OpenAI-shaped stream into one,
 * so a kept stream costs about the size of its text rather than a chunk
 * envelope per token. A replay is still a valid stream: role chunk, content,
 * finish chunk, usage, [DONE].
 */
export function compactSse(text: string): string {
  const out: string[] = [];
  let pending: { chunk: { choices: Array<{ delta: { content: string } }> }; content: string } | null = null;
  const flush = () => {
    if (!pending) return;
    pending.chunk.choices[0]!.delta.content = pending.content;
    out.push(`data: ${JSON.stringify(pending.chunk)}`);
    pending = null;
  };
  for (const event of text.split('\n\n')) {
    if (event.trim() === '') continue;
    const data = event.startsWith('data: ') && !event.includes('\n') ? event.slice(6) : null;
    let parsed: unknown;
    try {
      parsed = data !== null && data !== '[DONE]' ? JSON.parse(data) : undefined;
    } catch {
      parsed = undefined;
    }
    const choices = (parsed as { choices?: unknown } | undefined)?.choices;
    const choice = Array.isArray(choices) && choices.length === 1 ? (choices[0] as { delta?: Record<string, unknown>; finish_reason?: unknown }) : undefined;
    const delta = choice?.delta;
    if (choice && choice.finish_reason == null && delta && Object.keys(delta).length === 1 && typeof delta.content === 'string') {
      if (pending) pending.content += delta.content;
      else pending = { chunk: parsed as { choices: Array<{ delta: { content: string } }> }, content: delta.content };
      continue;
    }
    flush();
    out.push(event);
  }
  flush();
  return out.map((e) => `${e}\n\n`).join('');
}
