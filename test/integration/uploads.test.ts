import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/access.js';
import { findKeyBySecret } from '../../src/domain/api-keys.js';
import { ApiError } from '../../src/errors.js';
import { resolveImageInput } from '../../src/files/uploads.js';
import { newId } from '../../src/ids.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

const png = (width: number, height: number, color = '#ff0000') =>
  sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer();
const jpeg = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#00ff00' } }).jpeg().toBuffer();

async function apiErrorOf(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describeOnBackend('uploads', 'pglite', (backend) => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let other: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend);
    api = client(s.url);
    org = await s.createOrg();
    other = await s.createOrg();
  });
  afterAll(async () => s?.close());

  /** Signed URLs use MMGEN_PUBLIC_URL; the test server listens on its own port. */
  const local = (url: string) => {
    const u = new URL(url);
    return `${s.url}${u.pathname}${u.search}`;
  };

  async function create(key: string, body: Record<string, unknown>) {
    const res = await api('POST', '/v1/uploads', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; upload_url: string; headers: Record<string, string>; [k: string]: unknown };
  }

  async function put(url: string, body: Buffer | string, contentType?: string) {
    const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
    const res = await fetch(local(url), { method: 'PUT', headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  async function principalOf(key: string): Promise<Principal> {
    return (await findKeyBySecret(s.db, key))!.principal;
  }

  describe('create, PUT, read', () => {
    it('creates a pending upload with a 15-minute presigned PUT URL', async () => {
      const before = Date.now();
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 5000 });
      const after = Date.now();
      expect(up).toMatchObject({ object: 'upload', method: 'PUT', status: 'pending', content_type: 'image/png', size_bytes: 5000, width: null, height: null, livemode: true, uploaded_at: null });
      expect(up.id).toMatch(/^upl_[0-9A-Za-z]{24}$/);
      expect(up.headers).toEqual({ 'Content-Type': 'image/png' });
      const url = new URL(up.upload_url);
      expect(up.upload_url.startsWith(s.config.publicUrl)).toBe(true);
      expect(url.pathname).toBe(`/uploads/${up.id}`);
      expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
      // 15 minutes from the moment the server made it, somewhere between the two readings (a loaded machine can take
      // seconds to answer), to the second: expires_at has no milliseconds.
      const expiresAt = new Date(up.expires_at as string).getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(after + 15 * 60_000 + 1000);
      expect(Number(url.searchParams.get('expires')) * 1000).toBe(new Date(up.expires_at as string).getTime());

      const got = await api('GET', `/v1/uploads/${up.id}`, { key: org.live });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id: up.id, status: 'pending', width: null, height: null });
      // The URL is a credential: only the creation response carries it.
      expect(got.body.upload_url).toBeUndefined();
    });

    it('PUT a real PNG → 200 uploaded with its size; GET shows width and height', async () => {
      const bytes = await png(37, 21);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: bytes.length + 100 });
      const res = await put(up.upload_url, bytes, 'image/png');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.body).toMatchObject({ id: up.id, object: 'upload', status: 'uploaded', width: 37, height: 21, size_bytes: bytes.length });
      expect(res.body.uploaded_at).not.toBeNull();

      const got = await api('GET', `/v1/uploads/${up.id}`, { key: org.live });
      expect(got.body).toMatchObject({ status: 'uploaded', width: 37, height: 21, content_type: 'image/png', size_bytes: bytes.length });
      const stored = await s.runtime.deps.blobs.get(`uploads/${up.id}`);
      expect(stored?.bytes.equals(bytes)).toBe(true);
      expect(stored?.contentType).toBe('image/png');
    });

    it('accepts JPEG and WebP, and a Content-Type with parameters', async () => {
      const j = await jpeg(16, 8);
      const up = await create(org.test, { content_type: 'image/jpeg', size_bytes: j.length });
      expect((await put(up.upload_url, j, 'image/jpeg; charset=binary')).body).toMatchObject({ status: 'uploaded', width: 16, height: 8, livemode: false });
      const w = await sharp({ create: { width: 9, height: 9, channels: 4, background: '#0000ff80' } }).webp().toBuffer();
      const up2 = await create(org.test, { content_type: 'image/webp', size_bytes: w.length });
      expect((await put(up2.upload_url, w, 'image/webp')).body).toMatchObject({ status: 'uploaded', width: 9, height: 9 });
    });

    it('a repeated PUT of the same file is 200 again; another file is 409 upload_already_completed', async () => {
      const bytes = await png(10, 10);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 100_000 });
      expect((await put(up.upload_url, bytes, 'image/png')).status).toBe(200);
      const again = await put(up.upload_url, bytes, 'image/png');
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'uploaded', width: 10, height: 10 });
      const otherFile = await put(up.upload_url, await png(11, 10), 'image/png');
      expect(otherFile.status).toBe(409);
      expect(otherFile.body.error).toMatchObject({ type: 'invalid_request_error', code: 'upload_already_completed' });
      expect(otherFile.body.error.request_id).toBe(otherFile.headers.get('x-request-id'));
      expect((await s.runtime.deps.blobs.get(`uploads/${up.id}`))?.bytes.equals(bytes)).toBe(true);
    });

    it('concurrent PUTs of different files: one wins, the blob matches the row', async () => {
      const a = await png(20, 20, '#111111');
      const b = await png(30, 30, '#222222');
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 100_000 });
      const results = await Promise.all([put(up.upload_url, a, 'image/png'), put(up.upload_url, b, 'image/png')]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const got = await api('GET', `/v1/uploads/${up.id}`, { key: org.live });
      const stored = (await s.runtime.deps.blobs.get(`uploads/${up.id}`))!.bytes;
      expect(stored.equals(got.body.width === 20 ? a : b)).toBe(true);
    });
  });

  describe('the PUT is checked', () => {
    it('Content-Type must be the declared one', async () => {
      const bytes = await png(8, 8);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 10_000 });
      const wrong = await put(up.upload_url, bytes, 'image/jpeg');
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Content-Type' });
      expect(wrong.body.error.message).toContain('image/png');
      // Not an image type at all: refused before the body is read, naming the allowed types.
      const text = await put(up.upload_url, 'hello', 'text/plain');
      expect(text.status).toBe(400);
      expect(text.body.error).toMatchObject({ code: 'parameter_invalid', param: 'Content-Type' });
      expect(text.body.error.message).toContain('image/png');
      expect(text.headers.get('x-request-id')).toMatch(/^req_/);
      // Still pending: a failed PUT changes nothing.
      expect((await api('GET', `/v1/uploads/${up.id}`, { key: org.live })).body.status).toBe('pending');
      expect((await put(up.upload_url, bytes, 'image/png')).status).toBe(200);
    });

    it('more bytes than declared → 413 payload_too_large', async () => {
      const bytes = await png(64, 64);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: bytes.length - 1 });
      const res = await put(up.upload_url, bytes, 'image/png');
      expect(res.status).toBe(413);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large' });
      expect(res.body.error.message).toContain(String(bytes.length - 1));
    });

    it('not an image, a truncated PNG, the wrong format, or nothing → 400 parameter_invalid', async () => {
      const full = await png(50, 50);
      const cases: Array<[string, Buffer, string]> = [
        ['text', Buffer.from('definitely not a png, just some text'), 'not a valid'],
        ['truncated', full.subarray(0, Math.floor(full.length / 2)), 'not a valid'],
        ['png magic only', full.subarray(0, 8), 'not a valid'],
        ['jpeg bytes', await jpeg(10, 10), 'image/jpeg'],
        ['empty', Buffer.alloc(0), 'empty'],
      ];
      for (const [name, bytes, message] of cases) {
        const up = await create(org.live, { content_type: 'image/png', size_bytes: 100_000 });
        const res = await put(up.upload_url, bytes, 'image/png');
        expect(res.status, name).toBe(400);
        expect(res.body.error.code, name).toBe('parameter_invalid');
        expect(res.body.error.message, name).toContain(message);
      }
    });

    it('a tampered, missing or borrowed signature → 403 signature_invalid', async () => {
      const bytes = await png(8, 8);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 10_000 });
      const other = await create(org.live, { content_type: 'image/png', size_bytes: 10_000 });
      const u = new URL(up.upload_url);
      const sig = u.searchParams.get('signature')!;
      const flipped = new URL(u);
      flipped.searchParams.set('signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
      const later = new URL(u);
      later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600));
      const unsigned = `${u.origin}${u.pathname}`;
      const borrowed = `${u.origin}/uploads/${other.id}${u.search}`;
      for (const url of [flipped.toString(), later.toString(), unsigned, borrowed]) {
        const res = await put(url, bytes, 'image/png');
        expect(res.status, url).toBe(403);
        expect(res.body.error, url).toMatchObject({ type: 'permission_error', code: 'signature_invalid' });
        expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      }
      const unknownParam = await put(`${up.upload_url}&x=1`, bytes, 'image/png');
      expect(unknownParam.status).toBe(400);
      expect(unknownParam.body.error).toMatchObject({ code: 'parameter_unknown', param: 'x' });
    });

    it('an expired URL → 403 signature_invalid', async () => {
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 10_000 });
      const expired = s.runtime.deps.signer.sign(`/uploads/${up.id}`, -1);
      const res = await put(expired, await png(8, 8), 'image/png');
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'signature_invalid' });
      expect(res.body.error.message).toMatch(/expired/);
    });
  });

  describe('access', () => {
    it('another organization or the other mode gets 404', async () => {
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 10 });
      for (const key of [other.live, other.test, org.test]) {
        const res = await api('GET', `/v1/uploads/${up.id}`, { key });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'resource_not_found', param: 'id' });
      }
      expect((await api('GET', '/v1/uploads/upl_nope', { key: org.live })).status).toBe(404);
    });

    it('needs a key; developer role and uploads:write to create; a viewer can read', async () => {
      expect((await api('POST', '/v1/uploads', { body: { content_type: 'image/png', size_bytes: 1 } })).status).toBe(401);
      const mk = async (body: Record<string, unknown>) => (await api('POST', '/v1/api-keys', { key: org.live, body: { name: 'k', ...body } })).body.key as string;
      const viewer = await mk({ role: 'viewer' });
      const imagesOnly = await mk({ scopes: ['images:write'] });
      const uploadsOnly = await mk({ role: 'developer', scopes: ['uploads:write'] });
      const body = { content_type: 'image/png', size_bytes: 10 };

      const byViewer = await api('POST', '/v1/uploads', { key: viewer, body });
      expect(byViewer.status).toBe(403);
      expect(byViewer.body.error.code).toBe('insufficient_role');
      const byImages = await api('POST', '/v1/uploads', { key: imagesOnly, body });
      expect(byImages.status).toBe(403);
      expect(byImages.body.error.message).toContain('uploads:write');

      const up = await create(uploadsOnly, body);
      expect((await api('GET', `/v1/uploads/${up.id}`, { key: uploadsOnly })).status).toBe(200);
      expect((await api('GET', `/v1/uploads/${up.id}`, { key: viewer })).status).toBe(200);
      expect((await api('GET', `/v1/uploads/${up.id}`, { key: imagesOnly })).status).toBe(403);
    });

    it('validates the creation body', async () => {
      const cases: Array<[unknown, string, string]> = [
        [{ size_bytes: 10 }, 'parameter_missing', 'content_type'],
        [{ content_type: 'image/png' }, 'parameter_missing', 'size_bytes'],
        [{ content_type: 'image/gif', size_bytes: 10 }, 'parameter_invalid', 'content_type'],
        [{ content_type: 'image/png', size_bytes: 0 }, 'parameter_invalid', 'size_bytes'],
        [{ content_type: 'image/png', size_bytes: 20 * 1024 * 1024 + 1 }, 'parameter_invalid', 'size_bytes'],
        [{ content_type: 'image/png', size_bytes: 1.5 }, 'parameter_invalid', 'size_bytes'],
        [{ content_type: 'image/png', size_bytes: '10' }, 'parameter_invalid', 'size_bytes'],
        [{ content_type: 'image/png', size_bytes: 10, name: 'x' }, 'parameter_unknown', 'name'],
      ];
      for (const [body, code, param] of cases) {
        const res = await api('POST', '/v1/uploads', { key: org.live, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error, JSON.stringify(body)).toMatchObject({ code, param });
      }
      expect((await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: 20 * 1024 * 1024 } })).status).toBe(201);
    });
  });

  describe('signed files', () => {
    async function storeOutput(): Promise<{ name: string; bytes: Buffer }> {
      const bytes = await png(12, 7);
      const genId = newId('gen');
      const outId = newId('out');
      const keyId = (await findKeyBySecret(s.db, org.test))!.principal.keyId;
      await s.db.query(
        `INSERT INTO generations (id, organization_id, api_key_id, mode, modality, model, status, sync, params)
         VALUES ($1, $2, $3, 'test', 'image', 'm', 'succeeded', true, '{}')`,
        [genId, org.id, keyId],
      );
      const blobKey = `outputs/${genId}/${outId}.png`;
      await s.db.query(
        `INSERT INTO generation_outputs (id, generation_id, position, type, mime, width, height, blob_key, size_bytes)
         VALUES ($1, $2, 0, 'image', 'image/png', 12, 7, $3, $4)`,
        [outId, genId, blobKey, bytes.length],
      );
      await s.runtime.deps.blobs.put(blobKey, bytes, 'image/png');
      return { name: `${outId}.png`, bytes };
    }

    it('serves the file with its type, length and a private cache lifetime', async () => {
      const { name, bytes } = await storeOutput();
      const res = await fetch(local(s.runtime.deps.signer.sign(`/files/${name}`, 600)));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      expect(res.headers.get('cache-control')).toMatch(/^private, max-age=(59\d|600)$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('tampered or expired → 403 signature_invalid; signed but unknown → 404', async () => {
      const { name } = await storeOutput();
      const good = new URL(local(s.runtime.deps.signer.sign(`/files/${name}`)));
      const tampered = new URL(good);
      tampered.pathname = `/files/${name.replace('.png', '.jpg')}`;
      const expired = local(s.runtime.deps.signer.sign(`/files/${name}`, -1));
      for (const url of [tampered.toString(), expired, `${good.origin}${good.pathname}`]) {
        const res = await fetch(url);
        expect(res.status, url).toBe(403);
        const body = (await res.json()) as { error: { code: string; request_id: string } };
        expect(body.error.code).toBe('signature_invalid');
        expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
      }
      for (const missing of ['out_doesnotexist.png', 'gen_x.png', 'uploads']) {
        const res = await fetch(local(s.runtime.deps.signer.sign(`/files/${missing}`)));
        expect(res.status, missing).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('resource_not_found');
      }
    });

    it('an upload URL signature does not open a file, nor the reverse', async () => {
      const { name } = await storeOutput();
      const fileUrl = new URL(s.runtime.deps.signer.sign(`/files/${name}`));
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 10_000 });
      const res = await put(`${s.url}/uploads/${up.id}${fileUrl.search}`, await png(8, 8), 'image/png');
      expect(res.status).toBe(403);
      const uploadSearch = new URL(up.upload_url).search;
      expect((await fetch(`${s.url}/files/${name}${uploadSearch}`)).status).toBe(403);
    });
  });

  describe('resolveImageInput', () => {
    it('an uploaded upload_id gives its bytes, type and size', async () => {
      const bytes = await png(40, 30);
      const up = await create(org.live, { content_type: 'image/png', size_bytes: bytes.length });
      expect((await put(up.upload_url, bytes, 'image/png')).status).toBe(200);
      const img = await resolveImageInput(s.runtime.deps, await principalOf(org.live), { upload_id: up.id });
      expect(img).toMatchObject({ mime: 'image/png', width: 40, height: 30 });
      expect(img.bytes.equals(bytes)).toBe(true);

      // Another organization, the other mode, or an unknown id: 404 naming upload_id.
      for (const key of [other.live, org.test]) {
        const err = await apiErrorOf(resolveImageInput(s.runtime.deps, await principalOf(key), { upload_id: up.id }));
        expect(err).toMatchObject({ status: 404, code: 'resource_not_found', param: 'upload_id' });
      }
    });

    it('a pending upload is 400 parameter_invalid on upload_id', async () => {
      const up = await create(org.live, { content_type: 'image/png', size_bytes: 100 });
      const err = await apiErrorOf(resolveImageInput(s.runtime.deps, await principalOf(org.live), { upload_id: up.id }));
      expect(err).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'upload_id' });
      expect(err.message).toMatch(/not received its file/);
    });

    it('needs exactly one of upload_id and image_url', async () => {
      const p = await principalOf(org.live);
      expect(await apiErrorOf(resolveImageInput(s.runtime.deps, p, {}))).toMatchObject({ code: 'parameter_missing' });
      expect(await apiErrorOf(resolveImageInput(s.runtime.deps, p, { upload_id: 'upl_x', image_url: 'https://example.com/a.png' }))).toMatchObject({
        code: 'parameter_invalid',
      });
    });

    describe('image_url', () => {
      let images: Server;
      let base: string;
      let pngBytes: Buffer;
      let allowed: TestServer;
      const hits: string[] = [];

      beforeAll(async () => {
        pngBytes = await png(33, 44);
        images = createServer((req, res) => {
          hits.push(req.url ?? '');
          if (req.url === '/a.png') return res.end(pngBytes);
          if (req.url === '/text') return res.end('hello');
          if (req.url === '/half.png') return res.end(pngBytes.subarray(0, 40));
          if (req.url === '/moved') {
            res.writeHead(301, { location: '/a.png' });
            return res.end();
          }
          res.writeHead(404);
          res.end();
        });
        await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
        base = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
        allowed = await startTestServer(backend, { MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
      });
      afterAll(async () => {
        images?.closeAllConnections();
        await new Promise((r) => images?.close(r));
        await allowed?.close();
      });

      async function allowedPrincipal(): Promise<Principal> {
        const o = await allowed.createOrg();
        return (await findKeyBySecret(allowed.db, o.live))!.principal;
      }

      it('fetches and probes an image when the operator allows private networks', async () => {
        const img = await resolveImageInput(allowed.runtime.deps, await allowedPrincipal(), { image_url: `${base}/a.png` });
        expect(img).toMatchObject({ mime: 'image/png', width: 33, height: 44 });
        expect(img.bytes.equals(pngBytes)).toBe(true);
      });

      it('every failure is 400 parameter_invalid on image_url with the reason', async () => {
        const p = await allowedPrincipal();
        const targetHits = () => hits.filter((h) => h === '/a.png').length;
        const before = targetHits();
        const cases: Array<[string, RegExp]> = [
          [`${base}/text`, /not a valid PNG, JPEG or WebP/],
          [`${base}/half.png`, /not a valid PNG, JPEG or WebP/],
          [`${base}/gone`, /HTTP 404/],
          [`${base}/moved`, /redirect/],
          ['ftp://127.0.0.1/a.png', /http or https/],
          ['not a url', /not a valid absolute URL/],
        ];
        for (const [url, message] of cases) {
          const err = await apiErrorOf(resolveImageInput(allowed.runtime.deps, p, { image_url: url }));
          expect(err, url).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'image_url' });
          expect(err.message, url).toMatch(message);
        }
        // The redirect's target was never requested.
        expect(targetHits()).toBe(before);
      });

      it('without the operator switch, loopback is refused and never contacted', async () => {
        const before = hits.length;
        const p = await principalOf(org.live);
        const port = new URL(base).port;
        const cases: Array<[string, RegExp]> = [
          [`${base}/a.png`, /must use https/],
          [`https://127.0.0.1:${port}/a.png`, /loopback address/],
          [`https://localhost:${port}/a.png`, /localhost .*loopback address/],
          [`https://2130706433:${port}/a.png`, /loopback address/],
          ['https://169.254.169.254/latest/meta-data/', /linkLocal address/],
          ['https://[::ffff:10.0.0.1]/a.png', /private address/],
        ];
        for (const [url, message] of cases) {
          const err = await apiErrorOf(resolveImageInput(s.runtime.deps, p, { image_url: url }));
          expect(err, url).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'image_url' });
          expect(err.message, url).toMatch(message);
        }
        expect(hits.length).toBe(before);
      });
    });
  });
});
