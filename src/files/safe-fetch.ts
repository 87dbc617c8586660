import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, request } from 'undici';

/**
 * Outbound HTTP to addresses users choose (image_url, webhooks, provider
 * downloads) without letting them aim mmgen at its own network (SSRF).
 *
 * The guard is on the address a socket connects to, not on the URL text: a
 * public-looking host name may resolve to 127.0.0.1 or to the cloud metadata
 * service. So the check runs three times: on an IP literal in the URL (so
 * nothing is even sent), inside DNS resolution (every answer must be public,
 * or none is used), and on the connected socket's peer address (the last word,
 * whatever resolved it). Each call gets its own connection pool, so a socket
 * made under `allowPrivateNetwork` is never reused by a guarded call; callers
 * that send many requests (webhooks) may share a GuardedPool instead, whose
 * policy is fixed when it is made and whose every new socket passes the same
 * checks (a kept-alive socket stays connected to the address that was checked).
 */

export type FetchRefusedReason = 'invalid_url' | 'scheme' | 'private_address' | 'redirect';
export type FetchFailedReason = 'dns' | 'connect' | 'tls' | 'timeout' | 'too_large' | 'network';

/** mmgen would not make (or finish) the request: the target is not allowed. */
export class FetchRefused extends Error {
  override readonly name = 'FetchRefused';
  constructor(
    readonly reason: FetchRefusedReason,
    message: string,
    /** For `redirect`: the status and Location the target answered. */
    readonly detail: { status?: number; location?: string; address?: string } = {},
  ) {
    super(message);
  }
}

