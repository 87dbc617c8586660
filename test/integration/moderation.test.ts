import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalImageClassifier } from '../../src/moderation/local-image-classifier.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { expectInvariant, waitTerminal } from '../helpers/generations.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { S3_CREDENTIALS, startTestS3, type TestS3 } from '../helpers/s3.js';
import { putToUploadUrl } from '../helpers/uploads.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

/**
 * Moderation (contract §11): every output gets a verdict before it is served;
 * blocked files are never served (451) nor charged; a generation all of whose
 * outputs are blocked fails with content_blocked, refunded; the policy is the
 * organization's. Verdicts are forced here with simulate.moderation (the test
 * aid); the real classifiers have tests of their own.
 */
type Api = ReturnType<typeof client>;

async function pngBytes(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: '#335577' } }).png().toBuffer();
}

/** One request per modality that makes files, from a live key on the simulator. */
function requests(portrait: string): Array<{ modality: string; path: string; body: Record<string, unknown>; sync: boolean }> {
  return [
    { modality: 'image', path: '/v1/images', body: { model: 'flux-schnell', prompt: 'a lighthouse', num_outputs: 2, width: 256, height: 256 }, sync: true },
    { modality: 'video', path: '/v1/videos', body: { model: 'wan-2.2', prompt: 'waves', duration_s: 1 }, sync: false },
    { modality: 'voice', path: '/v1/voice', body: { model: 'tts-1', text: 'Hello there.' }, sync: true },
    { modality: 'music', path: '/v1/music', body: { model: 'stable-audio-2.5', prompt: 'calm piano', duration_s: 5 }, sync: false },
    { modality: 'avatar', path: '/v1/avatars', body: { model: 'fabric-1.0-text', upload_id: portrait, text: 'Hi.' }, sync: false },
    { modality: '3d', path: '/v1/three-d', body: { model: 'rodin', prompt: 'a chair' }, sync: false },
    { modality: 'upscale', path: '/v1/upscale', body: { model: 'real-esrgan', upload_id: portrait, scale: 2 }, sync: false },
  ];
}

