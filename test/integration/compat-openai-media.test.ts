import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { experimental_generateImage as generateImage, experimental_generateSpeech as generateSpeech } from 'ai';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWallet } from '../../src/billing/credits.js';
import { fetchBytes, expectInvariant } from '../helpers/generations.js';
import { expectWalletMatchesLedger } from '../helpers/money.js';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';

const isPng = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const isMp3 = (b: Buffer) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0);
const isWav = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE';
const isOgg = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'OggS';
const isFlac = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'fLaC';

async function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
}

describeOnBackend('OpenAI-compatible images and speech, with the real clients', 'pglite', (backend) => {
  let s: TestServer;
  let org: TestOrg;
  let openai: OpenAI;
  let api: ReturnType<typeof client>;
  let startBalance: number;
  const IMAGE = 'flux-dev';
  const EDIT = 'flux-kontext-pro';
  const VOICE = 'tts-1';

  beforeAll(async () => {
    s = await startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_RATE_LIMIT_FREE: '2' });
    org = await s.createOrg({ credits: 1_000_000 });
    startBalance = (await getWallet(s.db, org.id)).balance_credits;
    openai = new OpenAI({ apiKey: org.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    api = client(s.url);
  });
  afterAll(async () => s?.close());

  describe('openai images', () => {
    it('images.generate with response_format url: a signed URL of an image of the asked size, the generation in a header', async () => {
      const { data: res, response } = await openai.images.generate({ model: IMAGE, prompt: 'a red lighthouse at dusk', size: '512x384', n: 2, response_format: 'url', user: 'u-1' }).withResponse();
      expect(res.data).toHaveLength(2);
      for (const d of res.data!) {
        const meta = await sharp(await fetchBytes(d.url!)).metadata();
        expect([meta.width, meta.height]).toEqual([512, 384]);
        expect(d.b64_json).toBeUndefined();
      }
      const id = response.headers.get('x-mmgen-generation-id')!;
      expect(id).toMatch(/^gen_/);
      const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
      expect(g).toMatchObject({ status: 'succeeded', modality: 'image', model: IMAGE, prompt: 'a red lighthouse at dusk', params: { num_outputs: 2, width: 512, height: 384 } });
      expect(g.params).not.toHaveProperty('user');
      expect(g.charged_credits).toBeGreaterThan(0);
      expect(res.created).toBe(Math.floor(Date.parse(g.created_at) / 1000));
    });

    it('images.generate with b64_json (the default), re-encoded to JPEG by output_format', async () => {
      const res = await openai.images.generate({ model: IMAGE, prompt: 'a blue bicycle', size: '256x256', output_format: 'jpeg', output_compression: 80 });
      const bytes = Buffer.from(res.data![0]!.b64_json!, 'base64');
      expect(isJpeg(bytes)).toBe(true);
      const meta = await sharp(bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 256, 256]);
      const plain = await openai.images.generate({ model: IMAGE, prompt: 'a blue bicycle', size: '256x256', output_format: 'png' });
      expect(isPng(Buffer.from(plain.data![0]!.b64_json!, 'base64'))).toBe(true);
    });

    it('images.edit: the image part becomes the input image of an image-to-image generation', async () => {
      const png = await pngOf(320, 240);
      const { data: res, response } = await openai.images
        .edit({ model: EDIT, image: await toFile(png, 'in.png', { type: 'image/png' }), prompt: 'make it night', size: '512x512' })
        .withResponse();
      const bytes = Buffer.from(res.data![0]!.b64_json!, 'base64');
      expect((await sharp(bytes).metadata()).width).toBe(512);
      const id = response.headers.get('x-mmgen-generation-id')!;
      const g = (await api('GET', `/v1/generations/${id}`, { key: org.live })).body;
      expect(g).toMatchObject({ status: 'succeeded', prompt: 'make it night' });
      expect(g.params.upload_id).toMatch(/^upl_/);
      const upload = (await api('GET', `/v1/uploads/${g.params.upload_id}`, { key: org.live })).body;
      expect(upload).toMatchObject({ status: 'uploaded', content_type: 'image/png', width: 320, height: 240, size_bytes: png.length });
    });

    it('images.edit refuses what mmgen cannot do, naming the field: a mask, two images, a model without image input, a non-image', async () => {
      const png = await pngOf(64, 64);
      const file = () => toFile(png, 'in.png', { type: 'image/png' });
      await expect(openai.images.edit({ model: EDIT, image: await file(), mask: await file(), prompt: 'x' })).rejects.toMatchObject({ status: 400, code: 'parameter_invalid', param: 'mask' });
      await expect(openai.images.edit({ model: EDIT, image: [await file(), await file()], prompt: 'x' })).rejects.toMatchObject({ status: 400, code: 'parameter_invalid', param: 'image' });
      await expect(openai.images.edit({ model: 'flux-schnell', image: await file(), prompt: 'x' })).rejects.toMatchObject({ status: 400, param: 'image' });
      await expect(openai.images.edit({ model: EDIT, image: await toFile(Buffer.from('not an image at all'), 'in.png', { type: 'image/png' }), prompt: 'x' })).rejects.toMatchObject({ status: 400, param: 'image' });
      await expect(openai.images.edit({ model: EDIT, image: await file(), prompt: 'x', n: 'two' as unknown as number })).rejects.toMatchObject({ status: 400, param: 'n' });
    });

    it('an edit with an Idempotency-Key is one generation, however the form is framed; a broken form is a 400', async () => {
      const png = await pngOf(96, 96);
      const send = (boundaryTag: string) => {
        const form = new FormData();
        form.append('model', EDIT);
        form.append('prompt', `same edit ${backend}`);
        form.append('image', new Blob([png], { type: 'image/png' }), `in-${boundaryTag}.png`);
        return fetch(`${s.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${org.live}`, 'idempotency-key': `edit-${backend}` }, body: form });
      };
      const first = await send('a');
      expect(first.status).toBe(200);
      const again = await send('a');
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('x-mmgen-generation-id')).toBe(first.headers.get('x-mmgen-generation-id'));
      expect(await again.json()).toEqual(await first.json());
      const broken = await fetch(`${s.url}/v1/images/edits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.live}`, 'content-type': 'multipart/form-data; boundary=xyz' },
        body: '--xyz\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nhalf a form',
      });
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { error: unknown }).error).toMatchObject({ type: 'invalid_request_error' });
    });

    it('a blocked image is 451 content_blocked, refunded', async () => {
      const err = await openai.images.generate({ model: IMAGE, prompt: 'blocked', size: '256x256', simulate: { moderation: 'blocked' } } as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 451, code: 'content_blocked' });
    });

    it('a value that would change the image and that the model cannot take is a 400 naming it, as the SDK\'s BadRequestError', async () => {
      const err = await openai.images.generate({ model: IMAGE, prompt: 'x', quality: 'hd' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err).toMatchObject({ status: 400, code: 'parameter_invalid', param: 'quality' });
      await expect(openai.images.generate({ model: IMAGE, prompt: 'x', style: 'vivid' })).rejects.toMatchObject({ status: 400, param: 'style' });
      await expect(openai.images.generate({ model: IMAGE, prompt: 'x', background: 'transparent' })).rejects.toMatchObject({ status: 400, param: 'background' });
      await expect(openai.images.generate({ model: 'recraft-v3', prompt: 'x', n: 2 })).rejects.toMatchObject({ status: 400, param: 'n' });
      await expect(openai.images.generate({ model: IMAGE, prompt: 'x', size: '4096x4096' })).rejects.toMatchObject({ status: 400, param: 'size' });
      await expect(openai.images.generate({ model: IMAGE, prompt: 'x', response_format: 'url', output_format: 'webp' })).rejects.toMatchObject({ status: 400, param: 'output_format' });
      // Neutral values are taken: what mmgen does anyway.
      const ok = await openai.images.generate({ model: IMAGE, prompt: 'x', quality: 'auto', background: 'auto', moderation: 'auto', size: 'auto' });
      expect((await sharp(Buffer.from(ok.data![0]!.b64_json!, 'base64')).metadata()).width).toBe(1024);
    });
  });

  describe('openai speech', () => {
    it('audio.speech.create answers the audio in the format asked, with its media type', async () => {
      const cases: Array<[ 'mp3' | 'wav' | 'opus' | 'flac', (b: Buffer) => boolean, string]> = [
        ['mp3', isMp3, 'audio/mpeg'],
        ['wav', isWav, 'audio/wav'],
        ['opus', isOgg, 'audio/ogg'],
        ['flac', isFlac, 'audio/flac'],
      ];
      for (const [format, check, type] of cases) {
        const res = await openai.audio.speech.create({ model: VOICE, input: `Hello in ${format}.`, voice: 'alloy', response_format: format, speed: 1.25 });
        expect(res.headers.get('content-type')).toBe(type);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(check(bytes), format).toBe(true);
        const g = (await api('GET', `/v1/generations/${res.headers.get('x-mmgen-generation-id')}`, { key: org.live })).body;
        expect(g).toMatchObject({ status: 'succeeded', modality: 'voice', prompt: `Hello in ${format}.`, params: { text: `Hello in ${format}.`, voice_id: 'alloy', speed: 1.25 } });
      }
    });

    it('pcm is raw 16-bit samples; refusals name OpenAI\'s fields', async () => {
      const res = await openai.audio.speech.create({ model: VOICE, input: 'Raw samples.', voice: 'nova', response_format: 'pcm' });
      expect(res.headers.get('content-type')).toBe('audio/pcm');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length % 2).toBe(0);
      expect(bytes.length).toBeGreaterThan(24_000);
      expect(isWav(bytes) || isMp3(bytes)).toBe(false);
      await expect(openai.audio.speech.create({ model: VOICE, input: 'x', voice: 'not-a-voice' as 'alloy' })).rejects.toMatchObject({ status: 400, param: 'voice' });
      // tts-1 takes no instructions (OpenAI's API ignores them there); gpt-4o-mini-tts does, and they reach its generation.
      await expect(openai.audio.speech.create({ model: VOICE, input: 'x', voice: 'alloy', instructions: 'whisper' })).rejects.toMatchObject({ status: 400, param: 'instructions' });
      const styled = await openai.audio.speech.create({ model: 'gpt-4o-mini-tts', input: 'Softly now.', voice: 'coral', instructions: 'Whisper, slowly.', response_format: 'wav' });
      expect(isWav(Buffer.from(await styled.arrayBuffer()))).toBe(true);
      const styledGen = await api('GET', `/v1/generations/${styled.headers.get('x-mmgen-generation-id')}`, { key: org.live });
      expect(styledGen.body.params).toMatchObject({ instructions: 'Whisper, slowly.', voice_id: 'coral' });
      await expect(openai.audio.speech.create({ model: VOICE, input: 'x', voice: 'alloy', stream_format: 'sse' })).rejects.toMatchObject({ status: 400, param: 'stream_format' });
      await expect(openai.audio.speech.create({ model: 'eleven-v3', input: 'x', voice: 'alloy', speed: 1.5 })).rejects.toMatchObject({ status: 400, param: 'speed' });
    });

    it('an Idempotency-Key replays the same audio bytes', async () => {
      const opts = { headers: { 'Idempotency-Key': `speech-${backend}` } };
      const first = await openai.audio.speech.create({ model: VOICE, input: 'Once only.', voice: 'alloy', response_format: 'wav' }, opts);
      const a = Buffer.from(await first.arrayBuffer());
      const again = await openai.audio.speech.create({ model: VOICE, input: 'Once only.', voice: 'alloy', response_format: 'wav' }, opts);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toBe('audio/wav');
      expect(again.headers.get('x-mmgen-generation-id')).toBe(first.headers.get('x-mmgen-generation-id'));
      expect(Buffer.from(await again.arrayBuffer()).equals(a)).toBe(true);
    });
  });

  describe('the AI SDK', () => {
    it('@ai-sdk/openai generateImage and generateSpeech', async () => {
      const provider = createOpenAI({ baseURL: `${s.url}/v1`, apiKey: org.live });
      const img = await generateImage({ model: provider.image(IMAGE), prompt: 'a green teapot', size: '512x512' });
      const meta = await sharp(Buffer.from(img.image.uint8Array)).metadata();
      expect([meta.width, meta.height]).toEqual([512, 512]);
      const speech = await generateSpeech({ model: provider.speech(VOICE), text: 'Spoken by the AI SDK.', voice: 'alloy', outputFormat: 'wav' });
      expect(isWav(Buffer.from(speech.audio.uint8Array))).toBe(true);
    });

    it('@ai-sdk/openai-compatible generateImage', async () => {
      const provider = createOpenAICompatible({ name: 'mmgen', baseURL: `${s.url}/v1`, apiKey: org.live });
      const img = await generateImage({ model: provider.imageModel(IMAGE), prompt: 'a yellow kite', size: '256x512' });
      const meta = await sharp(Buffer.from(img.image.uint8Array)).metadata();
      expect([meta.width, meta.height]).toEqual([256, 512]);
    });
  });

  it('models.list() ids and slugs can be used as model', async () => {
    const models: Array<{ id: string; slug?: string; modality?: string }> = [];
    for await (const m of openai.models.list()) models.push(m as never);
    const image = models.find((m) => m.slug === IMAGE)!;
    const voice = models.find((m) => m.slug === VOICE)!;
    expect(image.id).toMatch(/^mdl_/);
    const byId = await openai.images.generate({ model: image.id, prompt: 'by id', size: '256x256' });
    expect(isPng(Buffer.from(byId.data![0]!.b64_json!, 'base64')) || isJpeg(Buffer.from(byId.data![0]!.b64_json!, 'base64'))).toBe(true);
    const spoken = await openai.audio.speech.create({ model: voice.id, input: 'by id', voice: 'alloy' });
    expect(isMp3(Buffer.from(await spoken.arrayBuffer()))).toBe(true);
  });

  it('402 and 429 reach the SDK as its error classes (Retry-After readable)', async () => {
    const poor = await s.createOrg({ credits: 0 });
    const broke = new OpenAI({ apiKey: poor.live, baseURL: `${s.url}/v1`, maxRetries: 0 });
    const e402 = await broke.images.generate({ model: IMAGE, prompt: 'x' }).catch((e: unknown) => e);
    expect(e402).toBeInstanceOf(OpenAI.APIError);
    expect(e402).toMatchObject({ status: 402, code: 'insufficient_credits', type: 'billing_error' });
    await expect(broke.audio.speech.create({ model: VOICE, input: 'x', voice: 'alloy' })).rejects.toMatchObject({ status: 402, code: 'insufficient_credits' });

    const free = await s.createOrg({ plan: 'free', credits: 0 });
    const limited = new OpenAI({ apiKey: free.test, baseURL: `${s.url}/v1`, maxRetries: 0 });
    let e429: unknown;
    for (let i = 0; i < 3 && !e429; i++) e429 = await limited.audio.speech.create({ model: VOICE, input: 'x', voice: 'alloy' }).then(() => undefined, (e: unknown) => e);
    expect(e429).toBeInstanceOf(OpenAI.RateLimitError);
    expect(Number((e429 as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after'))).toBeGreaterThan(0);

    const e401 = await new OpenAI({ apiKey: 'sk_live_nope00000000000000000000000000', baseURL: `${s.url}/v1`, maxRetries: 0 }).images.generate({ model: IMAGE, prompt: 'x' }).catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('every call was a generation: listed, and the wallet moved by exactly the sum of their charged_credits', async () => {
    const list = (await api('GET', '/v1/generations?limit=100', { key: org.live })).body;
    expect(list.has_more).toBe(false);
    const mine = list.data as Array<{ modality: string; status: string; charged_credits: number; reserved_credits: number; refunded_credits: number }>;
    expect(mine.filter((g) => g.modality === 'image').length).toBeGreaterThanOrEqual(7);
    expect(mine.filter((g) => g.modality === 'voice').length).toBeGreaterThanOrEqual(7);
    mine.forEach(expectInvariant);
    const charged = mine.reduce((sum, g) => sum + g.charged_credits, 0);
    expect(charged).toBeGreaterThan(0);
    const after = await expectWalletMatchesLedger(s.db, org.id);
    expect(startBalance - after.balance).toBe(charged);
    expect(after.held).toBe(0);
  });
});
