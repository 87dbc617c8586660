import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress, FetchFailed, FetchRefused, parseIpLiteral, safeFetch, type SafeFetchOptions } from '../../src/files/safe-fetch.js';

// Only loopback servers are ever contacted; every "refused" case must be refused before a request reaches anything.

describe('address classifier', () => {
  const privateSpellings = [
    '127.0.0.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '::1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:7f00:1]',
    '169.254.169.254',
    '::ffff:169.254.169.254',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    '100.64.0.1',
    '0.0.0.0',
    '0',
    '::',
    '10.0.0.1',
    '192.168.1.1',
    '172.16.0.1',
    '172.31.255.255',
    '255.255.255.255',
    '224.0.0.1',
    'ff02::1',
    '::7f00:1',
    '64:ff9b::7f00:1',
    '198.18.0.1',
    'not-an-ip',
  ];
  it.each(privateSpellings)('%s is not public', (a) => {
    expect(classifyAddress(a).public).toBe(false);
  });

  it('names the range, with IPv4-mapped forms shown as IPv4', () => {
    expect(classifyAddress('2130706433')).toEqual({ address: '127.0.0.1', range: 'loopback', public: false });
    expect(classifyAddress('::ffff:7f00:1')).toMatchObject({ address: '127.0.0.1', range: 'loopback' });
    expect(classifyAddress('169.254.169.254').range).toBe('linkLocal');
    expect(classifyAddress('100.64.0.1').range).toBe('carrierGradeNat');
    expect(classifyAddress('fc00::1').range).toBe('uniqueLocal');
  });

  it('public unicast addresses are allowed (classification only; nothing is contacted)', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '::ffff:8.8.8.8', '2606:4700:4700::1111', '[2a00:1450::1]']) {
      expect(classifyAddress(a).public, a).toBe(true);
    }
  });

  it('parses literal hosts the way the URL parser does and leaves names alone', () => {
    expect(parseIpLiteral('0x7f.1')?.toString()).toBe('127.0.0.1');
    expect(parseIpLiteral('0177.0.0.1')?.toString()).toBe('127.0.0.1');
    expect(parseIpLiteral('localhost')).toBeNull();
    expect(parseIpLiteral('example.com')).toBeNull();
  });
});

describe('safeFetch', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.end('hello'),
    '/missing': (_req, res) => {
      res.writeHead(404);
      res.end('nope');
    },
    '/redirect': (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/target` });
      res.end();
    },
    '/target': (_req, res) => res.end('should never be reached'),
    // No Content-Length: the bound must hold while streaming.
    '/stream': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 64 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    },
    '/declared-big': (_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
      res.write('x');
    },
    '/hang': (_req, res) => {
      res.writeHead(200);
      res.write('partial');
    },
    '/silent': () => {},
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      (routes[req.url ?? ''] ?? routes['/missing']!)(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const open: SafeFetchOptions = { allowPrivateNetwork: true, maxBytes: 1024 * 1024, timeoutMs: 5000 };
  const guarded: SafeFetchOptions = { ...open, allowPrivateNetwork: false };

  async function refusal(url: string, opts: SafeFetchOptions): Promise<FetchRefused> {
    const err = await safeFetch(url, opts).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err, url).toBeInstanceOf(FetchRefused);
    return err as FetchRefused;
  }

  it('fetches from loopback when private networks are allowed', async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/ok`, open);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.remoteAddress).toBe('127.0.0.1');
  });

  it('returns non-2xx answers for the caller to judge', async () => {
    const res = await safeFetch(`http://127.0.0.1:${port}/missing`, open);
    expect(res.status).toBe(404);
  });

  it('refuses literal private addresses in every spelling, before connecting', async () => {
    const before = seen.length;
    for (const host of ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const err = await refusal(`https://${host}:${port}/ok`, guarded);
      expect(err.reason, host).toBe('private_address');
    }
    // Never contacted: link-local metadata, private ranges, CGNAT, unique-local.
    for (const host of ['169.254.169.254', '10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', '0.0.0.0', '[fe80::1]', '[fc00::1]']) {
      const err = await refusal(`https://${host}/`, guarded);
      expect(err.reason, host).toBe('private_address');
    }
    expect(seen.length).toBe(before);
  });

  it('refuses a name that resolves to loopback: the resolved address is checked, not the text', async () => {
    const before = seen.length;
    const err = await refusal(`https://localhost:${port}/ok`, guarded);
    expect(err.reason).toBe('private_address');
    expect(err.message).toMatch(/localhost .*loopback/);
    expect(seen.length).toBe(before);
  });

  it('only https unless private networks are allowed', async () => {
    const err = await refusal('http://example.com/', guarded);
    expect(err.reason).toBe('scheme');
    expect((await refusal('ftp://127.0.0.1/', open)).reason).toBe('scheme');
    expect((await refusal('file:///etc/passwd', open)).reason).toBe('scheme');
    expect((await refusal('not a url', open)).reason).toBe('invalid_url');
  });

  it('does not follow redirects', async () => {
    const before = seen.filter((u) => u === '/target').length;
    const err = await refusal(`http://127.0.0.1:${port}/redirect`, open);
    expect(err.reason).toBe('redirect');
    expect(err.detail).toMatchObject({ status: 302, location: `http://127.0.0.1:${port}/target` });
    expect(seen.filter((u) => u === '/target').length).toBe(before);
  });

  it('enforces the size bound while streaming', async () => {
    const err = await safeFetch(`http://127.0.0.1:${port}/stream`, { ...open, maxBytes: 100 * 1024 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchFailed);
    expect((err as FetchFailed).reason).toBe('too_large');
    // Exactly at the bound is fine.
    const res = await safeFetch(`http://127.0.0.1:${port}/stream`, { ...open, maxBytes: 1024 * 1024 });
    expect(res.body.length).toBe(1024 * 1024);
  });

  it('refuses a declared Content-Length over the bound without reading it', async () => {
    const err = await safeFetch(`http://127.0.0.1:${port}/declared-big`, { ...open, maxBytes: 1024 }).catch((e: unknown) => e);
    expect((err as FetchFailed).reason).toBe('too_large');
  });

  it('enforces the overall timeout, for headers and for a stalled body', async () => {
    for (const path of ['/silent', '/hang']) {
      const started = Date.now();
      const err = await safeFetch(`http://127.0.0.1:${port}${path}`, { ...open, timeoutMs: 300 }).catch((e: unknown) => e);
      expect(err, path).toBeInstanceOf(FetchFailed);
      expect((err as FetchFailed).reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3000);
    }
  });

  it('reports a refused connection as connect', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const err = await safeFetch(`http://127.0.0.1:${closedPort}/`, open).catch((e: unknown) => e);
    expect((err as FetchFailed).reason).toBe('connect');
  });
});