describeOnBackend('moderation', 'pglite', (backend) => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  let portrait: string;

  async function upload(key: string, bytes: Buffer): Promise<string> {
    const created = await api('POST', '/v1/uploads', { key, body: { content_type: 'image/png', size_bytes: bytes.length } });
    const res = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
    expect(res.status).toBe(200);
    return created.body.id as string;
  }

  /** Sends the request with a forced verdict and returns the finished generation (a sync one's failure answer too). */
  async function generate(r: ReturnType<typeof requests>[number], verdict: string, key = org.live): Promise<{ status: number; g: any; answer: any }> {
    const res = await api('POST', r.path, { key, body: { ...r.body, simulate: { moderation: verdict } } });
    if (r.sync && res.status !== 200) {
      const id = /gen_\w+/.exec(res.body.error.message)![0];
      return { status: res.status, g: (await api('GET', `/v1/generations/${id}`, { key })).body, answer: res.body };
    }
    expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
    return { status: res.status, g: r.sync ? res.body : await waitTerminal(api, key, res.body.id), answer: res.body };
  }

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    api = client(s.url);
    org = await s.createOrg({ credits: 5_000_000 });
    portrait = await upload(org.live, await pngBytes());
  });
  afterAll(async () => s?.close());

  it('the all-blocked failure is delivered as a signed generation.failed webhook naming content_blocked', async () => {
    const received: Array<{ raw: string; signature: string }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ raw: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-service-signature']) });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const hook = await api('POST', '/v1/webhooks', { key: org.test, body: { url, events: ['generation.failed'] } });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const res = await api('POST', '/v1/videos', { key: org.test, body: { model: 'wan-2.2', prompt: 'waves', duration_s: 1, simulate: { moderation: 'blocked' } } });
      await waitTerminal(api, org.test, res.body.id);
      await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThan(0);
      const event = verifyWebhook(received[0]!.raw, received[0]!.signature, hook.body.secret) as unknown as { type: string; data: { generation_id: string; error: { code: string }; charged_credits: number } };
      expect(event.type).toBe('generation.failed');
      expect(event.data).toMatchObject({ generation_id: res.body.id, charged_credits: 0, error: { code: 'content_blocked' } });
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  describe('the policy', () => {
    it('defaults to block at 0.8 with no blocklist; the owner changes it, a developer cannot', async () => {
      const fresh = await s.createOrg({ credits: 0 });
      expect((await api('GET', '/v1/organization/moderation', { key: fresh.live })).body).toEqual({ object: 'moderation_policy', action: 'block', threshold: 0.8, prompt_blocklist: [] });
      const patched = await api('PATCH', '/v1/organization/moderation', { key: fresh.live, body: { action: 'flag', threshold: 0.5, prompt_blocklist: ['Forbidden Word', 'forbidden word', ' other '] } });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body).toEqual({ object: 'moderation_policy', action: 'flag', threshold: 0.5, prompt_blocklist: ['forbidden word', 'other'] });
      expect((await api('GET', '/v1/organization/moderation', { key: fresh.live })).body.threshold).toBe(0.5);
      // Only the fields sent change.
      expect((await api('PATCH', '/v1/organization/moderation', { key: fresh.live, body: { threshold: 0.9 } })).body).toMatchObject({ action: 'flag', threshold: 0.9 });
      const dev = await api('POST', '/v1/api-keys', { key: fresh.live, body: { name: 'dev', role: 'developer' } });
      const refused = await api('PATCH', '/v1/organization/moderation', { key: dev.body.key, body: { action: 'block' } });
      expect(refused.status).toBe(403);
      expect((await api('GET', '/v1/organization/moderation', { key: dev.body.key })).status).toBe(200);
      for (const body of [{ threshold: 1.5 }, { action: 'delete' }, { prompt_blocklist: [''] }, { extra: true }]) {
        const bad = await api('PATCH', '/v1/organization/moderation', { key: fresh.live, body });
        expect(bad.status, JSON.stringify(body)).toBe(400);
      }
    });
  });

  describe('forced verdicts, every modality that makes files', () => {
    for (const verdict of ['approved', 'flagged'] as const) {
      it(`${verdict}: served, marked, charged as priced`, async () => {
        for (const r of requests(portrait)) {
          const { g } = await generate(r, verdict);
          expect(g.status, `${r.modality}: ${JSON.stringify(g.error)}`).toBe('succeeded');
          expect(g.outputs.length, r.modality).toBeGreaterThan(0);
          for (const o of g.outputs) {
            expect(o.moderation_status, `${r.modality} ${o.type}`).toBe(verdict);
            expect((await fetch(o.url)).status, `${r.modality} ${o.type}`).toBe(200);
          }
          expect(g.charged_credits, r.modality).toBeGreaterThan(0);
          expectInvariant(g);
        }
      }, 120_000);
    }

    it('blocked: failed with content_blocked, nothing charged, every file 451 (a synchronous request answers 451 too)', async () => {
      const before = await expectWalletMatchesLedger(s.db, org.id);
      for (const r of requests(portrait)) {
        const { status, g, answer } = await generate(r, 'blocked');
        if (r.sync) {
          expect(status, r.modality).toBe(451);
          expect(answer.error).toMatchObject({ code: 'content_blocked', type: 'invalid_request_error' });
        }
        expect(g.status, r.modality).toBe('failed');
        expect(g.error, r.modality).toMatchObject({ code: 'content_blocked' });
        expect(g.charged_credits, r.modality).toBe(0);
        expect(g.refunded_credits, r.modality).toBe(g.reserved_credits);
        expect(g.outputs.length, r.modality).toBeGreaterThan(0);
        for (const o of g.outputs) {
          expect(o.moderation_status).toBe('blocked');
          const file = await fetch(o.url);
          expect(file.status, `${r.modality} ${o.type}`).toBe(451);
          expect(((await file.json()) as { error: { code: string } }).error.code).toBe('content_blocked');
        }
        if (!r.sync) {
          const retried = await api('POST', `/v1/generations/${g.id}/retry`, { key: org.live });
          expect(retried.status, r.modality).toBe(409);
          expect(retried.body.error.code).toBe('generation_not_retryable');
        }
        const events = await s.db.query<{ type: string; data: { error: { code: string } } }>(`SELECT type, data FROM events WHERE data->>'generation_id' = $1 ORDER BY seq`, [g.id]);
        expect(events.rows.map((e) => e.type), r.modality).toEqual(['generation.failed']);
        expect(events.rows[0]!.data.error.code).toBe('content_blocked');
      }
      const after = await expectWalletMatchesLedger(s.db, org.id);
      expect(after.balance).toBe(before.balance);
      expect(after.held).toBe(before.held);
    }, 120_000);

    it('test keys run the same pipeline', async () => {
      const { status, g } = await generate(requests(portrait)[0]!, 'blocked', org.test);
      expect(status).toBe(451);
      expect(g.outputs.every((o: { moderation_status: string }) => o.moderation_status === 'blocked')).toBe(true);
    });

    it('simulate.moderation only steers the simulator: a real provider\'s request with it is refused', async () => {
      const live = await startTestServer(backend, { REPLICATE_API_TOKEN: 'r8_x', REPLICATE_BASE_URL: 'http://127.0.0.1:9' });
      try {
        const o = await live.createOrg({ credits: 1000 });
        const res = await client(live.url)('POST', '/v1/images', { key: o.live, body: { model: 'flux-schnell', prompt: 'x', simulate: { moderation: 'blocked' } } });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'simulate' });
      } finally {
        await live.close();
      }
    });
  });
});

