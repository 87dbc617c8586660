import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWallet, ledgerSums } from '../../src/billing/credits.js';
import { parseMp4 } from '../../src/media/index.js';
import { validateGlb } from '../../src/providers/simulator/render/index.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectInvariant, fetchBytes, waitTerminal } from '../helpers/generations.js';

type Api = ReturnType<typeof client>;

function slugOf(s: TestServer, modality: string, index = 0): string {
  return s.runtime.deps.catalog.list({ modality: modality as never })[index]!.slug;
}




describeOnBackend('generations', 'postgres', (backend) => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => s?.close());

  async function expectWalletConsistent(orgId: string) {
    const wallet = await getWallet(s.db, orgId);
    expect(await ledgerSums(s.db, orgId)).toEqual({ balance_credits: wallet.balance_credits, held_credits: wallet.held_credits });
    return wallet;
  }

  describe('images (synchronous)', () => {
    it('a test key gets real PNGs of the requested size, for free', async () => {
      const res = await api('POST', '/v1/images', {
        key: org.test,
        body: { model: slugOf(s, 'image'), prompt: 'a lighthouse at dawn', num_outputs: 2, width: 256, height: 320 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const g = res.body;
      expect(g).toMatchObject({ object: 'generation', status: 'succeeded', modality: 'image', prompt: 'a lighthouse at dawn', cache_hit: false, livemode: false, reserved_credits: 0, charged_credits: 0, refunded_credits: 0 });
      expect(g.id).toMatch(/^gen_/);
      expect(g.outputs).toHaveLength(2);
      for (const o of g.outputs) {
        expect(o).toMatchObject({ type: 'image', mime: 'image/png', width: 256, height: 320, duration_s: null, moderation_status: 'approved' });
        expect(o.id).toMatch(/^out_/);
        const bytes = await fetchBytes(o.url);
        expect(bytes.subarray(1, 4).toString()).toBe('PNG');
        const meta = await sharp(bytes).metadata();
        expect([meta.width, meta.height]).toEqual([256, 320]);
      }
      expect(g.completed_at).not.toBeNull();
    });

    it('a live key is charged the catalog price: reserved = charged + refunded, wallet = ledger', async () => {
      const model = s.runtime.deps.catalog.list({ modality: 'image' })[0]!;
      const before = await getWallet(s.db, org.id);
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: model.slug, prompt: 'x', num_outputs: 3, width: 256, height: 256 } });
      expect(res.status).toBe(200);
      const expected = Math.ceil((3 * model.pricing.unit_cost_usd) / 0.001 - 1e-9);
      expect(res.body.charged_credits).toBe(expected);
      expect(res.body.reserved_credits).toBe(expected);
      expect(res.body.refunded_credits).toBe(0);
      expect(res.body.livemode).toBe(true);
      const after = await expectWalletConsistent(org.id);
      expect(after.balance_credits).toBe(before.balance_credits - expected);
      expect(after.held_credits).toBe(0);
    });

    it('a synchronous failure is a 502 upstream_error and is refunded', async () => {
      const before = await getWallet(s.db, org.id);
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: slugOf(s, 'image'), prompt: 'x', simulate: { outcome: 'failure' } } });
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
      const id = /gen_\w+/.exec(res.body.error.message)![0];
      const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
      expect(g).toMatchObject({ status: 'failed', charged_credits: 0 });
      expect(g.refunded_credits).toBe(g.reserved_credits);
      expect(g.error.code).toBe('upstream_error');
      expect(await expectWalletConsistent(org.id)).toEqual(before);
    });

    it('402 when the wallet cannot cover it: nothing created, nothing moved', async () => {
      const poor = await s.createOrg({ credits: 1 });
      const res = await api('POST', '/v1/images', { key: poor.live, body: { model: slugOf(s, 'image'), prompt: 'x', num_outputs: 4 } });
      expect(res.status).toBe(402);
      expect(res.body.error).toMatchObject({ type: 'billing_error', code: 'insufficient_credits' });
      const count = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [poor.id]);
      expect(count.rows[0]!.n).toBe(0);
      expect(await expectWalletConsistent(poor.id)).toMatchObject({ balance_credits: 1, held_credits: 0 });
      // A test key still generates on an empty wallet.
      expect((await api('POST', '/v1/images', { key: poor.test, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } })).status).toBe(200);
    });

    it('an explicit seed makes a cacheable result; cache: false opts out', async () => {
      const body = { model: 'flux-schnell', prompt: 'cache me', seed: 42, width: 256, height: 256 };
      const first = (await api('POST', '/v1/images', { key: org.live, body })).body;
      expect(first.cache_hit).toBe(false);
      const second = (await api('POST', '/v1/images', { key: org.live, body })).body;
      expect(second).toMatchObject({ cache_hit: true, status: 'succeeded', reserved_credits: 0, charged_credits: 0, refunded_credits: 0 });
      expect(second.id).not.toBe(first.id);
      expect(await fetchBytes(second.outputs[0].url)).toEqual(await fetchBytes(first.outputs[0].url));
      const third = (await api('POST', '/v1/images', { key: org.live, body: { ...body, cache: false } })).body;
      expect(third.cache_hit).toBe(false);
      expect(third.charged_credits).toBeGreaterThan(0);
      // The same seed is deterministic even when not cached.
      expect(await fetchBytes(third.outputs[0].url)).toEqual(await fetchBytes(first.outputs[0].url));
      // Another organization never hits this cache.
      const other = await s.createOrg({ credits: 10_000 });
      expect((await api('POST', '/v1/images', { key: other.live, body })).body.cache_hit).toBe(false);
    });
  });

  describe('voice and chat (synchronous)', () => {
    it('voice: one WAV whose length matches its duration_s', async () => {
      const text = 'Hello from the simulator, this sentence becomes speech.';
      const res = await api('POST', '/v1/voice', { key: org.live, body: { model: slugOf(s, 'voice'), text, speed: 1.25, voice_id: 'alloy' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.prompt).toBe(text);
      expect(res.body.outputs).toHaveLength(1);
      const o = res.body.outputs[0];
      expect(o).toMatchObject({ type: 'audio', mime: 'audio/wav', width: null, height: null });
      const wav = await fetchBytes(o.url);
      expect(wav.subarray(0, 4).toString()).toBe('RIFF');
      const rate = wav.readUInt32LE(24);
      const dataBytes = wav.length - 44;
      expect(dataBytes / 2 / rate).toBeCloseTo(Number(o.duration_s), 2);
      expectInvariant(res.body);
    });

    it('chat: charged per output token, the rest of the max_tokens reservation refunded', async () => {
      const model = s.runtime.deps.catalog.list({ modality: 'chat' })[0]!;
      const res = await api('POST', '/v1/chat', {
        key: org.live,
        body: { model: model.slug, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'Say hi' }], max_tokens: 500, simulate: { output_tokens: 40 } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const g = res.body;
      expect(g.message.role).toBe('assistant');
      expect(g.message.content.length).toBeGreaterThan(0);
      expect(g.usage.output_tokens).toBe(40);
      expect(g.usage.input_tokens).toBeGreaterThan(0);
      expect(g.prompt).toBe('Say hi');
      const per = model.pricing.unit_cost_usd;
      expect(g.reserved_credits).toBe(Math.ceil((500 * per) / 0.001 - 1e-9));
      expect(g.charged_credits).toBe(Math.ceil((40 * per) / 0.001 - 1e-9));
      expectInvariant(g);
      expect(g.outputs).toEqual([]);
    });
  });

  describe('asynchronous modalities', () => {
    it('video: 202 queued with generation_id, then an MP4 of the requested length and a JPEG thumbnail', async () => {
      const res = await api('POST', '/v1/videos', { key: org.live, body: { model: 'wan-2.2', prompt: 'waves', duration_s: 2 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(['queued', 'running', 'succeeded']).toContain(res.body.status);
      expect(res.body.generation_id).toBe(res.body.id);
      expect(res.body.reserved_credits).toBeGreaterThan(0);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status).toBe('succeeded');
      const video = g.outputs.find((o: any) => o.type === 'video');
      const thumb = g.outputs.find((o: any) => o.type === 'thumbnail');
      expect(video).toMatchObject({ mime: 'video/mp4', duration_s: '2' });
      const mp4 = parseMp4(await fetchBytes(video.url));
      expect(mp4).not.toBeNull();
      expect(mp4!.durationS).toBeCloseTo(2, 1);
      expect(thumb.mime).toBe('image/jpeg');
      expect((await fetchBytes(thumb.url)).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expectInvariant(g);
    });

    it('music: audio of duration_s seconds', async () => {
      const res = await api('POST', '/v1/music', { key: org.live, body: { model: slugOf(s, 'music'), prompt: 'lofi', duration_s: 6, with_vocals: true } });
      expect(res.status).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ type: 'audio', duration_s: '6' });
      expectInvariant(g);
    });

    it('3d: a GLB that passes glTF validation, and a thumbnail', async () => {
      const res = await api('POST', '/v1/three-d', { key: org.live, body: { model: 'rodin', prompt: 'a small castle' } });
      expect(res.status).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      const mesh = g.outputs.find((o: any) => o.type === 'mesh');
      expect(mesh.mime).toBe('model/gltf-binary');
      const glb = await fetchBytes(mesh.url);
      expect(glb.subarray(0, 4).toString()).toBe('glTF');
      expect((await validateGlb(glb)).numErrors).toBe(0);
      expect(g.outputs.some((o: any) => o.type === 'thumbnail')).toBe(true);
    });

    it('a failed async generation is refunded in full and says why', async () => {
      const before = await getWallet(s.db, org.id);
      const res = await api('POST', '/v1/music', { key: org.live, body: { model: slugOf(s, 'music'), prompt: 'x', simulate: { outcome: 'failure' } } });
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status).toBe('failed');
      expect(g.error).toMatchObject({ code: 'upstream_error' });
      expect(g.charged_credits).toBe(0);
      expect(g.refunded_credits).toBe(g.reserved_credits);
      expect(await expectWalletConsistent(org.id)).toEqual(before);
    });
  });

  describe('cancel and retry', () => {
    it('cancel refunds everything; a second cancel is 409', async () => {
      const before = await getWallet(s.db, org.id);
      const res = await api('POST', '/v1/videos', { key: org.live, body: { model: 'wan-2.2', prompt: 'slow', duration_s: 3, simulate: { delay_ms: 10_000 } } });
      const canceled = await api('POST', `/v1/generations/${res.body.id}/cancel`, { key: org.live });
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'canceled', charged_credits: 0 });
      expect(canceled.body.refunded_credits).toBe(canceled.body.reserved_credits);
      expect(await expectWalletConsistent(org.id)).toEqual(before);
      const again = await api('POST', `/v1/generations/${res.body.id}/cancel`, { key: org.live });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('generation_not_cancelable');
      // The upstream job was told to stop.
      await new Promise((r) => setTimeout(r, 300));
      const sim = await s.db.query<{ canceled_at: Date | null }>(`SELECT canceled_at FROM simulator_jobs WHERE client_ref = $1`, [`${res.body.id}#1`]);
      if (sim.rows[0]) expect(sim.rows[0].canceled_at).not.toBeNull();
      // and it stays canceled
      expect((await api('GET', `/v1/generations/${res.body.id}`, { key: org.live })).body.status).toBe('canceled');
    });

    it('lost, then retry: reconciled with the upstream job, submitted once, charged once', async () => {
      const model = s.runtime.deps.catalog.list({ modality: 'music' })[0]!;
      const before = await getWallet(s.db, org.id);
      const res = await api('POST', '/v1/music', { key: org.live, body: { model: model.slug, prompt: 'lost one', duration_s: 5, simulate: { outcome: 'lost' } } });
      const failed = await waitTerminal(api, org.live, res.body.id);
      expect(failed.status).toBe('failed');
      const p = failed.reserved_credits;
      expect(failed.refunded_credits).toBe(p);

      const retried = await api('POST', `/v1/generations/${res.body.id}/retry`, { key: org.live });
      expect(retried.status).toBe(202);
      expect(retried.body.status).toBe('queued');
      expect(retried.body.error).toBeNull();
      const done = await waitTerminal(api, org.live, res.body.id);
      expect(done.status).toBe('succeeded');
      expect(done.reserved_credits).toBe(2 * p);
      expect(done.charged_credits).toBe(p);
      expect(done.refunded_credits).toBe(p);
      const submissions = await s.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM simulator_jobs WHERE client_ref LIKE $1`, [`${res.body.id}#%`]);
      expect(submissions.rows[0]!.n).toBe(1);
      const after = await expectWalletConsistent(org.id);
      expect(after.balance_credits).toBe(before.balance_credits - p);
      expect(after.held_credits).toBe(before.held_credits);
    });

    it('a plain failure retried is submitted again and succeeds', async () => {
      const res = await api('POST', '/v1/three-d', { key: org.live, body: { model: 'rodin', prompt: 'x', simulate: { outcome: 'failure' } } });
      expect((await waitTerminal(api, org.live, res.body.id)).status).toBe('failed');
      await api('POST', `/v1/generations/${res.body.id}/retry`, { key: org.live });
      const done = await waitTerminal(api, org.live, res.body.id);
      expect(done.status).toBe('succeeded');
      expectInvariant(done);
      const subs = await s.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM simulator_jobs WHERE client_ref LIKE $1`, [`${res.body.id}#%`]);
      expect(subs.rows[0]!.n).toBe(2);
    });

    it('only failed asynchronous generations are retryable (409)', async () => {
      const ok = await api('POST', '/v1/images', { key: org.test, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } });
      const r1 = await api('POST', `/v1/generations/${ok.body.id}/retry`, { key: org.test });
      expect(r1.status).toBe(409);
      expect(r1.body.error.code).toBe('generation_not_retryable');
      const bad = await api('POST', '/v1/voice', { key: org.test, body: { model: slugOf(s, 'voice'), text: 'x', simulate: { outcome: 'failure' } } });
      const id = /gen_\w+/.exec(bad.body.error.message)![0];
      expect((await api('POST', `/v1/generations/${id}/retry`, { key: org.test })).status).toBe(409);
    });
  });

  describe('validation', () => {
    it('every bound answers 400 naming the field', async () => {
      const voice = slugOf(s, 'voice');
      const image = slugOf(s, 'image');
      const cases: Array<[string, unknown, string, string]> = [
        ['/v1/voice', { model: voice, text: 'x'.repeat(5001) }, 'parameter_invalid', 'text'],
        ['/v1/voice', { model: voice, text: 'hi', speed: 2.5 }, 'parameter_invalid', 'speed'],
        ['/v1/voice', { model: voice, text: 'hi', speed: 0.4 }, 'parameter_invalid', 'speed'],
        ['/v1/voice', { model: voice }, 'parameter_missing', 'text'],
        ['/v1/voice', { text: 'hi' }, 'parameter_missing', 'model'],
        ['/v1/images', { model: image, prompt: 'x', num_outputs: 5 }, 'parameter_invalid', 'num_outputs'],
        ['/v1/images', { model: image, prompt: 'x', width: 100 }, 'parameter_invalid', 'width'],
        ['/v1/images', { model: image, prompt: 'x', width: 1001 }, 'parameter_invalid', 'width'],
        ['/v1/images', { model: image, prompt: 'x', seed: -1 }, 'parameter_invalid', 'seed'],
        ['/v1/images', { model: image, prompt: 'x', colour: 'red' }, 'parameter_unknown', 'colour'],
        ['/v1/images', { model: image, prompt: '' }, 'parameter_invalid', 'prompt'],
        ['/v1/videos', { model: slugOf(s, 'video'), prompt: 'x', duration_s: 21 }, 'parameter_invalid', 'duration_s'],
        ['/v1/music', { model: slugOf(s, 'music'), prompt: 'x', duration_s: 4 }, 'parameter_invalid', 'duration_s'],
        ['/v1/chat', { model: slugOf(s, 'chat'), messages: [] }, 'parameter_invalid', 'messages'],
        ['/v1/chat', { model: slugOf(s, 'chat'), messages: [{ role: 'robot', content: 'x' }] }, 'parameter_invalid', 'messages[0].role'],
        ['/v1/chat', { model: slugOf(s, 'chat'), messages: [{ role: 'user', content: 'x' }], max_tokens: 40000 }, 'parameter_invalid', 'max_tokens'],
        ['/v1/upscale', { model: slugOf(s, 'upscale') }, 'parameter_missing', 'upload_id'],
        ['/v1/upscale', { model: slugOf(s, 'upscale'), upload_id: 'upl_x', scale: 3 }, 'parameter_invalid', 'scale'],
        ['/v1/three-d', { model: 'hunyuan3d-3' }, 'parameter_missing', 'prompt'],
        ['/v1/images', { model: image, prompt: 'x', simulate: { outcome: 'maybe' } }, 'parameter_invalid', 'simulate.outcome'],
      ];
      for (const [path, body, code, param] of cases) {
        const res = await api('POST', path, { key: org.live, body });
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(res.body.error, `${path} ${JSON.stringify(body)}`).toMatchObject({ code, param });
      }
    });

    it('model errors: 404 unknown, 410 delisted, 400 other modality, 503 without a provider', async () => {
      const delisted = s.runtime.deps.catalog.models.find((m) => m.status === 'delisted' && m.modality === 'image')!;
      const cases: Array<[string, number, string]> = [
        ['no-such-model', 404, 'model_not_found'],
        [delisted.slug, 410, 'model_unavailable'],
        [slugOf(s, 'chat'), 400, 'model_modality_mismatch'],
      ];
      for (const [model, status, code] of cases) {
        const res = await api('POST', '/v1/images', { key: org.live, body: { model, prompt: 'x' } });
        expect(res.status, model).toBe(status);
        expect(res.body.error).toMatchObject({ code, param: 'model' });
      }
    });
  });

  describe('reads, permissions and isolation', () => {
    it('lists newest first with filters and paging', async () => {
      const fresh = await s.createOrg();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await api('POST', '/v1/chat', { key: fresh.test, body: { model: slugOf(s, 'chat'), messages: [{ role: 'user', content: `q${i}` }] } })).body.id);
      ids.push((await api('POST', '/v1/images', { key: fresh.test, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } })).body.id);
      const all = (await api('GET', '/v1/generations?limit=2', { key: fresh.test })).body;
      expect(all.data.map((g: any) => g.id)).toEqual([ids[3], ids[2]]);
      expect(all.has_more).toBe(true);
      const next = (await api('GET', `/v1/generations?limit=5&starting_after=${ids[2]}`, { key: fresh.test })).body;
      expect(next.data.map((g: any) => g.id)).toEqual([ids[1], ids[0]]);
      const chats = (await api('GET', '/v1/generations?modality=chat', { key: fresh.test })).body;
      expect(chats.data).toHaveLength(3);
      expect((await api('GET', '/v1/generations?status=failed', { key: fresh.test })).body.data).toHaveLength(0);
      expect((await api('GET', '/v1/generations', { key: fresh.live })).body.data).toHaveLength(0);
    });

    it("other organizations and the other mode get 404; scopes are enforced", async () => {
      const g = (await api('POST', '/v1/images', { key: org.test, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } })).body;
      const other = await s.createOrg();
      for (const key of [other.test, other.live, org.live]) {
        expect((await api('GET', `/v1/generations/${g.id}`, { key })).status).toBe(404);
        expect((await api('POST', `/v1/generations/${g.id}/cancel`, { key })).status).toBe(404);
      }
      const imagesOnly = (await api('POST', '/v1/api-keys', { key: org.test, body: { name: 'img', scopes: ['images:write'] } })).body.key;
      expect((await api('POST', '/v1/images', { key: imagesOnly, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } })).status).toBe(200);
      const vid = await api('POST', '/v1/videos', { key: imagesOnly, body: { model: slugOf(s, 'video'), prompt: 'x' } });
      expect(vid.status).toBe(403);
      expect(vid.body.error.code).toBe('insufficient_role');
      expect((await api('GET', `/v1/generations/${g.id}`, { key: imagesOnly })).status).toBe(403);
      const viewer = (await api('POST', '/v1/api-keys', { key: org.test, body: { name: 'v', role: 'viewer' } })).body.key;
      expect((await api('POST', '/v1/images', { key: viewer, body: { model: slugOf(s, 'image'), prompt: 'x' } })).status).toBe(403);
      expect((await api('GET', `/v1/generations/${g.id}`, { key: viewer })).status).toBe(200);
    });

    it('a paused organization cannot spend, and can read', async () => {
      const paused = await s.createOrg({ credits: 1000 });
      await api('PATCH', '/v1/organization', { key: paused.live, body: { paused: true } });
      const res = await api('POST', '/v1/images', { key: paused.live, body: { model: slugOf(s, 'image'), prompt: 'x' } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('organization_paused');
      expect((await api('GET', '/v1/generations', { key: paused.live })).status).toBe(200);
    });
  });
});

describeOnBackend('live keys without the simulator', 'postgres', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(async () => s?.close());

  it('503 provider_unavailable before anything is reserved; test keys still work', async () => {
    const org = await s.createOrg({ credits: 10_000 });
    const api = client(s.url);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: slugOf(s, 'image'), prompt: 'x' } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('provider_unavailable');
    expect(await getWallet(s.db, org.id)).toMatchObject({ balance_credits: 10_000, held_credits: 0 });
    expect((await api('POST', '/v1/images', { key: org.test, body: { model: slugOf(s, 'image'), prompt: 'x', width: 256, height: 256 } })).status).toBe(200);
  });
});
