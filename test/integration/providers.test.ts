import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedModels } from '../helpers/catalog.js';
import { costInCredits, getWallet, ledgerSums } from '../../src/billing/credits.js';
import { sniffMime } from '../../src/media/index.js';
import { validateGlb } from '../../src/providers/simulator/render/index.js';
import { startFakes, type Fakes } from '../fakes/index.js';
import { fakePng } from '../fakes/media.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectInvariant, fetchBytes, waitTerminal } from '../helpers/generations.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';

/**
 * mmgen with MMGEN_SIMULATE_PROVIDERS unset and every provider's base URL on
 * its loopback fake: each modality end to end through a real adapter with a
 * live key, outputs kept past the provider's URL expiry, fallback to the next
 * route, the circuit breaker, 503 without credentials, retry reconciliation,
 * and the official OpenAI SDK streaming a reply that mmgen proxies from the
 * Anthropic fake.
 */
type Api = ReturnType<typeof client>;




/** A model whose primary route is this provider (or, failing that, any route of it). */
function slug(provider: string, modality: string, primary = true): string {
  const m = servedModels().find((x) => x.modality === modality && (primary ? x.routes[0].provider === provider : x.routes.some((r) => r.provider === provider)));
  if (!m) throw new Error(`no ${modality} model on ${provider}`);
  return m.slug;
}

const onlyRoute = (provider: string, modality: string) =>
  servedModels().find((x) => x.modality === modality && x.routes.length === 1 && x.routes[0].provider === provider)!.slug;

