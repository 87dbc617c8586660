import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';

/** Where `vite build` writes the dashboard (web/vite.config.ts); ignored by git, built by `npm install`. */
export const DASHBOARD_DIST = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

export const DASHBOARD_PREFIX = '/dashboard';

/**
 * The Content-Security-Policy of the dashboard page. Everything it loads is its
 * own (no CDN, contract §9); media come from signed URLs under the public URL,
 * which may be another origin than the one the dashboard is opened at.
 */
export function dashboardCsp(publicUrl: string): string {
  const files = new URL(publicUrl).origin;
  return [
    "default-src 'self'",
    // wasm-unsafe-eval lets <model-viewer> compile its WebAssembly decoders; it does not allow eval() of JavaScript.
    "script-src 'self' 'wasm-unsafe-eval'",
    // React and <model-viewer> set inline styles; no inline scripts are allowed.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${files}`,
    `media-src 'self' blob: ${files}`,
    // fetch: the API (same origin), GLB meshes and upload PUTs at the public URL, model-viewer's blob textures.
    `connect-src 'self' blob: data: ${files}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves the built single-page dashboard at /dashboard: public (it asks for an
 * API key itself and talks only to /v1), hashed assets cached for a year, and
 * every other path under /dashboard answered with index.html so that the
 * client-side router can deep-link (`/dashboard/generations/gen_…`).
 */
export async function registerDashboard(app: FastifyInstance, config: Config, root: string = DASHBOARD_DIST): Promise<void> {
  await app.register(fastifyStatic, { root, serve: false });
  const csp = dashboardCsp(config.publicUrl);
  const rootWithSep = root.endsWith(sep) ? root : root + sep;

  function sendIndex(reply: FastifyReply): FastifyReply {
    if (!existsSync(join(root, 'index.html'))) {
      return reply
        .status(503)
        .type('text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .send('<!doctype html><title>mmgen dashboard</title><p>The dashboard has not been built. Run <code>npm run build:web</code> (or <code>npm install</code>) and reload.</p>');
    }
    return reply
      .header('Content-Security-Policy', csp)
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Content-Type-Options', 'nosniff')
      // The page names the current hashed assets: always revalidate it.
      .header('Cache-Control', 'no-cache')
      .sendFile('index.html', { cacheControl: false });
  }

  const handler = async (request: { params: unknown }, reply: FastifyReply) => {
    const rel = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    if (rel === '' || rel === 'index.html') return sendIndex(reply);
    const file = normalize(join(root, rel));
    const isFile = file.startsWith(rootWithSep) && existsSync(file) && statSync(file).isFile();
    if (rel.startsWith('assets/')) {
      // Hashed names: a missing one is a 404, never the HTML page (a browser would try to run it as a script).
      if (!isFile) return reply.callNotFound();
      return reply.sendFile(rel, { maxAge: '365d', immutable: true });
    }
    if (isFile) return reply.header('Cache-Control', 'no-cache').sendFile(rel, { cacheControl: false });
    return sendIndex(reply);
  };
  app.get(DASHBOARD_PREFIX, handler);
  app.get(`${DASHBOARD_PREFIX}/*`, handler);
}
