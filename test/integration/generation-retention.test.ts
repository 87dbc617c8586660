import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, MovableClock } from '../../src/clock.js';
import { runGenerationRetention } from '../../src/generations/retention.js';
import { runRetention } from '../../src/request-log/retention.js';
import { S3_CREDENTIALS, startTestS3, type TestS3 } from '../helpers/s3.js';
import { putToUploadUrl } from '../helpers/uploads.js';
import { backendOptions, backends, client, startTestServer, type BackendName, type TestOrg, type TestServer } from '../helpers/server.js';

/** Every file under a directory, recursively (none when it does not exist). */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out = statSync(p).isDirectory() ? out.concat(files(p)) : out.concat(p);
  }
  return out;
}

const png = (w: number, h: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#cc6633' } }).png().toBuffer();

/**
 * Issue 33's "Done when": with retention of 1 day and the clock moved forward, the files are gone from disk and S3 and
 * answer 410, and the usage report is unchanged. PGlite keeps its files on disk; PostgreSQL on S3 (s3rver behind the
 * SigV4-verifying front), with presigned URLs, so an expired file's URL must come back to mmgen to answer 410.
 */
for (const backend of backends()) {
  const store = backend === 'pglite' ? 'disk' : 's3';
  describe(`generation retention [${backend} + ${store}]`, backendOptions(backend), () => suite(backend, store));
}

function suite(backend: BackendName, store: 'disk' | 's3') {
  let s: TestServer;
  let s3: TestS3 | undefined;
  let s3client: S3Client | undefined;
  let api: ReturnType<typeof client>;
  let org: TestOrg;
  let other: TestOrg;
  const clock = new MovableClock();
  const SECRET = 'RETAINED-PROMPT-5d1e';

  beforeAll(async () => {
    let env: Record<string, string> = { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RETENTION_INTERVAL_MS: '86400000' };
    if (store === 's3') {
      s3 = await startTestS3();
      process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
      env = { ...env, ...s3.env({ MMGEN_S3_URLS: 'presigned' }) };
      s3client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
    }
    s = await startTestServer(backend, env, { clock });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
    other = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    s3client?.destroy();
    await s3?.close();
  });

  /** Every blob the store holds under a generation's or an upload's prefix. */
  async function storedKeys(): Promise<string[]> {
    const prefixes = ['outputs/', 'inputs/', 'uploads/', 'incoming/'];
    if (store === 'disk') {
      const root = join(s.config.dataDir, 'files');
      // Each blob's content type sits beside it in a `.type` file: both must go, and the blob is counted once.
      const all = prefixes.flatMap((p) => files(join(root, p)).map((f) => f.slice(root.length + 1)));
      for (const f of all.filter((k) => k.endsWith('.type'))) expect(all, f).toContain(f.slice(0, -'.type'.length));
      return all.filter((k) => !k.endsWith('.type'));
    }
    const r = await s3client!.send(new ListObjectsV2Command({ Bucket: s3!.bucket }));
    return (r.Contents ?? []).map((o) => o.Key!).filter((k) => prefixes.some((p) => k.startsWith(p)));
  }

  /** A model of the modality with the capability that takes every one of `fields`. */
  const model = async (modality: string, capability?: string, fields: string[] = []) => {
    const res = await api('GET', `/v1/models?modality=${modality}`, { key: org.live });
    type M = { slug: string; capabilities: string[]; parameters: { properties?: Record<string, unknown> } };
    const found = (res.body.data as M[]).find(
      (m) => (!capability || m.capabilities.includes(capability)) && fields.every((f) => f in (m.parameters.properties ?? {})),
    );
    expect(found, `a ${modality} model taking ${fields.join(', ')}`).toBeDefined();
    return found!.slug;
  };

  it('refuses a bad generation_days or file_days naming it, and takes null back to forever', async () => {
    const before = (await api('GET', '/v1/organization/data-policy', { key: org.live })).body;
    expect(before).toMatchObject({ generation_days: null, file_days: null, expiry: { generation_records: { oldest_kept_at: null, written_today_expires_on: null } } });
    for (const [param, value] of [['generation_days', 0], ['generation_days', 'one'], ['file_days', 3651], ['file_days', 1.5]] as const) {
      const bad = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { [param]: value } });
      expect([bad.status, bad.body.error?.code, bad.body.error?.param], `${param}=${value}`).toEqual([400, 'parameter_invalid', param]);
    }
    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { file_days: 30 } });
    expect(set.body).toMatchObject({ file_days: 30, generation_days: null });
    const reset = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { file_days: null } });
    expect(reset.body.file_days).toBeNull();
    // Each change is in the organization's audit log, with the values before and after; a refused one is not.
    const audit = (await api('GET', '/v1/audit-events?action=data_policy.updated', { key: org.live })).body.data as Array<{ before: { file_days: number | null }; after: { file_days: number | null } }>;
    expect(audit.map((e) => [e.before.file_days, e.after.file_days])).toEqual([[30, null], [null, 30]]);
  });

  it('with retention of 1 day and the clock moved forward, the files are gone from disk and S3 and answer 410, and the usage report is unchanged', async () => {
    const image = 'flux-schnell';
    const negative = await model('image', undefined, ['negative_prompt', 'num_outputs']);
    const edit = await model('image', 'image-to-image');
    const chat = await model('chat');
    // An upload, used by a generation (its input is stored under the generation), and another never used.
    const bytes = await png(64, 48);
    const uploads: string[] = [];
    for (let i = 0; i < 2; i++) {
      const up = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: bytes.length } });
      expect(up.status).toBe(201);
      const put = await putToUploadUrl(up.body.upload_url, up.body.headers, bytes);
      expect(put.status).toBe(200);
      expect((await api('GET', `/v1/uploads/${up.body.id}`, { key: org.live })).body.status).toBe('uploaded');
      uploads.push(up.body.id);
    }
    const gens: Array<{ id: string; charged_credits: number; outputs: Array<{ url: string }> }> = [];
    const make = async (path: string, body: Record<string, unknown>) => {
      const res = await api('POST', path, { key: org.live, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      gens.push(res.body);
      return res.body;
    };
    await make('/v1/images', { model: negative, prompt: `a lighthouse ${SECRET}`, negative_prompt: `fog ${SECRET}`, width: 256, height: 256, num_outputs: 2 });
    await make('/v1/images', { model: edit, prompt: `repaint ${SECRET}`, upload_id: uploads[0], width: 256, height: 256 });
    // A seeded request and its cache hit: two generations naming the same blobs.
    const seeded = await make('/v1/images', { model: image, prompt: `seeded ${SECRET}`, seed: 7, width: 256, height: 256 });
    const hit = await make('/v1/images', { model: image, prompt: `seeded ${SECRET}`, seed: 7, width: 256, height: 256 });
    expect(hit).toMatchObject({ cache_hit: true });
    const answered = await make('/v1/chat', { model: chat, messages: [{ role: 'user', content: `say ${SECRET}` }] });
    // Another organization, without retention: nothing of its is touched.
    const kept = await api('POST', '/v1/images', { key: other.live, body: { model: image, prompt: 'kept forever', width: 256, height: 256 } });
    expect(kept.status).toBe(200);

    const storedBefore = await storedKeys();
    // 4 of this organization's, 1 of the other's.
    expect(storedBefore.filter((k) => k.startsWith('outputs/'))).toHaveLength(5);
    expect(storedBefore.filter((k) => k.startsWith('uploads/'))).toHaveLength(2);
    expect(storedBefore.filter((k) => k.startsWith('inputs/'))).toHaveLength(1);
    for (const g of gens) for (const o of g.outputs) expect((await fetch(o.url)).status, o.url).toBe(200);
    const usageBefore = (await api('GET', '/v1/usage', { key: org.live })).body;
    const byModelBefore = (await api('GET', '/v1/usage?group_by=model', { key: org.live })).body;
    const ledgerBefore = (await s.db.query('SELECT * FROM ledger_entries WHERE organization_id = $1 ORDER BY id', [org.id])).rows;
    const walletBefore = (await api('GET', '/v1/wallet', { key: org.live })).body;
    expect(usageBefore.totals.charged_credits).toBeGreaterThan(0);

    const set = await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { generation_days: 1, file_days: 1 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ generation_days: 1, file_days: 1 });
    expect(set.body.expiry.files.written_today_expires_on).toBe(new Date(clock.now() + DAY_MS).toISOString().slice(0, 10));

    // Nothing is a day old yet: a run removes nothing.
    expect((await runRetention(s.runtime.deps)).generations).toEqual({ recordsReduced: 0, generationFilesExpired: 0, uploadsExpired: 0, blobsDeleted: 0 });
    clock.advance(DAY_MS + 60_000);

    // Two nodes at once, in batches of two: each blob is deleted once, and neither run fails.
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const runs = await Promise.all([0, 1].map(() => runGenerationRetention({ ...s.runtime.deps, log }, 2)));
    expect(warnings).toEqual([]);
    const sum = (k: keyof (typeof runs)[0]) => runs[0]![k] + runs[1]![k];
    expect(sum('generationFilesExpired')).toBe(gens.length);
    expect(sum('recordsReduced')).toBe(gens.length);
    expect(sum('uploadsExpired')).toBe(2);
    // 4 output files (2 + 1 + 1: the cache hit's are its source's) + 1 stored input + 2 uploads.
    expect(sum('blobsDeleted')).toBe(7);
    // A second run finds nothing left to do.
    expect((await runRetention(s.runtime.deps)).generations).toEqual({ recordsReduced: 0, generationFilesExpired: 0, uploadsExpired: 0, blobsDeleted: 0 });

    // Gone from the store: only the other organization's output is left.
    expect(await storedKeys()).toEqual(storedBefore.filter((k) => k.startsWith(`outputs/${kept.body.id}/`)));
    expect(await storedKeys()).toHaveLength(1);
    if (store === 'disk') expect(existsSync(join(s.config.dataDir, 'files', 'outputs', gens[0]!.id))).toBe(false);

    // Every URL handed out before (mmgen's or S3's, valid an hour, so long expired by now in real use) and every URL
    // handed out now answers 410 file_expired, in the contract's envelope.
    for (const g of gens) {
      const now = (await api('GET', `/v1/generations/${g.id}`, { key: org.live })).body;
      expect(now.files_expired_at).not.toBeNull();
      expect(now.outputs).toHaveLength(g.outputs.length);
      for (const o of now.outputs as Array<{ url: string }>) {
        expect(o.url.startsWith(`${s.url}/files/`), o.url).toBe(true);
        const res = await fetch(o.url);
        const body = (await res.json()) as { error: { code: string; type: string; message: string; request_id: string } };
        expect([res.status, body.error.code, body.error.type]).toEqual([410, 'file_expired', 'invalid_request_error']);
        expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
      }
    }
    // The prompts are gone from the generation: what it shows instead.
    const first = (await api('GET', `/v1/generations/${gens[0]!.id}`, { key: org.live })).body;
    expect(first).toMatchObject({ status: 'succeeded', prompt: null, charged_credits: gens[0]!.charged_credits });
    expect(first.prompt_expired_at).not.toBeNull();
    expect(first.params).not.toHaveProperty('prompt');
    expect(first.params).not.toHaveProperty('negative_prompt');
    expect(first.params).toMatchObject({ width: 256, height: 256 });
    const chatNow = (await api('GET', `/v1/generations/${answered.id}`, { key: org.live })).body;
    expect(chatNow).toMatchObject({ prompt: null, message: null, usage: answered.usage });
    expect(chatNow.params).not.toHaveProperty('messages');
    const listed = JSON.stringify((await api('GET', '/v1/generations?limit=100', { key: org.live })).body);
    expect(listed).not.toContain(SECRET);
    const rows = JSON.stringify((await s.db.query('SELECT * FROM generations WHERE organization_id = $1', [org.id])).rows);
    expect(rows).not.toContain(SECRET);

    // The usage report, the ledger and the wallet are as they were.
    expect((await api('GET', '/v1/usage', { key: org.live })).body).toEqual(usageBefore);
    expect((await api('GET', '/v1/usage?group_by=model', { key: org.live })).body).toEqual(byModelBefore);
    expect((await s.db.query('SELECT * FROM ledger_entries WHERE organization_id = $1 ORDER BY id', [org.id])).rows).toEqual(ledgerBefore);
    expect((await api('GET', '/v1/wallet', { key: org.live })).body.balance_credits).toBe(walletBefore.balance_credits);

    // An expired upload says so, and cannot be used.
    const up = (await api('GET', `/v1/uploads/${uploads[1]}`, { key: org.live })).body;
    expect(up.file_expired_at).not.toBeNull();
    const reuse = await api('POST', '/v1/images', { key: org.live, body: { model: edit, prompt: 'again', upload_id: uploads[1], width: 256, height: 256 } });
    expect([reuse.status, reuse.body.error.code, reuse.body.error.param]).toEqual([410, 'file_expired', 'upload_id']);
    // The same seeded request is no cache hit on an expired source: it is generated afresh.
    const again = await api('POST', '/v1/images', { key: org.live, body: { model: image, prompt: `seeded ${SECRET}`, seed: 7, width: 256, height: 256 } });
    expect(again.body.cache_hit).toBe(false);
    expect((await fetch(again.body.outputs[0].url)).status).toBe(200);

    // The organization without retention keeps everything.
    const otherNow = (await api('GET', `/v1/generations/${kept.body.id}`, { key: other.live })).body;
    expect(otherNow).toMatchObject({ prompt: 'kept forever', prompt_expired_at: null, files_expired_at: null });
    expect((await fetch(otherNow.outputs[0].url)).status).toBe(200);
  });

  it("a cache hit's shared files outlive their source until the copy expires too", async () => {
    const image = 'flux-schnell';
    expect((await api('PATCH', '/v1/organization/data-policy', { key: org.live, body: { file_days: 2 } })).status).toBe(200);
    const body = { model: image, prompt: 'shared', seed: 11, width: 256, height: 256 };
    const source = (await api('POST', '/v1/images', { key: org.live, body })).body;
    const copy = (await api('POST', '/v1/images', { key: org.live, body })).body;
    expect(copy.cache_hit).toBe(true);
    // The source is older than the retention, its copy is not.
    await s.db.query(`UPDATE generations SET created_at = created_at - interval '3 days' WHERE id = $1`, [source.id]);
    const r = await runGenerationRetention(s.runtime.deps);
    expect(r).toMatchObject({ generationFilesExpired: 1, blobsDeleted: 0 });
    const sourceNow = (await api('GET', `/v1/generations/${source.id}`, { key: org.live })).body;
    expect((await fetch(sourceNow.outputs[0].url)).status).toBe(410);
    const copyNow = (await api('GET', `/v1/generations/${copy.id}`, { key: org.live })).body;
    expect((await fetch(copyNow.outputs[0].url)).status).toBe(200);
    // The copy's day comes: now the bytes go.
    clock.advance(2 * DAY_MS + 60_000);
    const later = await runGenerationRetention(s.runtime.deps);
    expect(later.blobsDeleted).toBeGreaterThanOrEqual(1);
    expect((await storedKeys()).filter((k) => k.startsWith(`outputs/${source.id}/`))).toEqual([]);
    const copyLater = (await api('GET', `/v1/generations/${copy.id}`, { key: org.live })).body;
    expect((await fetch(copyLater.outputs[0].url)).status).toBe(410);
  });
}