describeOnBackend('real provider adapters against loopback fakes', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;
  let portraitUrl: string;

  /** The wallet, checked against the ledger in one snapshot (a completion's finish may commit at any moment). */
  async function consistent(orgId: string) {
    const w = await expectWalletMatchesLedger(s.db, orgId);
    return { balance_credits: w.balance, held_credits: w.held };
  }

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    s = await startTestServer(backend, {
      ...fakes.env,
      MMGEN_ALLOW_PRIVATE_NETWORK: '1',
      MMGEN_PROVIDER_JOB_TIMEOUT_MS: '1500',
      MMGEN_PROVIDER_MAX_RETRY_AFTER_MS: '1500',
      MMGEN_CIRCUIT_FAILURE_THRESHOLD: '50',
    });
    api = client(s.url);
    org = await s.createOrg({ credits: 5_000_000 });
    portraitUrl = fakes.fal.hostFile(await fakePng('a portrait', 256, 256), 'image/png', 'png');
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  describe('every modality, end to end, through a real adapter', () => {
    it('image (OpenAI): sizes mapped, PNGs stored, charged the catalog price', async () => {
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'a lighthouse', num_outputs: 2, width: 1024, height: 1024 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const price = costInCredits(servedModels().find((m) => m.slug === 'gpt-image-1-mini')!.unit_cost_usd, 2);
      expect(res.body).toMatchObject({ status: 'succeeded', livemode: true, charged_credits: price });
      expectInvariant(res.body);
      expect(res.body.outputs).toHaveLength(2);
      for (const o of res.body.outputs) {
        expect(o).toMatchObject({ type: 'image', mime: 'image/png', width: 1024, height: 1024, moderation_status: 'approved' });
        expect(o.url.startsWith(s.url)).toBe(true);
        expect(sniffMime(await fetchBytes(o.url))).toBe('image/png');
      }
      expect(fakes.openai.calls('POST', '/v1/images/generations').at(-1)!.json).toMatchObject({ model: 'gpt-image-1-mini', n: 2, size: '1024x1024' });
    });

    it('image (Replicate, asynchronous upstream, answered synchronously by mmgen)', async () => {
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a red fox', num_outputs: 2 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.outputs).toHaveLength(2);
      expect(res.body.outputs[0]).toMatchObject({ type: 'image', mime: 'image/png', width: 512, height: 512 });
      const row = await s.db.query<{ provider: string; upstream_id: string }>('SELECT provider, upstream_id FROM generations WHERE id = $1', [res.body.id]);
      expect(row.rows[0]!.provider).toBe('replicate');
      expect(fakes.replicate.predictions.has(row.rows[0]!.upstream_id)).toBe(true);
    });

    it('voice (OpenAI and ElevenLabs): MP3 with its measured length', async () => {
      for (const model of ['tts-1', 'eleven-multilingual-v2']) {
        const res = await api('POST', '/v1/voice', { key: org.live, body: { model, text: 'Hello from mmgen, speaking through a provider.', speed: 1.2 } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const [o] = res.body.outputs;
        expect(o).toMatchObject({ type: 'audio', mime: 'audio/mpeg' });
        expect(Number(o.duration_s)).toBeGreaterThan(1);
        expect(sniffMime(await fetchBytes(o.url))).toBe('audio/mpeg');
      }
      expect(fakes.elevenlabs.calls('POST').at(-1)!.json).toMatchObject({ model_id: 'eleven_multilingual_v2', voice_settings: { speed: 1.2 } });
      // ElevenLabs refuses language_code on this model, and fal's route to it takes one: a request naming a language
      // goes to fal, where it is not lost.
      const before = fakes.elevenlabs.calls('POST').length;
      const res = await api('POST', '/v1/voice', { key: org.live, body: { model: 'eleven-multilingual-v2', text: 'Bonjour de mmgen.', language: 'fr' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(fakes.elevenlabs.calls('POST').length).toBe(before);
      const row = await s.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [res.body.id]);
      expect(row.rows[0]!.provider).toBe('fal');
      expect(fakes.fal.calls('POST').at(-1)!.json).toMatchObject({ text: 'Bonjour de mmgen.', language_code: 'fr' });
      // OpenAI's speech takes no language at all: named, it is refused before anything is reserved.
      const refused = await api('POST', '/v1/voice', { key: org.live, body: { model: 'tts-1', text: 'Hello.', language: 'en' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'parameter_invalid', param: 'language' });
    });

    it('music (ElevenLabs): 202, then an MP3 of the asked length, charged per second', async () => {
      const res = await api('POST', '/v1/music', { key: org.live, body: { model: 'eleven-music', prompt: 'a calm piano piece', duration_s: 5 } });
      expect(res.status).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ type: 'audio', mime: 'audio/mpeg' });
      expect(Number(g.outputs[0].duration_s)).toBeCloseTo(5, 0);
      expect(g.charged_credits).toBeGreaterThan(0);
      expectInvariant(g);
      expect(fakes.elevenlabs.calls('POST', '/v1/music').at(-1)!.json).toMatchObject({ music_length_ms: 5000, model_id: 'music_v1', force_instrumental: true });
    });

    it('video (Replicate): MP4 downloaded, thumbnail made by mmgen, charged for the seconds produced', async () => {
      // Kling takes 5 or 10 s (its recorded schema; the strict fake refuses anything else).
      const res = await api('POST', '/v1/videos', { key: org.live, body: { model: 'kling-v2.1-master', prompt: 'waves at night', duration_s: 5 } });
      expect(res.status).toBe(202);
      expect(res.body.generation_id).toBe(res.body.id);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      const video = g.outputs.find((o: any) => o.type === 'video');
      const thumb = g.outputs.find((o: any) => o.type === 'thumbnail');
      expect(video).toMatchObject({ mime: 'video/mp4', width: 256, height: 144, duration_s: '5' });
      expect(thumb).toMatchObject({ mime: 'image/jpeg' });
      expect(sniffMime(await fetchBytes(thumb.url))).toBe('image/jpeg');
      expect(g.charged_credits).toBe(5 * 280);
    });

    it('avatar (fal): a portrait by image_url speaking text becomes a video', async () => {
      // fabric-1.0-text is the text-driven one (the audio-driven avatars require audio_url upstream).
      const res = await api('POST', '/v1/avatars', { key: org.live, body: { model: 'fabric-1.0-text', image_url: portraitUrl, text: 'Hello there.' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.outputs.map((o: any) => o.type).sort()).toEqual(['thumbnail', 'video']);
      // veed documents image_url up to 2,083 characters: the caller's URL goes, not a data URI.
      const submitted = fakes.fal.calls('POST').at(-1)!.json as Record<string, unknown>;
      expect(submitted).toMatchObject({ image_url: portraitUrl, text: 'Hello there.' });
    });

    it('avatar (fal, audio-driven): text is spoken first by its voice model (ElevenLabs), and the avatar gets that audio as a data URI', async () => {
      const elevenCalls = fakes.elevenlabs.calls('POST').length;
      const res = await api('POST', '/v1/avatars', { key: org.live, body: { model: 'omnihuman-1.5', image_url: portraitUrl, text: 'Hello from a speech step.' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.params).toMatchObject({ speech_model: 'eleven-turbo-v2.5' });
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      // The speech was asked of ElevenLabs once (by its turbo model), with the text.
      const speech = fakes.elevenlabs.calls('POST').slice(elevenCalls);
      expect(speech).toHaveLength(1);
      expect(speech[0]!.json).toMatchObject({ text: 'Hello from a speech step.', model_id: 'eleven_turbo_v2_5' });
      // The avatar endpoint got that speech as its audio_url (its record requires one), accepted by the strict fake.
      const submitted = fakes.fal.calls('POST', /omnihuman/).at(-1)!.json as Record<string, unknown>;
      expect(String(submitted.audio_url)).toMatch(/^data:audio\/mpeg;base64,/);
      expect(submitted).not.toHaveProperty('text');
      expectInvariant(g);
    });

    it('3d (fal): a GLB mesh', async () => {
      const res = await api('POST', '/v1/three-d', { key: org.live, body: { model: 'trellis', image_url: portraitUrl } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      const mesh = g.outputs.find((o: any) => o.type === 'mesh');
      expect(mesh.mime).toBe('model/gltf-binary');
      expect((await validateGlb(await fetchBytes(mesh.url))).numErrors).toBe(0);
    });

    it('upscale (Replicate): JPEG of exactly input × scale', async () => {
      const res = await api('POST', '/v1/upscale', { key: org.live, body: { model: 'real-esrgan', image_url: portraitUrl, scale: 4 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ type: 'image', mime: 'image/jpeg', width: 1024, height: 1024 });
      const meta = await sharp(await fetchBytes(g.outputs[0].url)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1024, 1024]);
      const input = (fakes.replicate.calls('POST').at(-1)!.json as { input: Record<string, unknown> }).input;
      expect(input).toMatchObject({ scale: 4, face_enhance: false });
    });

    it('chat (OpenAI and Anthropic): charged from the provider\'s reported output tokens', async () => {
      for (const model of ['gpt-4o-mini', 'claude-haiku-4.5']) {
        const res = await api('POST', '/v1/chat', { key: org.live, body: { model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'one two three' }], max_tokens: 100 } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.message.content).toMatch(/one two three/);
        expect(res.body.usage.output_tokens).toBe(res.body.message.content.split(' ').length);
        expectInvariant(res.body);
      }
    });
  });

  it('`simulate` is refused where a real provider serves the request (it cannot be steered)', async () => {
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'x', simulate: { outcome: 'failure' } } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'simulate' });
    expect((await api('POST', '/v1/images', { key: org.test, body: { model: 'flux-schnell', prompt: 'x', width: 256, height: 256, simulate: { outcome: 'failure' } } })).status).toBe(502);
  });

  it('outputs outlive the provider\'s URLs: files are served from mmgen after the provider\'s expire', async () => {
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'keep me' } });
    expect(res.status).toBe(200);
    fakes.replicate.expireFiles();
    const g = (await api('GET', `/v1/generations/${res.body.id}`, { key: org.live })).body;
    expect(sniffMime(await fetchBytes(g.outputs[0].url))).toBe('image/png');
  });

  it('a moderation flag from the provider is acted on as the organization\'s policy says', async () => {
    const body = { model: slug('fal', 'image'), prompt: 'something nsfw', num_outputs: 1, width: 512, height: 512 };
    // The default policy blocks: the one image is blocked, so the generation fails (451), refunded.
    const blocked = await api('POST', '/v1/images', { key: org.live, body });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(451);
    const g = (await api('GET', `/v1/generations/${/gen_\w+/.exec(blocked.body.error.message)![0]}`, { key: org.live })).body;
    expect(g).toMatchObject({ status: 'failed', charged_credits: 0, error: { code: 'content_blocked' } });
    expect(g.outputs[0].moderation_status).toBe('blocked');
    // A policy that flags: served, marked, charged.
    const flagging = await s.createOrg({ credits: 100_000 });
    expect((await api('PATCH', '/v1/organization/moderation', { key: flagging.live, body: { action: 'flag' } })).status).toBe(200);
    const flagged = await api('POST', '/v1/images', { key: flagging.live, body });
    expect(flagged.status, JSON.stringify(flagged.body)).toBe(200);
    expect(flagged.body.outputs[0].moderation_status).toBe('flagged');
    expect(flagged.body.charged_credits).toBeGreaterThan(0);
  });

  it('the official OpenAI SDK streams a reply that mmgen proxies from the Anthropic fake', async () => {
    const sdk = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const stream = await sdk.chat.completions.create({
      model: 'claude-sonnet-4.5',
      messages: [{ role: 'developer', content: 'You are terse.' }, { role: 'user', content: 'stream these five words please' }],
      max_tokens: 200,
      temperature: 1.5,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null | undefined;
    let id = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Claude heard: stream these five words please');
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBe(7);
    const sent = fakes.anthropic.calls('POST', '/v1/messages').at(-1)!.json as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'claude-sonnet-4-5-20250929', stream: true, system: 'You are terse.', max_tokens: 200, temperature: 1 });
    expect(sent.messages).toEqual([{ role: 'user', content: 'stream these five words please' }]);
    const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
    expect(g).toMatchObject({ status: 'succeeded', usage: { output_tokens: 7 } });
    expect(g.charged_credits).toBe(Math.ceil((7 * 0.000015) / 0.001));
    // And without streaming, the same translation answers in the OpenAI shape.
    const plain = await sdk.chat.completions.create({ model: 'claude-sonnet-4.5', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.choices[0]!.message.content).toBe('Claude heard: hi');
    expect(plain.usage?.completion_tokens).toBe(3);
    // Charged just after the reply: a GET on this node waits for it, so the next test reads a settled ledger.
    expect((await api('GET', `/v1/generations/${plain.id}`, { key: org.live })).body.charged_credits).toBeGreaterThan(0);
  });

  it("the Anthropic SDK's messages, through mmgen's /v1/messages, reach the Anthropic fake as Anthropic documents them", async () => {
    const claude = new Anthropic({ baseURL: s.url, apiKey: org.live, maxRetries: 0 });
    const params = {
      model: 'claude-haiku-4-5',
      max_tokens: 120,
      system: [{ type: 'text', text: 'You are terse.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'say ' }, { type: 'text', text: 'these words' }] }],
      temperature: 0.4,
      top_k: 40,
      stop_sequences: ['END', '  '],
      metadata: { user_id: 'u-7' },
    } as Anthropic.MessageCreateParamsNonStreaming;
    const plain = await claude.messages.create(params);
    expect((plain.content[0] as Anthropic.TextBlock).text).toBe('Claude heard: say these words');
    expect(plain).toMatchObject({ model: 'claude-haiku-4.5', stop_reason: 'end_turn' });
    const sent = fakes.anthropic.calls('POST', '/v1/messages').at(-1)!.json as Record<string, unknown>;
    // The whitespace-only stop sequence is one Anthropic refuses: left out, as on /v1/chat/completions. service_tier is the record's own `set`.
    expect(sent).toEqual({
      service_tier: 'standard_only',
      model: 'claude-haiku-4-5-20251001', max_tokens: 120, system: 'You are terse.', messages: [{ role: 'user', content: 'say these words' }],
      temperature: 0.4, top_k: 40, stop_sequences: ['END'], metadata: { user_id: 'u-7' },
    });
    const final = await claude.messages.stream(params as Anthropic.MessageStreamParams).finalMessage();
    expect((final.content[0] as Anthropic.TextBlock).text).toBe('Claude heard: say these words');
    expect(fakes.anthropic.calls('POST', '/v1/messages').at(-1)!.json).toMatchObject({ stream: true, top_k: 40 });
    for (const id of [plain.id, final.id]) {
      const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
      expect(g).toMatchObject({ status: 'succeeded', usage: { output_tokens: plain.usage.output_tokens } });
      expect(g.charged_credits).toBeGreaterThan(0);
    }
  });

  it('fallback: a retryable failure before the work was accepted moves to the next route', async () => {
    const creates = () => fakes.replicate.calls('POST', /\/predictions$/).length;
    const submits = () => fakes.fal.calls('POST', /^\/fal-ai\/flux\/schnell$/).length;
    const [c0, s0] = [creates(), submits()];
    fakes.replicate.misbehave({ method: 'POST', path: /\/predictions$/ }, { reply: { status: 503, body: { title: 'Service Unavailable', detail: 'down for maintenance', status: 503 } } });
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'fall back please', width: 512, height: 512 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([creates() - c0, submits() - s0]).toEqual([1, 1]);
    const row = await s.db.query<{ provider: string }>('SELECT provider FROM generations WHERE id = $1', [res.body.id]);
    expect(row.rows[0]!.provider).toBe('fal');
    // A 4xx is the request's own fault: no fallback, a 502, refunded.
    fakes.replicate.misbehave({ method: 'POST', path: /\/predictions$/ }, { reply: { status: 422, body: { title: 'Input validation failed', detail: '- input.prompt: too long', status: 422 } } });
    const before = await consistent(org.id);
    const bad = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'no fallback' } });
    expect(bad.status).toBe(502);
    expect(bad.body.error.message).toMatch(/too long/);
    expect(submits() - s0).toBe(1);
    expect(await consistent(org.id)).toEqual(before);
  });

  it('a 429 with a short Retry-After is waited out on the same provider; a provider that keeps failing is a refunded 502', async () => {
    fakes.openai.misbehave({ method: 'POST', path: '/v1/chat/completions' }, { reply: { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } } });
    const ok = await api('POST', '/v1/chat', { key: org.live, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] } });
    expect(ok.status).toBe(200);
    fakes.openai.misbehave({ method: 'POST', path: '/v1/chat/completions' }, { reply: { status: 500, body: { error: { message: 'The server had an error', type: 'server_error' } } } });
    const before = await consistent(org.id);
    const failed = await api('POST', '/v1/chat/completions', { key: org.live, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] } });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' });
    expect(await consistent(org.id)).toEqual(before);
  });

  it('cancel reaches the provider within seconds', async () => {
    fakes.replicate.hold = true;
    try {
      const res = await api('POST', '/v1/videos', { key: org.live, body: { model: 'kling-v2.1-master', prompt: 'cancel me', duration_s: 5 } });
      let upstream: string | null = null;
      for (let i = 0; i < 100 && !upstream; i++) {
        upstream = (await s.db.query<{ upstream_id: string | null }>('SELECT upstream_id FROM generations WHERE id = $1', [res.body.id])).rows[0]!.upstream_id;
        if (!upstream) await new Promise((r) => setTimeout(r, 20));
      }
      expect(upstream).toBeTruthy();
      const canceled = await api('POST', `/v1/generations/${res.body.id}/cancel`, { key: org.live });
      expect(canceled.body).toMatchObject({ status: 'canceled', charged_credits: 0 });
      // mmgen tells the provider at once (and a runner still polling the job tells it again: cancels are idempotent).
      expect(fakes.replicate.calls('POST', `/v1/predictions/${upstream}/cancel`).length).toBeGreaterThanOrEqual(1);
      expect(fakes.replicate.predictions.get(upstream!)!.status).toBe('canceled');
    } finally {
      fakes.replicate.hold = false;
    }
  });

  it('retry after a timed-out wait asks about the same job, uses its result, and bills once', async () => {
    fakes.replicate.hold = true;
    const createsBefore = fakes.replicate.calls('POST', /\/predictions$/).length;
    const res = await api('POST', '/v1/videos', { key: org.live, body: { model: 'kling-v2.1-master', prompt: 'slow waves', duration_s: 5 } });
    const failed = await waitTerminal(api, org.live, res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/did not finish this job within/);
    expect(failed).toMatchObject({ charged_credits: 0, refunded_credits: failed.reserved_credits });
    // The provider finishes it after mmgen stopped waiting.
    fakes.replicate.hold = false;
    const retried = await api('POST', `/v1/generations/${res.body.id}/retry`, { key: org.live });
    expect(retried.status).toBe(202);
    const g = await waitTerminal(api, org.live, res.body.id);
    expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
    expect(fakes.replicate.calls('POST', /\/predictions$/).length - createsBefore).toBe(1);
    // Two attempts reserved 5 s each; the adopted job is charged once, the other reservation refunded.
    expect(g).toMatchObject({ reserved_credits: 2 * 1400, charged_credits: 1400, refunded_credits: 1400 });
    await consistent(org.id);
  });

  it('retry after an upstream failure submits again (the failed job is not adopted)', async () => {
    fakes.replicate.failNextPredictions(1, 'CUDA error: out of memory');
    const createsBefore = fakes.replicate.calls('POST', /\/predictions$/).length;
    const res = await api('POST', '/v1/music', { key: org.live, body: { model: 'musicgen', prompt: 'drums', duration_s: 5 } });
    const failed = await waitTerminal(api, org.live, res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error.message).toMatch(/out of memory/);
    await api('POST', `/v1/generations/${res.body.id}/retry`, { key: org.live });
    const g = await waitTerminal(api, org.live, res.body.id);
    expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
    expect(fakes.replicate.calls('POST', /\/predictions$/).length - createsBefore).toBe(2);
    expectInvariant(g);
  });
});

