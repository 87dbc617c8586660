import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type S3Config } from '../../src/config.js';
import { DiskBlobStore } from '../../src/files/disk-store.js';
import { S3BlobStore } from '../../src/files/s3-store.js';
import type { BlobStore } from '../../src/files/types.js';
import { S3_CREDENTIALS, startTestS3, type TestS3 } from '../helpers/s3.js';

/**
 * One suite for every BlobStore: what the generation runner, uploads and file
 * routes rely on must hold for the disk store and for S3 (s3rver on loopback,
 * behind a SigV4-verifying front) alike.
 */
interface StoreUnderTest {
  store: BlobStore;
  /** A store of the same kind that cannot work (for ping). */
  broken: BlobStore;
  close(): Promise<void>;
}

let s3: TestS3;
beforeAll(async () => {
  s3 = await startTestS3();
});
afterAll(async () => s3?.close());

function s3Config(extra: Record<string, string> = {}): S3Config {
  return loadConfig(s3.env(extra)).s3!;
}

const kinds: Record<string, () => Promise<StoreUnderTest>> = {
  disk: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmgen-blobs-'));
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    return {
      store: new DiskBlobStore(join(dir, 'files')),
      broken: new DiskBlobStore(join(file, 'files')),
      close: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  s3: async () => {
    const store = new S3BlobStore(s3Config(), { credentials: S3_CREDENTIALS });
    const broken = new S3BlobStore(s3Config({ MMGEN_S3_BUCKET: 'no-such-bucket' }), { credentials: S3_CREDENTIALS });
    return {
      store,
      broken,
      close: async () => {
        store.close();
        broken.close();
      },
    };
  },
};

describe.each(Object.keys(kinds))('blob store: %s', (kind) => {
  let t: StoreUnderTest;
  beforeAll(async () => {
    t = await kinds[kind]!();
  });
  afterAll(async () => t?.close());

  it('gives back the bytes and content type that were put', async () => {
    const bytes = randomBytes(4096);
    await t.store.put('outputs/gen_a/out_1', bytes, 'image/png');
    const got = await t.store.get('outputs/gen_a/out_1');
    expect(got?.contentType).toBe('image/png');
    expect(got?.bytes.equals(bytes)).toBe(true);
  });

  it('answers null for a key never put', async () => {
    expect(await t.store.get('outputs/gen_missing/out_x')).toBeNull();
  });

  it('replaces a blob put again under the same key', async () => {
    await t.store.put('uploads/upl_r', Buffer.from('first'), 'image/jpeg');
    await t.store.put('uploads/upl_r', Buffer.from('second, longer'), 'image/webp');
    const got = await t.store.get('uploads/upl_r');
    expect(got?.bytes.toString()).toBe('second, longer');
    expect(got?.contentType).toBe('image/webp');
  });

  it('deletes, and deleting what is not there is no error', async () => {
    await t.store.put('inputs/gen_d/in', Buffer.from('x'), 'image/png');
    await t.store.delete('inputs/gen_d/in');
    expect(await t.store.get('inputs/gen_d/in')).toBeNull();
    await expect(t.store.delete('inputs/gen_d/in')).resolves.toBeUndefined();
    await expect(t.store.delete('never/was')).resolves.toBeUndefined();
  });

  it('deletes many in one call, missing ones included, and leaves the rest', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `outputs/gen_dm/out_${i}`);
    await Promise.all(keys.map((k) => t.store.put(k, Buffer.from(k), 'image/png')));
    await t.store.put('outputs/gen_dm_kept/out_0', Buffer.from('kept'), 'image/png');
    await t.store.deleteMany([...keys.slice(0, 29), 'outputs/gen_dm/never-was']);
    for (const k of keys.slice(0, 29)) expect(await t.store.get(k), k).toBeNull();
    expect((await t.store.get(keys[29]!))?.bytes.toString()).toBe(keys[29]);
    expect((await t.store.get('outputs/gen_dm_kept/out_0'))?.bytes.toString()).toBe('kept');
    await expect(t.store.deleteMany([])).resolves.toBeUndefined();
    await expect(t.store.deleteMany(keys)).resolves.toBeUndefined();
    expect(await t.store.get(keys[29]!)).toBeNull();
  });

  it('keeps many blobs written at once apart, byte for byte (a 5 MiB one too)', async () => {
    const blobs = Array.from({ length: 24 }, (_, i) => ({ key: `outputs/gen_many/out_${i}`, bytes: randomBytes(i === 0 ? 5 * 1024 * 1024 : 1000 + i) }));
    await Promise.all(blobs.map((b) => t.store.put(b.key, b.bytes, 'application/octet-stream')));
    const got = await Promise.all(blobs.map((b) => t.store.get(b.key)));
    got.forEach((g, i) => expect(g?.bytes.equals(blobs[i]!.bytes), blobs[i]!.key).toBe(true));
  });

  it('stores an empty blob', async () => {
    await t.store.put('outputs/gen_e/empty', Buffer.alloc(0), 'text/plain');
    const got = await t.store.get('outputs/gen_e/empty');
    expect(got?.bytes.length).toBe(0);
  });

  it('refuses keys that could escape the store', async () => {
    for (const key of ['../etc/passwd', 'a/../../b', '/abs/path', 'sp ace', 'back\\slash', '']) {
      await expect(t.store.put(key, Buffer.from('x'), 'text/plain'), key).rejects.toThrow(/invalid blob key/);
      await expect(t.store.get(key), key).rejects.toThrow(/invalid blob key/);
    }
  });

  it('ping succeeds on a working store and fails on a broken one', async () => {
    await expect(t.store.ping()).resolves.toBeUndefined();
    await expect(t.broken.ping()).rejects.toBeDefined();
  });
});

