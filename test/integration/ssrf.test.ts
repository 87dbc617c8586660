import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAddress } from '../../src/files/safe-fetch.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * SSRF through every URL mmgen fetches or calls: image_url and audio_url (on
 * every operation and comparison that takes them) and webhook targets (at
 * creation, on update, and at every delivery). The targets are loopback,
 * private, link-local and metadata addresses in every spelling the URL parser
 * accepts (decimal, octal, hex, short, IPv6, IPv4-mapped, NAT64, 6to4), and
 * host names that resolve to loopback. The trap is a real loopback server
 * that counts every TCP connection: a guard that let anything through would
 * show there, whatever the answer said.
 *
 * Provider output downloads do not exist on this branch yet (only the built-in
 * simulator, which downloads nothing); when adapters land they go through the
 * same safeFetch guard (contract §10) and belong in this file.
 */

/** Counts connections; answers a PNG, a WAV, a redirect, or 200 to anything else. */
class Trap {
  server!: Server;
  port = 0;
  connections = 0;
  paths: string[] = [];
  png!: Buffer;

  async start(): Promise<void> {
    this.png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#ff0000' } }).png().toBuffer();
    this.server = createServer((req, res) => {
      this.paths.push(req.url ?? '');
      if (req.url?.startsWith('/redirect-metadata')) {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' });
        return res.end();
      }
      if (req.url?.startsWith('/redirect-local')) {
        res.writeHead(307, { location: `http://127.0.0.1:${this.port}/target` });
        return res.end();
      }
      if (req.url?.endsWith('.png')) return res.end(this.png);
      if (req.url?.includes('404')) res.writeHead(404);
      res.end('<html>ok</html>');
    });
    this.server.on('connection', (_s: Socket) => this.connections++);
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** Spellings of the trap's own address (so a bypass would really connect), and of addresses nothing should reach. */
function forbiddenHosts(port: number, extraNames: string[]): string[] {
  const loopback = [
    '127.0.0.1', '127.1', '127.000.000.001', '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '0177.1', '%31%32%37.0.0.1',
    '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[0:0:0:0:0:ffff:127.0.0.1]', '0.0.0.0', '0', '[::]',
    'localhost', 'LOCALHOST', ...extraNames,
  ].map((h) => `${h}:${port}`);
  const elsewhere = [
    '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '169.254.169.254', '[::ffff:169.254.169.254]', '[::ffff:a9fe:a9fe]',
    '[fe80::1]', '[fd00:ec2::254]', '[fc00::1]', '[64:ff9b::a9fe:a9fe]', '[2002:a9fe:a9fe::1]', '[2001::1]', '[::a9fe:a9fe]',
    '224.0.0.1', '255.255.255.255', '[ff02::1]', '198.18.0.1', '192.0.0.8', '0.1.2.3',
  ];
  return [...loopback, ...elsewhere];
}

describeOnBackend('SSRF: every URL mmgen fetches or calls', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  const trap = new Trap();
  /** Host names on this machine that resolve to a private address (/etc/hosts), besides localhost. */
  const privateNames: string[] = [];
  /**
   * The range each of those resolves to, as the refusal names it: Debian's /etc/hosts puts the machine's own name on
   * loopback (127.0.1.1), a container's on its private interface address.
   */
  const rangeOf = new Map<string, string>([['localhost', 'loopback'], ['LOCALHOST', 'loopback']]);
  let uploadId: string;
  const modelOf = new Map<string, string[]>();

  beforeAll(async () => {
    await trap.start();
    for (const name of [hostname()]) {
      const answers = await lookup(name, { all: true }).catch(() => []);
      if (answers.length > 0 && answers.every((a) => !classifyAddress(a.address).public)) {
        privateNames.push(name);
        rangeOf.set(name, classifyAddress(answers[0]!.address).range);
      }
    }
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_WEBHOOK_RETRY_DELAYS: '3600,3600,3600,3600,3600' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
    for (const m of (await api('GET', '/v1/models', { key: org.live })).body.data) modelOf.set(m.modality, [...(modelOf.get(m.modality) ?? []), m.slug]);
    const up = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: trap.png.length } });
    const u = new URL(up.body.upload_url);
    expect((await fetch(`${s.url}${u.pathname}${u.search}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: trap.png })).status).toBe(200);
    uploadId = up.body.id;
  });
  afterAll(async () => {
    await s?.close();
    await trap.close();
  });

  /** Every operation body field that holds a URL mmgen will fetch, with a request that is valid but for it. */
  const urlFields = (): Array<{ operationId: string; path: string; param: string; body: (url: string) => Record<string, unknown> }> => {
    const m = (modality: string, i = 0) => modelOf.get(modality)![i]!;
    return [
      { operationId: 'createImage', path: '/v1/images', param: 'image_url', body: (url) => ({ model: m('image'), prompt: 'x', image_url: url }) },
      { operationId: 'createVideo', path: '/v1/videos', param: 'image_url', body: (url) => ({ model: m('video'), prompt: 'x', image_url: url }) },
      { operationId: 'createAvatar', path: '/v1/avatars', param: 'image_url', body: (url) => ({ model: m('avatar'), image_url: url, text: 'hi' }) },
      { operationId: 'createAvatar', path: '/v1/avatars', param: 'audio_url', body: (url) => ({ model: m('avatar'), upload_id: uploadId, audio_url: url }) },
      { operationId: 'createThreeD', path: '/v1/three-d', param: 'image_url', body: (url) => ({ model: m('3d'), image_url: url }) },
      { operationId: 'createUpscale', path: '/v1/upscale', param: 'image_url', body: (url) => ({ model: m('upscale'), image_url: url }) },
      { operationId: 'createComparison', path: '/v1/comparisons', param: 'params.image_url', body: (url) => ({ models: [m('upscale'), m('upscale', 1)], params: { image_url: url } }) },
      { operationId: 'createComparison', path: '/v1/comparisons', param: 'params.audio_url', body: (url) => ({ models: [m('avatar'), m('avatar', 1)], params: { upload_id: uploadId, audio_url: url } }) },
    ];
  };

  it('the table above covers every URL field of the OpenAPI document', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const found = new Set<string>();
    for (const ops of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(ops)) {
        const props = op.requestBody?.content?.['application/json']?.schema?.properties ?? {};
        for (const [name, schema] of Object.entries<any>(props)) {
          if (name.endsWith('_url') || name === 'url' || schema.format === 'uri') found.add(`${op.operationId}.${name}`);
        }
      }
    }
    // Checkout's return_url is never fetched: Stripe sends the customer's browser there, and a URL off this
    // instance's origin is refused (stripe-billing.test.ts), so no open redirect either.
    const notFetched = ['createCheckout.return_url', 'createPaymentMethodSetup.return_url'];
    const covered = new Set([...urlFields().map((f) => `${f.operationId}.${f.param}`), 'createWebhook.url', 'updateWebhook.url', ...notFetched]);
    expect([...found].filter((f) => !covered.has(f))).toEqual([]);
  });

  it('image_url and audio_url: every forbidden target is 400 naming the field; nothing is contacted, reserved or created', async () => {
    const wallet = (await api('GET', '/v1/wallet', { key: org.live })).body;
    const generations = (await api('GET', '/v1/generations?limit=100', { key: org.live })).body.data.length;
    const before = trap.connections;
    const wrong: string[] = [];
    for (const f of urlFields()) {
      for (const host of forbiddenHosts(trap.port, privateNames)) {
        const url = `https://${host}/a.png`;
        const res = await api('POST', f.path, { key: org.live, body: f.body(url) });
        if (res.status !== 400 || res.body.error.param !== f.param || !/address|not a valid/.test(res.body.error.message)) {
          wrong.push(`${f.operationId} ${f.param} ${url}: ${res.status} ${JSON.stringify(res.body.error ?? res.body).slice(0, 160)}`);
        }
      }
      // Plain http is refused for what it is, before any address is looked at.
      const http = await api('POST', f.path, { key: org.live, body: f.body(`http://127.0.0.1:${trap.port}/a.png`) });
      if (http.status !== 400 || !/https/.test(http.body.error?.message)) wrong.push(`${f.operationId} ${f.param} http: ${http.status}`);
    }
    expect(wrong).toEqual([]);
    expect(trap.connections - before).toBe(0);
    expect((await api('GET', '/v1/wallet', { key: org.live })).body).toEqual(wallet);
    expect((await api('GET', '/v1/generations?limit=100', { key: org.live })).body.data.length).toBe(generations);
  });