describeOnBackend('the local classifier on a provider\'s images', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  const local = new LocalImageClassifier();

  beforeAll(async () => {
    // Real adapters against their loopback fakes: these outputs are a provider's, judged by the classifier's scores.
    fakes = await startFakes({ jobMs: 20 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_MODERATION_LOCAL: 'on' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
    await local.close();
  });

  const policy = (body: Record<string, unknown>) => api('PATCH', '/v1/organization/moderation', { key: org.live, body });

  it('judges by the model\'s real score: approved with the threshold above it, blocked (not charged) with it below', async () => {
    const body = { model: 'flux-schnell', prompt: 'a field of sunflowers under a blue sky', seed: 11, cache: false };
    expect((await policy({ action: 'block', threshold: 1 })).status).toBe(200);
    const first = await api('POST', '/v1/images', { key: org.live, body });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.outputs[0].moderation_status).toBe('approved');
    // The same bytes through the same model, here in the test: its highest score.
    const bytes = Buffer.from(await (await fetch(first.body.outputs[0].url)).arrayBuffer());
    const scores = await local.classify(bytes);
    const top = Math.max(...Object.values(scores));
    expect(top).toBeGreaterThan(0);
    expect(top).toBeLessThan(1);
    // Just above it: approved; just below: blocked, the generation failed and refunded.
    expect((await policy({ threshold: Math.min(1, top * 1.5 + 1e-6) })).status).toBe(200);
    expect((await api('POST', '/v1/images', { key: org.live, body })).body.outputs[0].moderation_status).toBe('approved');
    expect((await policy({ threshold: top / 2 })).status).toBe(200);
    const blocked = await api('POST', '/v1/images', { key: org.live, body });
    expect(blocked.status).toBe(451);
    const id = /gen_\w+/.exec(blocked.body.error.message)![0];
    expect((await api('GET', `/v1/generations/${id}`, { key: org.live })).body).toMatchObject({ status: 'failed', charged_credits: 0, error: { code: 'content_blocked' } });
    // With action flag, the same image is served, marked, and charged.
    expect((await policy({ action: 'flag' })).status).toBe(200);
    const flagged = await api('POST', '/v1/images', { key: org.live, body });
    expect(flagged.body.outputs[0].moderation_status).toBe('flagged');
    expect(flagged.body.charged_credits).toBeGreaterThan(0);
  }, 60_000);

  it('a video is judged by stills spread over it, and its thumbnail shares the verdict', async () => {
    expect((await policy({ action: 'block', threshold: 1 })).status).toBe(200);
    const body = { model: 'wan-2.2', prompt: 'waves at night', seed: 5, cache: false };
    const ok = await waitTerminal(api, org.live, (await api('POST', '/v1/videos', { key: org.live, body })).body.id);
    expect(ok.outputs.map((o: { moderation_status: string }) => o.moderation_status)).toEqual(['approved', 'approved']);
    // Any score passes a threshold of 0: every still is scored, and the video and its thumbnail are blocked together.
    expect((await policy({ threshold: 0 })).status).toBe(200);
    const blocked = await waitTerminal(api, org.live, (await api('POST', '/v1/videos', { key: org.live, body })).body.id);
    expect(blocked).toMatchObject({ status: 'failed', error: { code: 'content_blocked' }, charged_credits: 0 });
    expect(blocked.outputs.map((o: { moderation_status: string }) => o.moderation_status)).toEqual(['blocked', 'blocked']);
  }, 60_000);
});

