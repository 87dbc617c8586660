import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { Mmgen } from '@mmgen/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openBrowser } from '../../test/helpers/e2e.js';
import type { TestOrg, TestServer } from '../../test/helpers/server.js';
import { png, startMmgen } from './helpers.js';

// Compiling, and a browser starting on a shared machine: generous limits.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const SDK_DIR = join(process.cwd(), 'sdk');


describe('the SDK outside tsx: built JavaScript in plain Node, and a bundle in a real browser', () => {
  let s: TestServer;
  let org: TestOrg;
  let work: string;
  // The browser's origin: it serves the test page and passes everything else to mmgen, like a
  // reverse proxy in front of mmgen and a dashboard. mmgen sends no CORS headers, so mmgen's
  // MMGEN_PUBLIC_URL is this origin and presigned upload and file URLs are same-origin too.
  let site: Server;
  let siteUrl: string;
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();

  beforeAll(async () => {
    site = createServer((req, res) => handle(req, res));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    s = await startMmgen({ MMGEN_PUBLIC_URL: siteUrl });
    org = await s.createOrg({ plan: 'team', credits: 1000 });
    work = mkdtempSync(join(tmpdir(), 'mmgen-sdk-portability-'));
  });
  afterAll(async () => {
    site?.closeAllConnections();
    await new Promise((r) => (site ? site.close(r) : r(undefined)));
    await s?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('`npm run build` output, installed as @mmgen/sdk, runs in plain Node (no tsx, no TypeScript)', async () => {
    const pkg = join(work, 'node_modules', '@mmgen', 'sdk');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(join(SDK_DIR, 'package.json'), join(pkg, 'package.json'));
    await run(process.execPath, [join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(SDK_DIR, 'tsconfig.build.json'), '--outDir', join(pkg, 'dist')]);
    expect(existsSync(join(pkg, 'dist', 'index.d.ts'))).toBe(true);
    const script = join(work, 'consumer.mjs');
    writeFileSync(
      script,
      `import Mmgen, { verifyWebhook, signWebhookPayload, NotFoundError } from '@mmgen/sdk';
const mmgen = new Mmgen();
const models = await mmgen.models.list({ modality: 'video' });
const image = await mmgen.images.create({ model: 'flux-schnell', prompt: 'plain node', width: 256, height: 256 });
const missing = await mmgen.generations.get('gen_nope').catch((e) => e instanceof NotFoundError && e.code);
const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', created_at: new Date().toISOString(), data: {} });
const event = await verifyWebhook(body, await signWebhookPayload('whsec_x', body), 'whsec_x');
console.log(JSON.stringify({ videoModels: models.data.length, image: image.status, missing, event: event.id }));
`,
    );
    // Plain node, from a directory outside the repository: no tsx loader, no source condition.
    const { stdout } = await run(process.execPath, [script], { cwd: work, env: { ...process.env, NODE_OPTIONS: '', MMGEN_API_KEY: org.test, MMGEN_BASE_URL: s.url } });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ image: 'succeeded', missing: 'resource_not_found', event: 'evt_1' });
    expect(out.videoModels).toBeGreaterThan(3);
  });

  it('bundles for the browser with no Node built-in, and works in headless Chromium: requests, retries, SSE wait, upload, Web Crypto verification', async () => {
    // esbuild refuses node:* and Node built-ins on the browser platform, so this build is itself the check.
    const bundle = await build({ entryPoints: [join(SDK_DIR, 'src', 'index.ts')], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
    const js = bundle.outputFiles[0]!.text;
    expect(js).not.toMatch(/from\s*["']node:/);

    // A real delivery for the browser to verify: a webhook.test event mmgen sends to a loopback receiver.
    const node = new Mmgen({ apiKey: org.test, baseURL: s.url });
    let secret = '';
    const delivery = new Promise<{ raw: string; signature: string }>((resolve) => {
      const receiver = createServer((req, res) => {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
        req.on('end', () => {
          res.end('ok');
          resolve({ raw, signature: String(req.headers['x-service-signature']) });
          receiver.close();
        });
      }).listen(0, '127.0.0.1', async () => {
        const hook = await node.webhooks.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, events: ['generation.completed'] });
        secret = hook.secret;
        await node.webhooks.test(hook.id);
      });
    });
    const real = await delivery;

    // The page and mmgen on one origin (mmgen sends no CORS headers): /v1 and /files are passed to mmgen;
    // the first GET /v1/wallet gets a 503 so that the retry runs in the browser as well.
    let walletCalls = 0;
    const idempotencyKeys: string[] = [];
    let resolveResult!: (v: Record<string, unknown>) => void;
    const result = new Promise<Record<string, unknown>>((r) => (resolveResult = r));
    const page = `<!doctype html><meta charset="utf-8"><script type="module">
import { Mmgen, verifyWebhook, WebhookVerificationError } from '/sdk.js';
const out = {};
try {
  try { new Mmgen({ apiKey: 'sk_test_x', baseURL: location.origin }); } catch (e) { out.guard = e.message; }
  const mmgen = new Mmgen({ apiKey: ${JSON.stringify(org.test)}, baseURL: location.origin, dangerouslyAllowBrowser: true });
  out.wallet = (await mmgen.wallet.get()).object;
  out.image = (await mmgen.images.create({ model: 'flux-schnell', prompt: 'in a browser', width: 256, height: 256 })).status;
  const states = [];
  const video = await mmgen.videos.create({ model: 'wan-2.2', prompt: 'browser wait', duration_s: 1, simulate: { delay_ms: 400 } });
  out.video = (await mmgen.generations.wait(video, { onUpdate: (g) => states.push(g.status) })).status;
  out.states = states;
  const bytes = Uint8Array.from(atob(${JSON.stringify((await png(32, 32)).toString('base64'))}), (c) => c.charCodeAt(0));
  out.upload = (await mmgen.uploads.upload(new Blob([bytes], { type: 'image/png' }))).status;
  const raw = ${JSON.stringify(real.raw)}, sig = ${JSON.stringify(real.signature)}, secret = ${JSON.stringify(secret)};
  out.verified = (await verifyWebhook(raw, sig, secret)).type;
  out.tampered = await verifyWebhook(raw.replace('webhook.test', 'webhook.tesT'), sig, secret).catch((e) => e instanceof WebhookVerificationError && e.reason);
  out.stale = await verifyWebhook(raw, sig, secret, { nowSeconds: Math.floor(Date.now() / 1000) + 301 }).catch((e) => e.reason);
} catch (e) { out.error = String(e && e.stack || e); }
await fetch('/result', { method: 'POST', body: JSON.stringify(out) });
</script>`;
    const upstream = new URL(s.url);
    handle = (req, res) => {
      const path = req.url ?? '/';
      if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      if (path === '/sdk.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      if (path === '/result') {
        let text = '';
        req.on('data', (c: Buffer) => (text += c.toString('utf8')));
        req.on('end', () => {
          res.end('ok');
          resolveResult(JSON.parse(text) as Record<string, unknown>);
        });
        return;
      }
      if (path === '/v1/wallet' && walletCalls++ === 0) {
        return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"type":"api_error","code":"internal_error","message":"warming up"}}');
      }
      if (req.headers['idempotency-key']) idempotencyKeys.push(String(req.headers['idempotency-key']));
      const fwd = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: { ...req.headers, host: upstream.host } }, (up: IncomingMessage) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(fwd);
    };
    // A page of the run's Chromium (the e2e tier's), in a context of its own.
    const e2e = await openBrowser();
    try {
      await (await e2e.newPage('sdk bundle')).goto(`${siteUrl}/`);
      const out = await Promise.race([result, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the page reported nothing in 60 s')), 60_000))]);
      expect(out.error).toBeUndefined();
      expect(out).toMatchObject({ wallet: 'wallet', image: 'succeeded', video: 'succeeded', upload: 'uploaded', verified: 'webhook.test', tampered: 'signature_mismatch', stale: 'timestamp_out_of_tolerance' });
      expect(String(out.guard)).toMatch(/dangerouslyAllowBrowser/);
      expect((out.states as string[]).at(-1)).toBe('succeeded');
      expect(walletCalls).toBe(2);
      expect(idempotencyKeys.filter((k) => k.startsWith('mmgen-sdk-')).length).toBe(2);
    } finally {
      await e2e.close();
    }
  });
});
