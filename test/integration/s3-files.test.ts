import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/files/s3-store.js';
import { client, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { S3_CREDENTIALS, startTestS3, type TestS3 } from '../helpers/s3.js';
import { putToUploadUrl } from '../helpers/uploads.js';

/**
 * mmgen with its files on S3 (s3rver on loopback behind a SigV4-verifying
 * front), in both URL modes: `presigned` (file bytes go straight between the
 * client and S3) and `proxy` (mmgen-signed URLs, bytes through mmgen).
 */
let s3: TestS3;
let bucket: S3BlobStore;
beforeAll(async () => {
  s3 = await startTestS3();
  // The in-process server finds its credentials where any AWS program does: the environment.
  process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
  bucket = new S3BlobStore({ bucket: s3.bucket, endpoint: s3.endpoint, publicEndpoint: undefined, region: 'us-east-1', forcePathStyle: true, prefix: '', urls: 'proxy' });
});
afterAll(async () => {
  bucket?.close();
  await s3?.close();
});

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#3366cc' } }).png().toBuffer();

async function imageModel(api: ReturnType<typeof client>, key: string, capability?: string): Promise<string> {
  const res = await api('GET', '/v1/models?modality=image', { key });
  const m = (res.body.data as Array<{ slug: string; capabilities: string[] }>).find((x) => !capability || x.capabilities.includes(capability));
  return m!.slug;
}


describe('S3, presigned URLs', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer('pglite', { ...s3.env(), MMGEN_S3_URLS: 'presigned', MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  it('outputs are stored in the bucket and served by S3 presigned GETs, fresh on every read', async () => {
    const model = await imageModel(api, org.live);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'a bucket', width: 256, height: 256 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const out = res.body.outputs[0] as { url: string; mime: string };
    const url = new URL(out.url);
    expect(`${url.origin}${url.pathname}`.startsWith(`${s3.endpoint}/${s3.bucket}/outputs/${res.body.id}/`)).toBe(true);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const file = await fetch(out.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(out.mime);
    const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);

    const again = await api('GET', `/v1/generations/${res.body.id}`, { key: org.live });
    expect(new URL(again.body.outputs[0].url).pathname).toBe(url.pathname);
  });

  it('uploads: a presigned PUT to S3 with exact Content-Type and Content-Length, checked by mmgen on the next read', async () => {
    const bytes = await png(64, 48);
    const created = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: bytes.length } });
    expect(created.status).toBe(201);
    expect(created.body.headers).toEqual({ 'Content-Type': 'image/png', 'Content-Length': String(bytes.length) });
    expect(created.body.upload_url.startsWith(`${s3.endpoint}/${s3.bucket}/incoming/uploads/${created.body.id}?`)).toBe(true);
    const expiresIn = (Date.parse(created.body.expires_at) - Date.now()) / 1000;
    expect(expiresIn).toBeGreaterThan(880);
    expect(expiresIn).toBeLessThanOrEqual(900);

    // S3 refuses another type or another size: the signature covers both.
    expect((await putToUploadUrl(created.body.upload_url, { 'content-type': 'image/jpeg' }, bytes)).status).toBe(403);
    expect((await putToUploadUrl(created.body.upload_url, { 'content-type': 'image/png' }, Buffer.concat([bytes, bytes]))).status).toBe(403);
    expect((await api('GET', `/v1/uploads/${created.body.id}`, { key: org.live })).body.status).toBe('pending');

    const put = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
    expect(put.status).toBe(200);
    const got = await api('GET', `/v1/uploads/${created.body.id}`, { key: org.live });
    expect(got.body).toMatchObject({ status: 'uploaded', width: 64, height: 48, size_bytes: bytes.length });
    expect((await bucket.get(`uploads/${created.body.id}`))?.bytes.equals(bytes)).toBe(true);
    expect(await bucket.get(`incoming/uploads/${created.body.id}`)).toBeNull();

    // A second PUT to the same URL cannot change the checked file.
    await putToUploadUrl(created.body.upload_url, created.body.headers, Buffer.alloc(bytes.length, 7));
    expect((await api('GET', `/v1/uploads/${created.body.id}`, { key: org.live })).body.status).toBe('uploaded');
    expect((await bucket.get(`uploads/${created.body.id}`))?.bytes.equals(bytes)).toBe(true);

    const model = await imageModel(api, org.live, 'image-to-image');
    const gen = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'from an upload', upload_id: created.body.id, width: 256, height: 256 } });
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
  });

  it('an upload whose bytes are not an image of its type stays pending and cannot be used (400 naming upload_id)', async () => {
    const junk = Buffer.alloc(500, 1);
    const created = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: junk.length } });
    expect((await putToUploadUrl(created.body.upload_url, created.body.headers, junk)).status).toBe(200);
    expect((await api('GET', `/v1/uploads/${created.body.id}`, { key: org.live })).body.status).toBe('pending');
    const model = await imageModel(api, org.live, 'image-to-image');
    const gen = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'junk', upload_id: created.body.id } });
    expect(gen.status).toBe(400);
    expect(gen.body.error).toMatchObject({ code: 'parameter_invalid', param: 'upload_id' });
    expect(gen.body.error.message).toMatch(/not a valid, complete image\/png image/);
    expect(await bucket.get(`uploads/${created.body.id}`)).toBeNull();

    // Nothing arrived yet: the usual "not received" answer.
    const empty = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: 100 } });
    const none = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'nothing', upload_id: empty.body.id } });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/has not received its file yet/);
  });
});

describe('S3, proxied through mmgen', () => {
  let s: TestServer;
  let api: ReturnType<typeof client>;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer('pglite', { ...s3.env({ MMGEN_S3_PREFIX: 'proxied/' }), MMGEN_S3_URLS: 'proxy', MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  it('output URLs are mmgen-signed and mmgen serves the bytes it keeps in S3', async () => {
    const model = await imageModel(api, org.live);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'proxied', width: 256, height: 256 } });
    expect(res.status).toBe(200);
    const url = new URL(res.body.outputs[0].url);
    expect(url.origin).toBe(s.url);
    expect(url.pathname).toMatch(/^\/files\/out_\w+\.png$/);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    const bytes = Buffer.from(await file.arrayBuffer());
    const stored = await bucket.get(`proxied/outputs/${res.body.id}/${url.pathname.slice('/files/'.length).split('.')[0]}`);
    expect(stored?.bytes.equals(bytes)).toBe(true);
  });

  it('uploads go through mmgen (the contract checks: 413 over the declared size) and land in S3', async () => {
    const bytes = await png(32, 32);
    const created = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: bytes.length } });
    expect(created.body.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(new URL(created.body.upload_url).origin).toBe(s.url);
    const tooBig = await putToUploadUrl(created.body.upload_url, created.body.headers, Buffer.concat([bytes, bytes]));
    expect(tooBig.status).toBe(413);
    const put = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
    expect(put.status).toBe(200);
    expect((await bucket.get(`proxied/uploads/${created.body.id}`))?.bytes.equals(bytes)).toBe(true);
  });
});

describe('readiness sees the bucket', () => {
  it('/readyz fails when the bucket is gone', async () => {
    const s = await startTestServer('pglite', { ...s3.env({ MMGEN_S3_BUCKET: 'missing-bucket' }) });
    try {
      const res = await client(s.url)('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.checks.blob_store).toBe('unavailable');
    } finally {
      await s.close();
    }
  });
});