/** The request was allowed but did not succeed. */
export class FetchFailed extends Error {
  override readonly name = 'FetchFailed';
  constructor(
    readonly reason: FetchFailedReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface SafeFetchOptions {
  /** Operator switch (MMGEN_ALLOW_PRIVATE_NETWORK): http and any address allowed. */
  allowPrivateNetwork: boolean;
  /** Plain http as well as https, still to public addresses only (test-mode webhooks). Implied by allowPrivateNetwork. */
  allowHttp?: boolean;
  /** Largest response body accepted; larger ones fail with `too_large` while streaming. */
  maxBytes: number;
  /** `truncate`: a body over maxBytes is cut there instead of failing (callers that only need the status). */
  overflow?: 'fail' | 'truncate';
  /**
   * A shared keep-alive pool (same allowPrivateNetwork) instead of a pool of
   * one connection for this call. Over a pool, `remoteAddress` is ''.
   */
  pool?: GuardedPool;
  /** Budget for the whole exchange: resolution, connection, headers and body. */
  timeoutMs: number;
  method?: 'GET' | 'POST' | 'PUT' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface SafeResponse {
  /** Any status but 3xx (redirects are refused); callers decide what a 4xx/5xx means to them. */
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The peer address the body came from. */
  remoteAddress: string;
}

// Every public IPv6 unicast address is in 2000::/3; the rest (IPv4-compatible
// ::a.b.c.d, ::/8 leftovers, …) has no business being fetched from.
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

export interface AddressClass {
  /** Normalized form (IPv4-mapped IPv6 shown as IPv4). */
  address: string;
  /** ipaddr.js range name: unicast, loopback, private, linkLocal, uniqueLocal, carrierGradeNat, … */
  range: string;
  /** Whether a guarded fetch may connect to it. */
  public: boolean;
}

/**
 * Parses an IP address in any spelling the WHATWG URL parser accepts as an
 * IPv4 host (2130706433, 0x7f000001, 0177.0.0.1, 127.1) or any IPv6 form
 * (bracketed or not, IPv4-mapped); null when the text is a host name.
 */
export function parseIpLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  let normalized: string;
  try {
    normalized = new URL(`http://${bare}/`).hostname;
  } catch {
    return null;
  }
  return ipaddr.IPv4.isValidFourPartDecimal(normalized) ? ipaddr.IPv4.parse(normalized) : null;
}

/** Classifies an address; anything unparseable is treated as not public. */
export function classifyAddress(input: string): AddressClass {
  const parsed = parseIpLiteral(input);
  if (!parsed) return { address: input, range: 'invalid', public: false };
  const addr = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  const range = addr.range();
  let isPublic = range === 'unicast';
  if (isPublic && addr.kind() === 'ipv6') isPublic = (addr as ipaddr.IPv6).match(IPV6_GLOBAL_UNICAST);
  return { address: addr.toString(), range, public: isPublic };
}

function refusedAddress(host: string, c: AddressClass): FetchRefused {
  const what = host === c.address ? c.address : `${host} (${c.address})`;
  return new FetchRefused('private_address', `${what} is a ${c.range} address; only public addresses are fetched`, { address: c.address });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for net.connect that fails when any answer is not public. */
function guardedLookup(hostname: string, options: unknown, callback: LookupCallback): void {
  const opts = typeof options === 'object' && options !== null ? (options as { all?: boolean; family?: number }) : {};
  dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
    if (err) return callback(err);
    if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
    // One private answer refuses the name: mixing public and private answers is how rebinding attacks start.
    for (const a of addresses) {
      const c = classifyAddress(a.address);
      if (!c.public) return callback(refusedAddress(hostname, c) as unknown as NodeJS.ErrnoException);
    }
    if (opts.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

const NETWORK_CODES: Record<string, FetchFailedReason> = {
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NODATA: 'dns',
  ECONNREFUSED: 'connect',
  ECONNRESET: 'connect',
  EHOSTUNREACH: 'connect',
  ENETUNREACH: 'connect',
  EADDRNOTAVAIL: 'connect',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_SOCKET: 'connect',
};

function classifyError(err: unknown): FetchFailed {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const reason: FetchFailedReason =
    NETWORK_CODES[code] ?? (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_)/.test(code) ? 'tls' : 'network');
  const text: Record<FetchFailedReason, string> = {
    dns: 'the host name could not be resolved',
    connect: 'the connection failed',
    tls: 'the TLS handshake failed',
    timeout: 'the request timed out',
    too_large: 'the response is too large',
    network: 'the request failed',
  };
  return new FetchFailed(reason, `${text[reason]}${code ? ` (${code})` : ''}`, { cause: err });
}

/** Drops a body mid-stream; undici reports the abort as an 'error' that nobody else would be listening for. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

/**
 * One HTTP request under the address guard, with a size bound enforced while
 * the body streams and one deadline for the whole exchange. Redirects are
 * never followed (the Location could be anywhere); a 3xx is refused.
 */
export async function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new FetchRefused('invalid_url', 'not a valid absolute URL');
  }
  const httpOk = opts.allowPrivateNetwork || opts.allowHttp === true;
  const schemes = httpOk ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(target.protocol)) {
    throw new FetchRefused('scheme', `the URL must use ${httpOk ? 'http or https' : 'https'}, not ${target.protocol.replace(/:$/, '')}`);
  }
  if (!opts.allowPrivateNetwork) {
    const literal = parseIpLiteral(target.hostname);
    if (literal) {
      const c = classifyAddress(target.hostname);
      if (!c.public) throw refusedAddress(target.hostname, c);
    }
  }

  if (opts.pool && opts.pool.allowPrivateNetwork !== opts.allowPrivateNetwork) {
    // A socket opened under one policy must never serve a request made under the other.
    throw new Error('safeFetch: the pool was made for another allowPrivateNetwork policy');
  }
  let refusal: FetchRefused | undefined;
  let remoteAddress = '';
  const agent =
    opts.pool?.agent ??
    new Agent({
      connect: guardedConnector(opts.allowPrivateNetwork, Math.min(opts.timeoutMs, 10_000), (r) => (refusal = r), (a) => (remoteAddress = a)),
      connections: 1,
    });

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, opts.timeoutMs);
  const timeoutError = () => new FetchFailed('timeout', `no complete answer within ${opts.timeoutMs} ms`);

  try {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(target, {
        dispatcher: agent,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        body: opts.body,
        signal: controller.signal,
      });
    } catch (err) {
      if (refusal) throw refusal;
      const refused = findRefusal(err);
      if (refused) throw refused;
      if (timedOut) throw timeoutError();
      throw classifyError(err);
    }

