import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Webhook receivers that misbehave: slow past the timeout, hanging, answering
 * with a huge body or huge headers, failing TLS, resetting the connection,
 * closing mid-answer, speaking garbage, redirecting. Each is one failed
 * attempt (recorded, retried later, the receiver asked exactly once), and no
 * bad receiver delays deliveries to the others.
 *
 * The timeout is MMGEN_WEBHOOK_TIMEOUT_MS, 15 s by default (service spec §6);
 * here it is 1.5 s so the file runs in seconds. The retry delay is an hour, so
 * only the first attempt happens.
 */
const TIMEOUT_MS = 1500;

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

/** One request as the receiver saw it: when it came, and when its connection closed (for a hang: mmgen's timeout). */
interface Received {
  path: string;
  arrivedAt: number;
  closedAt?: number;
}

/** One loopback HTTP server; the path's first segment picks the behaviour; every request and connection is counted. */
class Receivers {
  server!: Server;
  base = '';
  readonly hits = new Map<string, number>();
  readonly requests: Received[] = [];
  readonly sockets = new Set<Socket>();
  constructor(private readonly behaviours: Record<string, Behaviour>) {}

  async start(): Promise<void> {
    this.server = createHttpServer((req, res) => {
      const kind = (req.url ?? '').split('/')[1] ?? '';
      this.hits.set(req.url ?? '', (this.hits.get(req.url ?? '') ?? 0) + 1);
      const seen: Received = { path: req.url ?? '', arrivedAt: Date.now() };
      this.requests.push(seen);
      res.on('close', () => (seen.closedAt ??= Date.now()));
      req.resume();
      (this.behaviours[kind] ?? ((_q, r) => r.end('ok')))(req, res);
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }
}

const later = (ms: number, fn: () => void) => {
  const t = setTimeout(fn, ms);
  t.unref();
};

const behaviours: Record<string, Behaviour> = {
  ok: (_req, res) => res.end('ok'),
  // Answers 200, but only after the timeout.
  slow: (_req, res) => later(TIMEOUT_MS * 2, () => res.end('late')),
  // Never answers at all.
  hang: () => {},
  // 200 at once, then a body that trickles forever.
  trickle: (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const t = setInterval(() => res.write('.'), 100);
    res.on('close', () => clearInterval(t));
  },
  // 200 with 50 MB: only the start is read, and it succeeds.
  huge: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(50 * 1024 * 1024) });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const pump = () => {
      while (sent < 50 && res.write(chunk)) sent++;
      if (sent < 50) res.once('drain', () => (sent++, pump()));
      else res.end();
    };
    pump();
  },
  // 500 with 50 MB of body: a failure, and it does not take long either.
  hugefail: (_req, res) => {
    res.writeHead(500);
    const chunk = Buffer.alloc(1024 * 1024, 0x62);
    let sent = 0;
    const pump = () => {
      while (sent < 50 && res.write(chunk)) sent++;
      if (sent < 50) res.once('drain', () => (sent++, pump()));
      else res.end();
    };
    pump();
  },
  // Headers far beyond what any client accepts.
  hugeheaders: (req, res) => {
    req.socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(200_000)}\r\nContent-Length: 2\r\n\r\nok`);
    res.destroy();
  },
  reset: (req) => req.socket.resetAndDestroy(),
  // Promises 1000 bytes, sends 10, hangs up.
  cutoff: (req, res) => {
    req.socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789');
    res.destroy();
  },
  garbage: (req, res) => {
    req.socket.write('SMTP ready\r\n\r\nthis is not http\r\n');
    res.destroy();
  },
  redirect: (_req, res) => {
    res.writeHead(301, { location: '/ok/moved' });
    res.end();
  },
};

/** A self-signed certificate for 127.0.0.1 (made by the selfsigned package: no system openssl needed). */
async function selfSigned(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { key: pems.private, cert: pems.cert };
}

describeOnBackend('webhook receivers that misbehave', 'postgres', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const rx = new Receivers(behaviours);
  let tls: Server;
  let tlsBase = '';
  let tlsHits = 0;
  let refusedBase = '';

  beforeAll(async () => {
    await rx.start();
    tls = createHttpsServer(await selfSigned(), (_req, res) => {
      tlsHits++;
      res.end('ok');
    });
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    tlsBase = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    // A port with nothing listening on it.
    const closed = createTcpServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    refusedBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((r) => closed.close(r));
    s = await startTestServer(backend, {
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      MMGEN_WEBHOOK_RETRY_DELAYS: '3600,3600,3600,3600,3600',
    });
    api = client(s.url);
    org = await s.createOrg();
  });
  afterAll(async () => {
    await s?.close();
    await rx.close();
    tls?.closeAllConnections();
    await new Promise((r) => tls?.close(r));
  });

  let n = 0;
  async function hookAt(url: string) {
    const res = await api('POST', '/v1/webhooks', { key: org.test, body: { url, events: ['usage.anomaly_detected'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  }

  async function deliveryOf(webhookId: string, deliveryId: string, done: (d: any) => boolean, timeoutMs = 20_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const d = (await api('GET', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`, { key: org.test })).body;
      if (done(d)) return d;
      if (Date.now() > deadline) throw new Error(`delivery ${deliveryId}: ${JSON.stringify(d)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function sendTest(webhookId: string): Promise<string> {
    const res = await api('POST', `/v1/webhooks/${webhookId}/test`, { key: org.test, body: {} });
    expect(res.status).toBe(202);
    return res.body.id;
  }

  it('the default timeout is the 15 seconds of the service spec', () => {
    expect(loadConfig({}).webhookTimeoutMs).toBe(15_000);
  });

  const failures: Array<{ kind: string; url: () => string; error: RegExp; status?: number | null; maxMs?: number; minMs?: number; asked?: () => number }> = [
    { kind: 'slow (answers after the timeout)', url: () => `${rx.base}/slow/${++n}`, error: /1500 ms|timed out/, status: null, minMs: TIMEOUT_MS - 100, maxMs: TIMEOUT_MS + 1000 },
    { kind: 'hanging (never answers)', url: () => `${rx.base}/hang/${++n}`, error: /1500 ms|timed out/, status: null, minMs: TIMEOUT_MS - 100, maxMs: TIMEOUT_MS + 1000 },
    { kind: 'trickling (200, then a body that never ends)', url: () => `${rx.base}/trickle/${++n}`, error: /1500 ms|timed out/, minMs: TIMEOUT_MS - 100, maxMs: TIMEOUT_MS + 1000 },
    { kind: 'a 500 with a 50 MB body', url: () => `${rx.base}/hugefail/${++n}`, error: /HTTP 500/, status: 500, maxMs: TIMEOUT_MS },
    { kind: 'headers of 200 KB', url: () => `${rx.base}/hugeheaders/${++n}`, error: /failed|header/i, status: null, maxMs: TIMEOUT_MS },
    { kind: 'a connection reset', url: () => `${rx.base}/reset/${++n}`, error: /connection|ECONNRESET|socket/i, status: null, maxMs: TIMEOUT_MS },
    { kind: 'hanging up mid-answer', url: () => `${rx.base}/cutoff/${++n}`, error: /connection|closed|socket|failed/i, maxMs: TIMEOUT_MS },
    { kind: 'not speaking HTTP', url: () => `${rx.base}/garbage/${++n}`, error: /failed|parse|connection/i, status: null, maxMs: TIMEOUT_MS },
    { kind: 'a redirect', url: () => `${rx.base}/redirect/${++n}`, error: /redirect/, status: 301, maxMs: TIMEOUT_MS },
    { kind: 'a self-signed certificate', url: () => `${tlsBase}/tls/${++n}`, error: /TLS|certificate|SELF_SIGNED/i, status: null, maxMs: TIMEOUT_MS, asked: () => tlsHits },
    { kind: 'https to a plain-http server', url: () => `${rx.base.replace('http:', 'https:')}/ok/${++n}`, error: /TLS|SSL|EPROTO|wrong version|failed/i, status: null, maxMs: TIMEOUT_MS },
    { kind: 'nothing listening', url: () => `${refusedBase}/x`, error: /ECONNREFUSED|connection/, status: null, maxMs: TIMEOUT_MS },
  ];

  describe('each is exactly one failed attempt', () => {
    for (const f of failures) {
      it(f.kind, async () => {
        const url = f.url();
        const hook = await hookAt(url);
        const tlsBefore = tlsHits;
        const id = await sendTest(hook);
        const d = await deliveryOf(hook, id, (x) => x.attempts >= 1);
        // Some more time, to see that nothing else happens.
        await new Promise((r) => setTimeout(r, 300));
        const again = (await api('GET', `/v1/webhooks/${hook}/deliveries/${id}`, { key: org.test })).body;
        expect(again).toMatchObject({ status: 'failed', attempts: 1 });
        expect(again.next_attempt_at).not.toBeNull();
        expect(again.attempt_log).toHaveLength(1);
        if (f.status !== undefined) expect(again.last_response_status).toBe(f.status);
        expect(again.last_error).toMatch(f.error);
        expect(again.last_error.length).toBeLessThanOrEqual(500);
        const ms = again.attempt_log[0].duration_ms;
        if (f.minMs !== undefined) expect(ms).toBeGreaterThanOrEqual(f.minMs);
        if (f.maxMs !== undefined) expect(ms).toBeLessThan(f.maxMs);
        // The receiver was asked once (undici does not retry a POST by itself).
        const path = new URL(url).pathname;
        if (url.startsWith(rx.base)) expect(rx.hits.get(path) ?? 0).toBeLessThanOrEqual(1);
        if (f.asked) expect(f.asked() - tlsBefore).toBe(0);
        void d;
      });
    }

    it('a 200 with a 50 MB body is a success, read only as far as needed', async () => {
      const hook = await hookAt(`${rx.base}/huge/${++n}`);
      const d = await deliveryOf(hook, await sendTest(hook), (x) => x.attempts >= 1);
      expect(d).toMatchObject({ status: 'succeeded', attempts: 1, last_response_status: 200, last_error: null });
      expect(d.attempt_log[0].duration_ms).toBeLessThan(TIMEOUT_MS);
    });
  });

  describe('no bad receiver delays the others', () => {
    // Healthy receivers live on another origin, as another customer's would.
    const healthy = new Receivers(behaviours);
    beforeAll(async () => healthy.start());
    afterAll(async () => healthy.close());

    /** A backlog of `count` due deliveries to one webhook, made at once (the way a burst of events would). */
    async function burst(webhookId: string, count: number): Promise<void> {
      await s.db.query(
        `INSERT INTO events (id, organization_id, mode, type, data, fanned_out_at)
         SELECT 'evt_burst' || $3 || g, $1, 'test', 'generation.completed', '{}'::jsonb, now() FROM generate_series(1, $2::int) g`,
        [org.id, count, webhookId.slice(4, 14)],
      );
      await s.db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, organization_id, mode, next_attempt_at)
         SELECT 'whd_burst' || $3 || g, $4, 'evt_burst' || $3 || g, 'generation.completed', $1, 'test', now() FROM generate_series(1, $2::int) g`,
        [org.id, count, webhookId.slice(4, 14), webhookId],
      );
      s.runtime.deps.webhooksDue.notify();
    }

    /** Attempts still open at these bad receivers' paths (each holds its delivery until mmgen's timeout ends it). */
    const heldOpen = (paths: string[]) => rx.requests.filter((r) => paths.includes(r.path) && r.closedAt === undefined);

    /**
     * Each healthy hook's test delivery arrives, at the first attempt, before any attempt held open by a bad receiver
     * when it was sent has timed out. A healthy delivery queued behind a held one could only go once a timeout freed
     * its place, so this is told by the order of events, not by a wall-clock budget that a loaded machine could miss.
     */
    async function deliveredBeforeAnyTimeout(hooks: string[], heldPaths: string[]): Promise<void> {
      // The bad receivers' backlog is being worked on: some attempt is held open.
      await expect.poll(() => heldOpen(heldPaths).length, { timeout: 10_000 }).toBeGreaterThan(0);
      const held = heldOpen(heldPaths);
      const ids = await Promise.all(hooks.map(async (g) => [g, await sendTest(g)] as const));
      for (const [g, id] of ids) expect((await deliveryOf(g, id, (x) => x.status === 'succeeded', 30_000)).attempts).toBe(1);
      const arrivals = await Promise.all(
        hooks.map(async (g) => {
          const path = new URL((await api('GET', `/v1/webhooks/${g}`, { key: org.test })).body.url as string).pathname;
          return Math.max(...healthy.requests.filter((r) => r.path === path).map((r) => r.arrivedAt));
        }),
      );
      const firstTimeout = Math.min(...held.map((r) => r.closedAt ?? Number.POSITIVE_INFINITY));
      expect(Math.max(...arrivals) - firstTimeout, 'ms from the first timeout of a held attempt to the last healthy delivery').toBeLessThan(0);
    }

    it('a burst of 200 to a hanging receiver does not hold up a healthy one', async () => {
      const bad = await hookAt(`${rx.base}/hang/burst`);
      const good = await hookAt(`${healthy.base}/ok/after-burst`);
      await burst(bad, 200);
      await deliveredBeforeAnyTimeout([good], ['/hang/burst']);
      await api('DELETE', `/v1/webhooks/${bad}`, { key: org.test });
    });

    it('slow, trickling, resetting and hanging receivers with backlogs at once: the healthy ones get every delivery on time', async () => {
      const badHooks = await Promise.all(['slow', 'hang', 'trickle', 'reset', 'garbage'].map((k) => hookAt(`${rx.base}/${k}/mixed`)));
      const goodHooks = await Promise.all([1, 2, 3].map((i) => hookAt(`${healthy.base}/ok/mixed-${i}`)));
      for (const b of badHooks) await burst(b, 40);
      await deliveredBeforeAnyTimeout(goodHooks, ['/slow/mixed', '/hang/mixed', '/trickle/mixed']);
      for (const b of badHooks) await api('DELETE', `/v1/webhooks/${b}`, { key: org.test });
    });
  });
});
