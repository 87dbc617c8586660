import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../../test/helpers/server.js';

/**
 * A real mmgen on loopback, on its own PGlite database: the simulator serves
 * live keys too (they are charged), and webhooks may reach loopback receivers.
 */
export function startMmgen(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer('pglite', { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_WEBHOOK_RETRY_DELAYS: '1,1,1,1,1', ...env });
}

export const png = (width: number, height: number, color = '#3366ff') => sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * What the proxy does with one request: `forward` passes it to mmgen and the
 * answer back; `respond` answers itself without mmgen seeing it; `forward-then-drop`
 * lets mmgen execute it, then breaks the connection before the caller gets the
 * answer (the case idempotency keys exist for); `hang` never answers.
 */
export type ProxyAction =
  | { kind: 'forward' }
  | { kind: 'respond'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'forward-then-drop' }
  | { kind: 'forward-then-respond'; status: number; body?: unknown }
  | { kind: 'forward-first-event' }
  | { kind: 'hang' };

/**
 * A loopback HTTP proxy in front of a real mmgen, scripted per request: the
 * upstream is real, only the network between the SDK and it misbehaves.
 */
export class FlakyProxy {
  readonly seen: SeenRequest[] = [];
  url = '';
  private server!: Server;
  private readonly upstream: URL;

  constructor(
    upstream: string,
    private readonly decide: (req: SeenRequest, index: number) => ProxyAction,
  ) {
    this.upstream = new URL(upstream);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  requests(filter: (r: SeenRequest) => boolean = () => true): SeenRequest[] {
    return this.seen.filter(filter);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const seen: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8') };
    const index = this.seen.push(seen) - 1;
    const action = this.decide(seen, index);
    if (action.kind === 'hang') return;
    if (action.kind === 'respond') {
      res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
      res.end(action.body === undefined ? '' : JSON.stringify(action.body));
      return;
    }
    const upstreamRes = await new Promise<IncomingMessage>((resolve, reject) => {
      const headers = { ...req.headers, host: this.upstream.host };
      const r = httpRequest({ host: this.upstream.hostname, port: this.upstream.port, method: req.method, path: req.url, headers }, resolve);
      r.on('error', reject);
      r.end(body);
    });
    if (action.kind === 'forward') {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      upstreamRes.pipe(res);
      return;
    }
    if (action.kind === 'forward-first-event') {
      // An event stream that breaks after its first event, as a flaky network or proxy does.
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      let text = '';
      upstreamRes.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        const end = text.indexOf('\n\n');
        if (end < 0) return;
        res.write(text.slice(0, end + 2), () => {
          upstreamRes.destroy();
          res.socket?.destroy();
        });
        upstreamRes.removeAllListeners('data');
      });
      return;
    }
    // mmgen has executed the request: read its whole answer, then do not deliver it.
    await new Promise((r) => {
      upstreamRes.on('end', r);
      upstreamRes.resume();
    });
    if (action.kind === 'forward-then-drop') {
      res.socket?.destroy();
      return;
    }
    res.writeHead(action.status, { 'content-type': 'application/json' });
    res.end(action.body === undefined ? '' : JSON.stringify(action.body));
  }
}