  describe('webhook targets', () => {
    it('a forbidden IP literal, in any spelling, is 400 on create and on update, in both modes', async () => {
      const ok = await api('POST', '/v1/webhooks', { key: org.test, body: { url: 'https://hooks.example/ok', events: ['*'] } });
      expect(ok.status).toBe(201);
      const wrong: string[] = [];
      const names = new Set(['localhost', 'LOCALHOST', ...privateNames]);
      for (const host of forbiddenHosts(trap.port, privateNames)) {
        // Host names are resolved at delivery, not at creation (DNS answers change): see the next test.
        if (names.has(host.replace(/:\d+$/, ''))) continue;
        for (const [key, scheme] of [[org.test, 'http'], [org.live, 'https']] as const) {
          const url = `${scheme}://${host}/hook`;
          const created = await api('POST', '/v1/webhooks', { key, body: { url, events: ['*'] } });
          if (created.status !== 400 || created.body.error.param !== 'url') wrong.push(`create ${url}: ${created.status}`);
        }
        const updated = await api('PATCH', `/v1/webhooks/${ok.body.id}`, { key: org.test, body: { url: `http://${host}/hook` } });
        if (updated.status !== 400 || updated.body.error.param !== 'url') wrong.push(`update ${host}: ${updated.status}`);
      }
      expect(wrong).toEqual([]);
      expect((await api('GET', `/v1/webhooks/${ok.body.id}`, { key: org.test })).body.url).toBe('https://hooks.example/ok');
    });

    async function failedAttempt(key: string, webhookId: string) {
      const d = (await api('POST', `/v1/webhooks/${webhookId}/test`, { key, body: {} })).body;
      for (let i = 0; i < 200; i++) {
        const got = (await api('GET', `/v1/webhooks/${webhookId}/deliveries/${d.id}`, { key })).body;
        if (got.attempts >= 1) return got;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('the delivery was never attempted');
    }

    it('a host name that resolves to loopback (or another private address) is refused at delivery, on the resolved address; the receiver is never contacted', async () => {
      const before = trap.connections;
      for (const name of ['localhost', 'LOCALHOST', ...privateNames]) {
        const created = await api('POST', '/v1/webhooks', { key: org.test, body: { url: `http://${name}:${trap.port}/hook`, events: ['*'] } });
        expect(created.status, name).toBe(201);
        const d = await failedAttempt(org.test, created.body.id);
        expect(d, name).toMatchObject({ status: 'failed', attempts: 1, last_response_status: null });
        expect(d.last_error, name).toMatch(`is a ${rangeOf.get(name)} address`);
        expect(d.attempt_log[0].error).toBe(d.last_error);
      }
      expect(trap.connections - before).toBe(0);
    });

    it('a literal stored while the operator allowed private targets is refused by a node that does not', async () => {
      // A second node on the same database, with the switch on and no worker: it only writes.
      const permissive = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1' }, { sameDbAs: s, worker: false });
      try {
        const created = await client(permissive.url)('POST', '/v1/webhooks', { key: org.test, body: { url: `http://127.0.0.1:${trap.port}/hook`, events: ['*'] } });
        expect(created.status).toBe(201);
        const before = trap.connections;
        const d = await failedAttempt(org.test, created.body.id);
        expect(d.last_error).toMatch(/127\.0\.0\.1 is a loopback address/);
        expect(trap.connections - before).toBe(0);
      } finally {
        await permissive.close();
      }
    });
  });

  describe('redirects (operator allows private targets, so the trap is reachable)', () => {
    let open: TestServer;
    let openApi: ReturnType<typeof client>;
    let o: TestOrg;
    beforeAll(async () => {
      open = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_WEBHOOK_RETRY_DELAYS: '3600,3600,3600,3600,3600' });
      openApi = client(open.url);
      o = await open.createOrg({ credits: 100_000 });
    });
    afterAll(async () => open?.close());

    it('are never followed: to the metadata service or back to loopback, from image_url, audio_url or a webhook', async () => {
      for (const path of ['/redirect-metadata', '/redirect-local']) {
        const img = await openApi('POST', '/v1/upscale', { key: o.live, body: { model: modelOf.get('upscale')![0], image_url: `http://127.0.0.1:${trap.port}${path}` } });
        expect(img.status).toBe(400);
        expect(img.body.error).toMatchObject({ param: 'image_url' });
        expect(img.body.error.message).toMatch(/redirect/);
        const audio = await openApi('POST', '/v1/avatars', { key: o.live, body: { model: modelOf.get('avatar')![0], image_url: `http://127.0.0.1:${trap.port}/p.png`, audio_url: `http://127.0.0.1:${trap.port}${path}` } });
        expect(audio.status).toBe(400);
        expect(audio.body.error).toMatchObject({ param: 'audio_url' });
        const hook = await openApi('POST', '/v1/webhooks', { key: o.live, body: { url: `http://127.0.0.1:${trap.port}${path}`, events: ['*'] } });
        const d = (await openApi('POST', `/v1/webhooks/${hook.body.id}/test`, { key: o.live, body: {} })).body;
        let got: any;
        for (let i = 0; i < 200 && !(got?.attempts >= 1); i++) {
          await new Promise((r) => setTimeout(r, 25));
          got = (await openApi('GET', `/v1/webhooks/${hook.body.id}/deliveries/${d.id}`, { key: o.live })).body;
        }
        expect(got).toMatchObject({ status: 'failed', last_response_status: path === '/redirect-metadata' ? 302 : 307 });
        expect(got.last_error).toMatch(/redirect/);
      }
      expect(trap.paths).not.toContain('/target');
    });

    it('audio_url must be audio: an image, an HTML page or a 404 is 400 naming it', async () => {
      for (const path of ['/p.png', '/page', '/missing-404']) {
        const res = await openApi('POST', '/v1/avatars', { key: o.live, body: { model: modelOf.get('avatar')![0], image_url: `http://127.0.0.1:${trap.port}/p.png`, audio_url: `http://127.0.0.1:${trap.port}${path}` } });
        expect(res.status, path).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'audio_url' });
      }
    });
  });
});