describe('S3 specifics', () => {
  let store: S3BlobStore;
  beforeAll(() => {
    store = new S3BlobStore(s3Config(), { credentials: S3_CREDENTIALS });
  });
  afterAll(() => store?.close());

  it('every request the store makes carries a valid SigV4 signature', async () => {
    const before = s3.refused.length;
    await store.put('sig/check', Buffer.from('signed'), 'text/plain');
    await store.get('sig/check');
    await store.delete('sig/check');
    await store.ping();
    expect(s3.refused.slice(before)).toEqual([]);
  });

  it('MMGEN_S3_PREFIX puts every key under the prefix', async () => {
    const prefixed = new S3BlobStore(s3Config({ MMGEN_S3_PREFIX: 'team-a/' }), { credentials: S3_CREDENTIALS });
    try {
      await prefixed.put('outputs/gen_p/out', Buffer.from('under a prefix'), 'text/plain');
      expect((await store.get('team-a/outputs/gen_p/out'))?.bytes.toString()).toBe('under a prefix');
      expect(await store.get('outputs/gen_p/out')).toBeNull();
    } finally {
      prefixed.close();
    }
  });

  it('a presigned GET serves the blob with its type and a private cache lifetime; a tampered one is refused', async () => {
    const bytes = randomBytes(2048);
    await store.put('outputs/gen_g/out_1', bytes, 'image/png');
    const url = await store.presigner.getUrl('outputs/gen_g/out_1', 600, 'image/png');
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/outputs/gen_g/out_1?`)).toBe(true);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('600');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, max-age=600');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);

    const tampered = new URL(url);
    tampered.pathname = tampered.pathname.replace('out_1', 'out_2');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('a presigned PUT is accepted only with the signed Content-Type and exact Content-Length', async () => {
    const bytes = randomBytes(1000);
    const url = await store.presigner.putUrl('incoming/uploads/upl_p', 900, 'image/png', bytes.length);
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');

    const refusedBefore = s3.refused.length;
    const wrongType = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: bytes });
    expect(wrongType.status).toBe(403);
    const longer = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: Buffer.concat([bytes, Buffer.from('x')]) });
    expect(longer.status).toBe(403);
    const shorter = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes.subarray(1) });
    expect(shorter.status).toBe(403);
    expect(s3.refused.length - refusedBefore).toBe(3);
    expect(await store.get('incoming/uploads/upl_p')).toBeNull();

    const ok = await fetch(url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: bytes });
    expect(ok.status).toBe(200);
    const got = await store.get('incoming/uploads/upl_p');
    expect(got?.contentType).toBe('image/png');
    expect(got?.bytes.equals(bytes)).toBe(true);
  });

  it('a presigned URL stops working when it expires', async () => {
    await store.put('outputs/gen_x/out', Buffer.from('soon gone'), 'text/plain');
    const url = await store.presigner.getUrl('outputs/gen_x/out', 1, 'text/plain');
    expect((await fetch(url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(url)).status).toBe(403);
  });
});
