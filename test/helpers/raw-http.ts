import { connect } from 'node:net';

/**
 * An HTTP/1.1 client that writes exactly the bytes it is given: header values
 * Node's own client refuses (control characters, UTF-8, several lines of one
 * header), bodies whose Content-Length lies, bodies cut off mid-way. Tests of
 * bad input need it because fetch and http.request sanitize what they send.
 */
export interface RawRequest {
  method: string;
  /** Sent as is: percent-encoding, bad escapes and all. */
  path: string;
  /** In order; a name may repeat. Latin-1 strings or raw bytes. */
  headers?: Array<[string, string | Buffer]>;
  body?: Buffer | string;
  /** Omit the Content-Length header that is otherwise derived from the body. */
  noContentLength?: boolean;
  /** Give up (and report a hang) after this long. */
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
}

export class HangError extends Error {}

/** Sends one request on a fresh connection (Connection: close) and reads the whole answer. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
  const lines: Buffer[] = [Buffer.from(`${req.method} ${req.path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n`, 'latin1')];
  for (const [name, value] of req.headers ?? []) {
    lines.push(Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'latin1'), Buffer.from('\r\n')]));
  }
  const hasLength = (req.headers ?? []).some(([n]) => n.toLowerCase() === 'content-length' || n.toLowerCase() === 'transfer-encoding');
  if (body !== undefined && !req.noContentLength && !hasLength) lines.push(Buffer.from(`Content-Length: ${body.length}\r\n`));
  lines.push(Buffer.from('\r\n'));
  if (body !== undefined) lines.push(body);

  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new HangError(`no complete answer to ${req.method} ${req.path.slice(0, 120)} within ${req.timeoutMs ?? 10_000} ms`))),
      req.timeoutMs ?? 10_000,
    );
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // A server may keep the connection open after a complete response; the response's own framing says when it is done.
      const all = Buffer.concat(chunks);
      if (isComplete(all)) finish(() => resolve(parseResponse(all)));
    });
    // The server may answer (e.g. 413) and close before it has read everything sent.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') finish(() => reject(err));
    });
    socket.on('close', () => {
      finish(() => {
        try {
          resolve(parseResponse(Buffer.concat(chunks)));
        } catch (err) {
          reject(err);
        }
      });
    });
    socket.write(Buffer.concat(lines));
  });
}

/** Whether `raw` holds a whole response framed by Content-Length or chunked encoding (else the close ends it). */
function isComplete(raw: Buffer): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = raw.subarray(0, end).toString('latin1');
  if (/^HTTP\/1\.[01] 1\d\d/.test(head)) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return raw.length - end - 4 >= Number(length[1]);
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) return raw.subarray(end + 4).includes('\r\n0\r\n\r\n') || raw.subarray(end + 4).subarray(0, 5).toString() === '0\r\n\r\n';
  return false;
}

function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`the connection closed without a complete response (${raw.length} bytes: ${JSON.stringify(raw.toString('latin1').slice(0, 200))})`);
  const head = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0]!)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP response: ${head[0]}`);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status, headers, body, text, json };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates too, as U+FFFD), unlike encodeURIComponent which throws on them. */
export function encodePathSegment(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}