describeOnBackend('provider routing: credentials and the circuit breaker', 'pglite', (backend) => {
  let fakes: Fakes;
  let s: TestServer;
  let api: Api;
  let org: TestOrg;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 20 });
    const { OPENAI_API_KEY: _o, OPENAI_BASE_URL: _ob, ...noOpenAi } = fakes.env;
    s = await startTestServer(backend, { ...noOpenAi, MMGEN_ALLOW_PRIVATE_NETWORK: '1', MMGEN_CIRCUIT_FAILURE_THRESHOLD: '3', MMGEN_CIRCUIT_COOLDOWN_MS: '5000' });
    api = client(s.url);
    org = await s.createOrg({ credits: 1_000_000 });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it('a model whose providers all lack credentials answers 503 provider_unavailable before anything is reserved', async () => {
    const before = await getWallet(s.db, org.id);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'gpt-image-1-mini', prompt: 'x' } });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'provider_unavailable', param: 'model' });
    expect(await getWallet(s.db, org.id)).toEqual(before);
    // Test keys are always served by the simulator.
    expect((await api('POST', '/v1/images', { key: org.test, body: { model: 'gpt-image-1-mini', prompt: 'x', width: 256, height: 256 } })).status).toBe(200);
  });

  it('a provider that keeps failing is skipped by its circuit breaker, then tried again after the cooldown', async () => {
    const creates = () => fakes.replicate.calls('POST', /\/predictions$/).length;
    fakes.replicate.misbehave({ method: 'POST', path: /\/predictions$/ }, { reply: { status: 500, body: { title: 'Internal Server Error', detail: 'boom', status: 500 } } }, 1000);
    const c0 = creates();
    for (let i = 0; i < 6; i++) {
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: `breaker ${i}`, width: 512, height: 512 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200); // served by fal, the fallback
    }
    // Three failures opened the circuit: the other three requests went straight to fal.
    expect(creates() - c0).toBe(3);
    expect(s.runtime.deps.providers.circuitState('replicate')).toBe('open');
    // A model with no other route is refused at once while the circuit is open.
    const only = await api('POST', '/v1/images', { key: org.live, body: { model: onlyRoute('replicate', 'image'), prompt: 'x' } });
    expect(only.status).toBe(503);
    expect(only.body.error.code).toBe('provider_unavailable');
    expect(Number(only.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(creates() - c0).toBe(3);
    // After the cooldown one trial goes through; its success closes the circuit.
    fakes.replicate.clearMisbehaviour();
    // The cooldown is long enough that a loaded machine still finds the circuit open above.
    for (let i = 0; i < 100 && s.runtime.deps.providers.circuitState('replicate') === 'open'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(s.runtime.deps.providers.circuitState('replicate')).toBe('half_open');
    const trial = await api('POST', '/v1/images', { key: org.live, body: { model: onlyRoute('replicate', 'image'), prompt: 'trial' } });
    expect(trial.status, JSON.stringify(trial.body)).toBe(200);
    expect(s.runtime.deps.providers.circuitState('replicate')).toBe('closed');
  });
});