    if (res.statusCode >= 300 && res.statusCode < 400) {
      discard(res.body);
      const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
      throw new FetchRefused('redirect', `the server answered ${res.statusCode} (a redirect${location ? ` to ${location}` : ''}); redirects are not followed`, {
        status: res.statusCode,
        ...(location ? { location } : {}),
      });
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxBytes && opts.overflow !== 'truncate') {
      discard(res.body);
      throw new FetchFailed('too_large', `the response is ${declared} bytes, over the ${opts.maxBytes}-byte limit`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        // Checked per chunk so a lying or absent Content-Length cannot make mmgen buffer more.
        if (total + buf.length > opts.maxBytes && opts.overflow === 'truncate') {
          chunks.push(buf.subarray(0, opts.maxBytes - total));
          total = opts.maxBytes;
          discard(res.body);
          break;
        }
        total += buf.length;
        if (total > opts.maxBytes) {
          discard(res.body);
          throw new FetchFailed('too_large', `the response is over the ${opts.maxBytes}-byte limit`);
        }
        chunks.push(buf);
      }
    } catch (err) {
      if (err instanceof FetchFailed) throw err;
      if (timedOut) throw timeoutError();
      throw classifyError(err);
    }
    return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks, total), remoteAddress };
  } finally {
    clearTimeout(timer);
    if (!opts.pool) agent.destroy().catch(() => {});
  }
}

/** undici may hand a connector's error on as it is or wrapped; the refusal is wherever it sits in the chain. */
function findRefusal(err: unknown): FetchRefused | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof FetchRefused) return e;
  }
  return undefined;
}

/**
 * A connector that refuses non-public peers (unless allowed): in DNS
 * resolution, at TCP connect, and on the socket handed to undici.
 */
function guardedConnector(
  allowPrivateNetwork: boolean,
  connectTimeoutMs: number,
  onRefusal: (r: FetchRefused) => void = () => {},
  onConnected: (address: string) => void = () => {},
): buildConnector.connector {
  const base = buildConnector({
    timeout: connectTimeoutMs,
    ...(allowPrivateNetwork ? {} : { lookup: guardedLookup as never }),
  });
  const checkPeer = (socket: Socket, hostname: string): FetchRefused | null => {
    const c = classifyAddress(socket.remoteAddress ?? '');
    return c.public ? null : refusedAddress(hostname, c);
  };
  return (connectOpts, callback) => {
    // buildConnector returns the socket although its type says void.
    const socket = (base as (o: buildConnector.Options, cb: buildConnector.Callback) => Socket)(connectOpts, (err, connected) => {
      if (err || !connected) {
        if (err instanceof FetchRefused) onRefusal(err);
        return callback(err ?? new Error('no socket'), null);
      }
      // Checked again in case 'connect' never fired (a socket handed over already connected).
      const bad = allowPrivateNetwork ? null : checkPeer(connected as Socket, connectOpts.hostname);
      if (bad) {
        onRefusal(bad);
        connected.destroy();
        return callback(bad, null);
      }
      onConnected((connected as Socket).remoteAddress ?? '');
      callback(null, connected);
    });
    if (!allowPrivateNetwork) {
      // At TCP connect, before TLS or HTTP say anything more, whoever resolved the name.
      socket.once('connect', () => {
        const bad = checkPeer(socket, connectOpts.hostname);
        if (bad) {
          onRefusal(bad);
          socket.destroy(bad);
        }
      });
    }
  };
}

/**
 * A keep-alive connection pool for many guarded requests (webhook deliveries):
 * new sockets pass the same address checks as a one-off safeFetch, and the
 * pool's policy is fixed at creation so a socket opened with private targets
 * allowed is never lent to a guarded request.
 */
export class GuardedPool {
  /** @internal */
  readonly agent: Agent;

  constructor(
    readonly allowPrivateNetwork: boolean,
    opts: { connectionsPerOrigin?: number; connectTimeoutMs?: number } = {},
  ) {
    this.agent = new Agent({
      connect: guardedConnector(allowPrivateNetwork, opts.connectTimeoutMs ?? 10_000),
      connections: opts.connectionsPerOrigin ?? null,
    });
  }

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => {});
  }
}
