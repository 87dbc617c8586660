import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The shared machinery of the loopback provider fakes: a real HTTP server on
 * 127.0.0.1 that records every request, answers through a provider's own
 * routes (each fake speaks its provider's documented API), hosts output files
 * the way a provider's CDN does (with an expiry switch), and can be told to
 * misbehave on chosen calls: an error status with the provider's error body
 * and headers (429 + Retry-After), a malformed body, a delay, a hang, or
 * "lost" (the call takes effect, the answer never arrives).
 *
 * Used by the provider conformance suite, the end-to-end tests and the
 * gateway bench; never by mmgen itself.
 */

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a Buffer or string as it is. */
  body?: unknown;
  /** Server-sent events (or any chunked body), written as they come. */
  stream?: AsyncIterable<string>;
}

/** How a call misbehaves, instead of (or after) being handled. */
export interface Misbehaviour {
  /** Answer this instead of handling the call. */
  reply?: Reply;
  /** Wait this long first (then handle, or answer `reply`). */
  delayMs?: number;
  /** Never answer (the socket stays open until the client gives up or the fake closes). */
  hang?: boolean;
  /** Handle the call (its effects happen), then close the connection without an answer. */
  lose?: boolean;
  /** Handle the call (its effects happen), then answer its JSON body changed by this (an answer of a state the call passed through). */
  rewrite?: (body: Record<string, unknown>) => Record<string, unknown>;
  /** Hold the call until the gate opens (then go on as told): a test changes the world while mmgen waits on the answer. */
  gate?: CallGate;
}

/**
 * A call a fake holds until the test opens it: `arrived` settles when the call reaches the fake, so the test learns
 * where mmgen is without polling; `open()` lets the call go on.
 */
export class CallGate {
  readonly arrived: Promise<void>;
  private readonly opened: Promise<void>;
  private arrive!: () => void;
  private release!: () => void;

  constructor() {
    this.arrived = new Promise<void>((resolve) => (this.arrive = resolve));
    this.opened = new Promise<void>((resolve) => (this.release = resolve));
  }

  open(): void {
    this.release();
  }

  /** The fake's side: says the call arrived, then waits for the test. */
  async pass(): Promise<void> {
    this.arrive();
    await this.opened;
  }
}

interface Rule {
  method?: string;
  path?: string | RegExp;
  remaining: number;
  what: Misbehaviour;
}

export abstract class FakeServer {
  readonly requests: FakeRequest[] = [];
  /** Set false for benches: nothing is kept per request. */
  record = true;
  /** Calls that arrived (counted before their body is read, so one abandoned early counts too). */
  arrived = 0;
  /** Calls whose client went away before the answer was sent (mmgen aborted them). */
  abandoned = 0;
  url = '';
  /** The credential the fake accepts. */
  readonly key: string;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private rules: Rule[] = [];
  private readonly files = new Map<string, { bytes: Buffer; mime: string }>();

  constructor(key: string) {
    this.key = key;
  }

  /** The provider's routes: authenticate, then answer as the provider's API documents. */
  protected abstract route(req: FakeRequest): Promise<Reply>;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.onRequest(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ fake_error: String(err) }));
      });
    });
    this.server.keepAliveTimeout = 60_000;
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `times` calls matching method and path misbehave as told. */
  misbehave(match: { method?: string; path?: string | RegExp }, what: Misbehaviour, times = 1): void {
    this.rules.push({ ...match, remaining: times, what });
  }

  clearMisbehaviour(): void {
    this.rules = [];
  }

  /** Recorded calls, optionally only those matching method and path. */
  calls(method?: string, path?: string | RegExp): FakeRequest[] {
    return this.requests.filter((r) => (!method || r.method === method) && matches(path, r.path));
  }

  /** Publishes a file at a URL of this fake's CDN (no credential needed, as provider output URLs are). */
  hostFile(bytes: Buffer, mime: string, ext: string): string {
    const id = `${randomUUID()}.${ext}`;
    this.files.set(id, { bytes, mime });
    return `${this.url}/cdn/${id}`;
  }

  /** The output URLs handed out so far stop working (they do upstream, e.g. after an hour on Replicate). */
  expireFiles(): void {
    this.files.clear();
  }

  protected jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
    return { status, body, headers };
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.arrived++;
    res.once('close', () => {
      if (!res.writableFinished) this.abandoned++;
    });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const u = new URL(req.url ?? '/', 'http://fake');
    let json: unknown;
    if ((req.headers['content-type'] ?? '').includes('json')) {
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
    }
    const fr: FakeRequest = { method: req.method ?? 'GET', path: decodeURIComponent(u.pathname), query: u.searchParams, headers: req.headers, body, json };

    if (fr.path.startsWith('/cdn/')) {
      const file = this.files.get(fr.path.slice(5));
      if (!file) return send(res, { status: 404, body: 'expired or unknown file' });
      return send(res, { status: 200, headers: { 'content-type': file.mime }, body: file.bytes });
    }
    if (this.record) this.requests.push(fr);

    const rule = this.rules.find((r) => r.remaining > 0 && (!r.method || r.method === fr.method) && matches(r.path, fr.path));
    if (rule) rule.remaining--;
    const what = rule?.what;
    if (what?.gate) await what.gate.pass();
    if (what?.delayMs) await new Promise((r) => setTimeout(r, what.delayMs));
    if (what?.hang) return; // never answered
    if (what?.reply) return send(res, what.reply);
    let reply = await this.route(fr);
    if (what?.rewrite && reply.body !== null && typeof reply.body === 'object' && !Buffer.isBuffer(reply.body)) {
      reply = { ...reply, body: what.rewrite(reply.body as Record<string, unknown>) };
    }
    if (what?.lose) {
      // The call took effect; its answer is lost on the way back.
      req.socket.destroy();
      return;
    }
    await send(res, reply);
  }
}

function matches(path: string | RegExp | undefined, actual: string): boolean {
  if (path === undefined) return true;
  return typeof path === 'string' ? path === actual : path.test(actual);
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.stream) {
    res.writeHead(reply.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    for await (const chunk of reply.stream) {
      if (res.destroyed) return;
      res.write(chunk);
    }
    res.end();
    return;
  }
  let payload: Buffer;
  if (Buffer.isBuffer(reply.body)) payload = reply.body;
  else if (typeof reply.body === 'string') payload = Buffer.from(reply.body);
  else if (reply.body === undefined) payload = Buffer.alloc(0);
  else {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers['content-type'] ??= 'application/json';
  }
  headers['content-length'] = String(payload.length);
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bearer credential of a request, if any. */
export function bearer(req: FakeRequest): string | undefined {
  const h = req.headers.authorization;
  return typeof h === 'string' && /^Bearer /i.test(h) ? h.slice(7) : undefined;
}