describe('provider output downloads are SSRF-guarded', () => {
  let fakes: Fakes;
  let s: TestServer;

  beforeAll(async () => {
    fakes = await startFakes({ jobMs: 40 });
    // Operator-configured provider base URLs are trusted (here on loopback); the output URLs a
    // provider answers with are not: without MMGEN_ALLOW_PRIVATE_NETWORK they go through the same
    // guard as image_url (https only, public addresses only, checked on the connected socket:
    // test/unit/safe-fetch.test.ts and ssrf.test.ts cover each form). The fakes serve plain http
    // on loopback, so the guard refuses them before any connection.
    s = await startTestServer('pglite', { ...fakes.env, MMGEN_PROVIDER_JOB_TIMEOUT_MS: '5000' });
  });
  afterAll(async () => {
    await s?.close();
    await fakes?.close();
  });

  it('an output URL on a loopback http address is never fetched: the generation fails and is refunded', async () => {
    const org = await s.createOrg({ credits: 1_000_000 });
    const api = client(s.url);
    const res = await api('POST', '/v1/images', { key: org.live, body: { model: 'flux-schnell', prompt: 'a fox' } });
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.body.error.code).toBe('upstream_error');
    expect(res.body.error.message).toMatch(/downloading the provider's output failed: the URL must use https/);
    const w = await getWallet(s.db, org.id);
    expect({ balance: w.balance_credits, held: w.held_credits }).toEqual({ balance: 1_000_000, held: 0 });
    expect(await ledgerSums(s.db, org.id)).toEqual({ balance_credits: 1_000_000, held_credits: 0 });
  });
});