describe('test mode never blocks its own renders (issue 29)', () => {
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  const local = new LocalImageClassifier();
  /**
   * Simulator renders that nsfwjs's MobileNetV2 scores at or above the default threshold (0.8): abstract shapes it
   * takes for drawn explicit content (its `Hentai` class). Found by scanning seeds; the test checks the scores itself,
   * so it fails loudly if a change to the renderer or the model makes them harmless.
   */
  const MISJUDGED = { model: 'flux-kontext-pro', prompt: 'a red fox in the snow number 2', seed: 1311 };

  beforeAll(async () => {
    // Live keys on the simulator too: a synthetic render is synthetic whichever key asked for it.
    s = await startTestServer('pglite', { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_MODERATION_LOCAL: 'on' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await local.close();
  });

  async function topScoreOf(url: string): Promise<number> {
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
    return Math.max(...Object.values(await local.classify(bytes)));
  }

  it('a render the classifier would block is approved, with either key; simulate.moderation still blocks it', async () => {
    for (const key of [org.test, org.live]) {
      const res = await api('POST', '/v1/images', { key, body: MISJUDGED });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.outputs[0].moderation_status).toBe('approved');
      // The classifier ran on it in the server and would have acted: the same bytes score over the default threshold here.
      expect(await topScoreOf(res.body.outputs[0].url)).toBeGreaterThanOrEqual(0.8);
    }
    const forced = await api('POST', '/v1/images', { key: org.test, body: { ...MISJUDGED, cache: false, simulate: { moderation: 'blocked' } } });
    expect(forced.status).toBe(451);
    expect(forced.body.error.code).toBe('content_blocked');
    const flagged = await api('POST', '/v1/images', { key: org.test, body: { ...MISJUDGED, cache: false, simulate: { moderation: 'flagged' } } });
    expect(flagged.body.outputs[0].moderation_status).toBe('flagged');
  }, 60_000);

  it('a sweep of models and seeds (the misjudged ones among them) is never blocked, whatever the policy', async () => {
    // The strictest policy there is: any score blocks. Only a classifier's guess could block these; it does not count.
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { action: 'block', threshold: 0 } })).status).toBe(200);
    // Models that take a seed, each at its own default size, over seeds of which some render misjudged pictures; two
    // that take none (a new picture each time) for good measure.
    const requests: Array<{ model: string; seed?: number }> = [];
    for (const model of ['flux-schnell', 'flux-dev', 'flux-kontext-pro', 'stable-diffusion-3.5-large', 'seedream-4']) {
      for (const seed of [1137, 1140, 1311, 1375]) requests.push({ model, seed });
    }
    for (const model of ['recraft-v3', 'nano-banana-2']) requests.push({ model }, { model });
    let misjudged = 0;
    for (const { model, seed } of requests) {
      const res = await api('POST', '/v1/images', { key: org.test, body: { model, prompt: MISJUDGED.prompt, seed, cache: false } });
      expect(res.status, `${model} ${seed}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.outputs[0].moderation_status, `${model} ${seed}`).toBe('approved');
      if ((await topScoreOf(res.body.outputs[0].url)) >= 0.8) misjudged++;
    }
    // Without the rule, these would have been blocked even under the default policy.
    expect(misjudged).toBeGreaterThanOrEqual(1);
    // Other synthetic files too: a video and its thumbnail.
    const video = await waitTerminal(api, org.test, (await api('POST', '/v1/videos', { key: org.test, body: { model: 'wan-2.2', prompt: 'waves', duration_s: 1 } })).body.id);
    expect(video.status).toBe('succeeded');
    expect(video.outputs.map((o: { moderation_status: string }) => o.moderation_status)).toEqual(['approved', 'approved']);
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { threshold: 0.8 } })).status).toBe(200);
  }, 180_000);

  it('the caller\'s own pixels are not synthetic: the same render uploaded and upscaled is judged by the classifier', async () => {
    const render = await api('POST', '/v1/images', { key: org.test, body: { ...MISJUDGED, width: 256, height: 256 } });
    expect(render.status).toBe(200);
    const bytes = Buffer.from(await (await fetch(render.body.outputs[0].url)).arrayBuffer());
    const created = await api('POST', '/v1/uploads', { key: org.test, body: { content_type: 'image/png', size_bytes: bytes.length } });
    expect((await putToUploadUrl(created.body.upload_url, created.body.headers, bytes)).status).toBe(200);
    const up = await waitTerminal(api, org.test, (await api('POST', '/v1/upscale', { key: org.test, body: { model: 'real-esrgan', upload_id: created.body.id, scale: 2 } })).body.id);
    expect(up).toMatchObject({ status: 'failed', error: { code: 'content_blocked' } });
    expect(up.outputs[0].moderation_status).toBe('blocked');
  }, 60_000);
});

describeOnBackend('prompt screening and the hosted classifier', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    s = await startTestServer(backend, {
      MMGEN_SIMULATE_PROVIDERS: '1',
      MMGEN_MODERATION_OPENAI_KEY: fakes.env.OPENAI_API_KEY!,
      MMGEN_MODERATION_OPENAI_BASE_URL: fakes.env.OPENAI_BASE_URL!,
    });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  async function nothingReserved(before: { balance: number; held: number }, count: number) {
    const after = await expectWalletMatchesLedger(s.db, org.id);
    expect(after).toMatchObject({ balance: before.balance, held: before.held });
    const n = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [org.id]);
    expect(n.rows[0]!.n).toBe(count);
  }

  it('a prompt the policy refuses is 400 content_policy_violation naming the field, before anything is reserved', async () => {
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { prompt_blocklist: ['red lighthouse'] } })).status).toBe(200);
    const before = await expectWalletMatchesLedger(s.db, org.id);
    const count = Number((await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE organization_id = $1', [org.id])).rows[0]!.n);
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      // The organization's blocklist, whole words, any case.
      ['/v1/images', { model: 'flux-schnell', prompt: 'A RED   Lighthouse at dusk' }, 'prompt', /blocklist/],
      // The profanity filter, leetspeak too.
      ['/v1/images', { model: 'flux-schnell', prompt: 'a sh1t storm' }, 'prompt', /profanity/],
      // The hosted classifier (OpenAI's moderation endpoint, its loopback fake: a marker word scores high for violence).
      ['/v1/videos', { model: 'wan-2.2', prompt: 'a fakeviolence scene', duration_s: 1 }, 'prompt', /violence/],
      ['/v1/voice', { model: 'tts-1', text: 'red lighthouse' }, 'text', /blocklist/],
      ['/v1/chat', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'tell me about a red lighthouse' }] }, 'messages', /blocklist/],
      ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a fakeviolence story' }] }, 'messages', /violence/],
      ['/v1/comparisons', { models: ['flux-schnell', 'flux-dev'], prompt: 'red lighthouse' }, 'prompt', /blocklist/],
    ];
    for (const [path, body, param, reason] of cases) {
      const res = await api('POST', path, { key: org.live, body });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'content_policy_violation', type: 'invalid_request_error', param });
      expect(res.body.error.message).toMatch(reason);
    }
    await nothingReserved(before, count);
    // Clean prompts pass, words that merely contain a listed one too.
    const clean = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a red lighthouses museum in Scunthorpe', width: 256, height: 256 } });
    expect(clean.status, JSON.stringify(clean.body)).toBe(200);
  });

  it('the hosted classifier judges output images too: an output it scores over the threshold is blocked', async () => {
    // An upscale keeps the input's top-left pixel: pure magenta is the fake's marker of an image to score 0.98.
    const marked = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 255, g: 0, b: 255 } } }).png().toBuffer();
    const plain = await pngBytes();
    const upload = async (bytes: Buffer) => {
      const created = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: 'image/png', size_bytes: bytes.length } });
      await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
      return created.body.id as string;
    };
    const calls = fakes.openai.calls('POST', '/v1/moderations').length;
    const bad = await api('POST', '/v1/upscale', { key: org.live, body: { model: 'real-esrgan', upload_id: await upload(marked), scale: 2 } });
    const good = await api('POST', '/v1/upscale', { key: org.live, body: { model: 'real-esrgan', upload_id: await upload(plain), scale: 2 } });
    const [b, g] = [await waitTerminal(api, org.live, bad.body.id), await waitTerminal(api, org.live, good.body.id)];
    expect(b).toMatchObject({ status: 'failed', error: { code: 'content_blocked' }, charged_credits: 0 });
    expect(g.status).toBe('succeeded');
    expect(g.outputs[0].moderation_status).toBe('approved');
    expect(fakes.openai.calls('POST', '/v1/moderations').length - calls).toBeGreaterThanOrEqual(2);
    // Under a flagging policy the same image is served, marked.
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { action: 'flag' } })).status).toBe(200);
    const flagged = await waitTerminal(api, org.live, (await api('POST', '/v1/upscale', { key: org.live, body: { model: 'real-esrgan', upload_id: await upload(marked), scale: 2 } })).body.id);
    expect(flagged.status).toBe('succeeded');
    expect(flagged.outputs[0].moderation_status).toBe('flagged');
    expect((await api('PATCH', '/v1/organization/moderation', { key: org.live, body: { action: 'block' } })).status).toBe(200);
  });

  it('a hosted classifier that cannot answer: 503, the prompt is not let through, nothing reserved', async () => {
    fakes.openai.misbehave({ method: 'POST', path: '/v1/moderations' }, { reply: { status: 500, body: { error: { message: 'down' } } } }, 5);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a quiet harbour', width: 256, height: 256 } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
  });
});

describeOnBackend('a provider\'s own safety refusal', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let org: TestOrg;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    s = await startTestServer(backend, { ...fakes.env, MMGEN_ALLOW_PRIVATE_NETWORK: '1' });
    org = await s.createOrg({ credits: 100_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it('is failed with content_policy_violation and refunded (502 for a synchronous request)', async () => {
    const before = await expectWalletMatchesLedger(s.db, org.id);
    // Replicate's safety checker fails the prediction (the fake does so for a prompt naming NSFW).
    const res = await client(s.url)('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'nsfw please' } });
    expect(res.status).toBe(502);
    const id = /gen_\w+/.exec(res.body.error.message)![0];
    const g = (await client(s.url)('GET', `/v1/generations/${id}`, { key: org.live })).body;
    expect(g).toMatchObject({ status: 'failed', charged_credits: 0, error: { code: 'content_policy_violation' } });
    expect(g.refunded_credits).toBe(g.reserved_credits);
    const after = await expectWalletMatchesLedger(s.db, org.id);
    expect(after.balance).toBe(before.balance);
  });
});

describe('moderation with files on S3 (presigned URLs)', () => {
  let s3: TestS3;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;

  beforeAll(async () => {
    s3 = await startTestS3();
    // The in-process server finds its credentials where any AWS program does: the environment.
    process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
    s = await startTestServer('pglite', { ...s3.env(), MMGEN_S3_URLS: 'presigned' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1000 });
  });
  afterAll(async () => {
    await s?.close();
    await s3?.close();
  });

  it('an approved file is a presigned S3 URL; a blocked one never is: mmgen\'s URL answers 451', async () => {
    const ok = await api('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'ok', width: 256, height: 256 } });
    expect(ok.status).toBe(200);
    const url = new URL(ok.body.outputs[0].url);
    expect(url.origin).toBe(new URL(s3.endpoint).origin);
    expect((await fetch(url)).status).toBe(200);
    const blocked = await api('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'no', width: 256, height: 256, simulate: { moderation: 'blocked' } } });
    expect(blocked.status).toBe(451);
    const id = /gen_\w+/.exec(blocked.body.error.message)![0];
    const g = (await api('GET', `/v1/generations/${id}`, { key: org.test })).body;
    for (const o of g.outputs) {
      expect(new URL(o.url).origin).toBe(s.url);
      expect((await fetch(o.url)).status).toBe(451);
    }
  });
});
