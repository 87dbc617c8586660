import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { registerDashboard } from '../../src/http/dashboard.js';

/** How /dashboard is served, on a stand-in build (the real one is driven by test/e2e/dashboard.test.ts). */
describe('serving the dashboard', () => {
  let app: FastifyInstance;
  let url: string;
  let root: string;
  const config = loadConfig({ MMGEN_PUBLIC_URL: 'https://files.example.com', LOG_LEVEL: 'silent' });

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'mmgen-dash-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/dashboard/assets/index-abc123.js"></script>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = Fastify();
    await registerDashboard(app, config, root);
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html at /dashboard and /dashboard/, revalidated, with a strict CSP', async () => {
    for (const path of ['/dashboard', '/dashboard/']) {
      const res = await fetch(url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      // Signed media URLs live under the public URL.
      expect(csp).toMatch(/img-src [^;]*https:\/\/files\.example\.com/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('answers client-side routes with index.html (deep links work)', async () => {
    const res = await fetch(`${url}/dashboard/generations/gen_123`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="root">');
  });

  it('caches hashed assets for a year; a missing asset is a 404, never the page', async () => {
    const res = await fetch(`${url}/dashboard/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${url}/dashboard/assets/index-gone.js`)).status).toBe(404);
  });

  it('serves other files as they are, and never files outside the build', async () => {
    const icon = await fetch(`${url}/dashboard/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/svg/);
    const escape = await fetch(`${url}/dashboard/..%2F..%2Fetc%2Fpasswd`);
    expect(await escape.text()).not.toContain('root:');
  });

  it('explains itself when the dashboard has not been built', async () => {
    const bare = Fastify();
    const empty = mkdtempSync(join(tmpdir(), 'mmgen-dash-empty-'));
    await registerDashboard(bare, config, empty);
    const res = await bare.inject({ method: 'GET', url: '/dashboard/' });
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build:web');
    await bare.close();
    rmSync(empty, { recursive: true, force: true });
  });
});
