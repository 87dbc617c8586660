import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, describeOnBackend, startTestServer, type TestOrg, type TestServer } from '../helpers/server.js';
import { expectInvariant, fetchBytes, waitTerminal } from '../helpers/generations.js';
import { Decimal } from 'decimal.js';
import { costInCredits } from '../../src/billing/credits.js';
import { CATALOG } from '../../src/catalog/models.js';
import { speechDurationS } from '../../src/media/durations.js';
import { parseMp4 } from '../../src/media/mp4.js';
import { putToUploadUrl } from '../helpers/uploads.js';

/**
 * Input images (contract §5, §8; addenda "Uploads and files"), through the
 * public API only: upload_id and image_url feeding upscale, avatars, three-d
 * and image-to-image, with their errors and billing.
 *
 * Only loopback addresses are ever contacted: the mmgen servers and a small
 * image server of this file, all on 127.0.0.1.
 */

type Api = ReturnType<typeof client>;

const W = 96;
const H = 64;

/** Quadrant colours of the pattern image, clockwise from the top left. */
const QUADRANTS = {
  topLeft: [255, 0, 0],
  topRight: [0, 255, 0],
  bottomRight: [0, 0, 255],
  bottomLeft: [255, 255, 255],
} as const;

/** A W×H PNG of four coloured quadrants, so an upscale can be checked to be of THIS image. */
async function patternPng(width = W, height = H): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const top = y < height / 2;
      const left = x < width / 2;
      const c = top ? (left ? QUADRANTS.topLeft : QUADRANTS.topRight) : left ? QUADRANTS.bottomLeft : QUADRANTS.bottomRight;
      raw.set(c, (y * width + x) * 3);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** A tiny silent WAV (served by the loopback server as an audio_url target). */
function silentWav(samples = 800, rate = 8000): Buffer {
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8);
  b.write('fmt ', 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  return b;
}



/** The RGB of the pixel at (x, y). */
async function pixel(img: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

/** Each channel within `tol` of the expected colour (JPEG is lossy). */
function expectColour(actual: number[], expected: readonly number[], what: string, tol = 40) {
  for (let c = 0; c < 3; c++) expect(Math.abs(actual[c]! - expected[c]!), `${what}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`).toBeLessThanOrEqual(tol);
}

/** The output is a JPEG of exactly w×h showing the quadrant pattern. */
async function expectUpscaled(bytes: Buffer, w: number, h: number) {
  expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  const meta = await sharp(bytes).metadata();
  expect(meta.format).toBe('jpeg');
  expect([meta.width, meta.height]).toEqual([w, h]);
  // Sample the middle of each quadrant.
  expectColour(await pixel(bytes, Math.floor(w / 4), Math.floor(h / 4)), QUADRANTS.topLeft, 'top left');
  expectColour(await pixel(bytes, Math.floor((3 * w) / 4), Math.floor(h / 4)), QUADRANTS.topRight, 'top right');
  expectColour(await pixel(bytes, Math.floor((3 * w) / 4), Math.floor((3 * h) / 4)), QUADRANTS.bottomRight, 'bottom right');
  expectColour(await pixel(bytes, Math.floor(w / 4), Math.floor((3 * h) / 4)), QUADRANTS.bottomLeft, 'bottom left');
}


interface ModelEntry {
  slug: string;
  capabilities: string[];
  pricing: { unit_cost_usd: number; unit: string };
}

describeOnBackend('image inputs', 'pglite', (backend) => {
  let s: TestServer; // simulator, private targets refused (the default)
  let p: TestServer; // simulator, MMGEN_ALLOW_PRIVATE_NETWORK=1
  let api: Api;
  let apiP: Api;
  let org: TestOrg;
  let orgP: TestOrg;
  let images: Server;
  let imagesBase: string;
  let pngBytes: Buffer;
  const hits: string[] = [];

  let upscaleModel: ModelEntry;
  let upscaleModelP: ModelEntry;
  let avatarTextModel: string;
  let avatarAudioModel: string;
  let threeDModel: string;
  let imageModel: string;

  beforeAll(async () => {
    pngBytes = await patternPng();
    const wav = silentWav();
    images = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/pattern.png') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': pngBytes.length });
        return res.end(pngBytes);
      }
      if (req.url === '/speech.wav') {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length });
        return res.end(wav);
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    imagesBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;

    [s, p] = await Promise.all([
      startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1' }),
      startTestServer(backend, { MMGEN_SIMULATE_PROVIDERS: '1', MMGEN_ALLOW_PRIVATE_NETWORK: '1' }),
    ]);
    api = client(s.url);
    apiP = client(p.url);
    org = await s.createOrg({ credits: 1_000_000 });
    orgP = await p.createOrg({ credits: 1_000_000 });

    // Models are chosen through the public catalog, by capability.
    const list = async (a: Api, key: string, modality: string): Promise<ModelEntry[]> => {
      const res = await a('GET', `/v1/models?modality=${modality}`, { key });
      expect(res.status).toBe(200);
      return res.body.data as ModelEntry[];
    };
    const has = (m: ModelEntry, ...caps: string[]) => caps.every((c) => m.capabilities.includes(c));
    const pick = (models: ModelEntry[], ...caps: string[]) => {
      const m = models.find((x) => has(x, ...caps));
      expect(m, `a model with ${caps.join(', ')}`).toBeDefined();
      return m!;
    };
    upscaleModel = pick(await list(api, org.live, 'upscale'), 'upscale-2x', 'upscale-4x', 'face-restore');
    upscaleModelP = pick(await list(apiP, orgP.live, 'upscale'), 'upscale-2x', 'upscale-4x');
    const avatars = await list(api, org.live, 'avatar');
    avatarTextModel = (avatars.find((m) => has(m, 'text-driven')) ?? avatars[0]!).slug;
    avatarAudioModel = pick(avatars, 'talking-head', 'audio-driven').slug;
    threeDModel = pick(await list(api, org.live, '3d'), 'image-to-3d').slug;
    imageModel = pick(await list(api, org.live, 'image'), 'image-to-image').slug;
  });

  afterAll(async () => {
    images?.closeAllConnections();
    await new Promise((r) => (images ? images.close(r) : r(undefined)));
    await Promise.all([s?.close(), p?.close()]);
  });

  /** POST /v1/uploads, then PUT the bytes to the signed URL exactly as a client would. */
  async function upload(a: Api, key: string, bytes: Buffer, contentType = 'image/png'): Promise<string> {
    const created = await a('POST', '/v1/uploads', { key, body: { content_type: contentType, size_bytes: bytes.length } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ id: created.body.id, status: 'uploaded' });
    return created.body.id as string;
  }

  async function wallet(a: Api, key: string) {
    const res = await a('GET', '/v1/wallet', { key });
    expect(res.status).toBe(200);
    return res.body as { balance_credits: number; held_credits: number; available_credits: number };
  }

  const priceOf = (m: ModelEntry, units: number) => Math.ceil((units * m.pricing.unit_cost_usd) / 0.001 - 1e-9);

  describe('upscale via upload_id', () => {
    let uploadId: string;
    beforeAll(async () => {
      uploadId = await upload(api, org.live, pngBytes);
    });

    it('an output over the pixel limit is refused when asked (400 naming scale), nothing reserved', async () => {
      const big = await sharp({ create: { width: 2100, height: 2100, channels: 3, background: { r: 9, g: 99, b: 199 } } }).png({ compressionLevel: 9 }).toBuffer();
      const id = await upload(api, org.live, big);
      const before = await wallet(api, org.live);
      const res = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: id, scale: 4 } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'scale' });
      expect(await wallet(api, org.live)).toEqual(before);
      // 2x of the same image fits.
      expect((await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: id, scale: 2 } })).status).toBe(202);
    });

    it('scale 2 → a JPEG of exactly 192×128 of the input; prompt null; params echo upload_id', async () => {
      const res = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: uploadId, scale: 2 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ object: 'generation', modality: 'upscale', model: upscaleModel.slug, prompt: null, livemode: true });
      expect(['queued', 'running', 'succeeded']).toContain(res.body.status);
      expect(res.body.params).toEqual({ upload_id: uploadId, scale: 2, face_restore: false });
      expect(res.body.reserved_credits).toBe(priceOf(upscaleModel, 1));

      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.prompt).toBeNull();
      expect(g.params).toEqual({ upload_id: uploadId, scale: 2, face_restore: false });
      expect(g.params).not.toHaveProperty('image_url');
      expect(g.outputs).toHaveLength(1);
      const o = g.outputs[0];
      expect(o).toMatchObject({ type: 'image', mime: 'image/jpeg', width: 2 * W, height: 2 * H });
      await expectUpscaled(await fetchBytes(o.url), 2 * W, 2 * H);
      expect(g.charged_credits).toBe(priceOf(upscaleModel, 1));
      expectInvariant(g);
    });

    it('scale defaults to 2 (params show the default)', async () => {
      const res = await api('POST', '/v1/upscale', { key: org.test, body: { model: upscaleModel.slug, upload_id: await upload(api, org.test, pngBytes) } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.params).toMatchObject({ scale: 2, face_restore: false });
      const g = await waitTerminal(api, org.test, res.body.id);
      expect(g.status).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ width: 2 * W, height: 2 * H });
      expect(g).toMatchObject({ livemode: false, reserved_credits: 0, charged_credits: 0, refunded_credits: 0 });
    });

    it('scale 4 → 384×256, and it reserves (and charges) twice what scale 2 does', async () => {
      // An organization of its own: no generation of another test can finish between the two wallet reads.
      const own = await s.createOrg({ credits: 1_000_000 });
      const ownUpload = await upload(api, own.live, pngBytes);
      const before = await wallet(api, own.live);
      const two = await api('POST', '/v1/upscale', { key: own.live, body: { model: upscaleModel.slug, upload_id: ownUpload, scale: 2 } });
      const four = await api('POST', '/v1/upscale', { key: own.live, body: { model: upscaleModel.slug, upload_id: ownUpload, scale: 4 } });
      expect(two.status).toBe(202);
      expect(four.status, JSON.stringify(four.body)).toBe(202);
      expect(two.body.reserved_credits).toBeGreaterThan(0);
      expect(four.body.reserved_credits).toBe(2 * two.body.reserved_credits);
      expect(four.body.reserved_credits).toBe(priceOf(upscaleModel, 2));
      expect(four.body.params).toEqual({ upload_id: ownUpload, scale: 4, face_restore: false });

      const g2 = await waitTerminal(api, own.live, two.body.id);
      const g4 = await waitTerminal(api, own.live, four.body.id);
      expect(g4.status, JSON.stringify(g4.error)).toBe('succeeded');
      expect(g4.outputs[0]).toMatchObject({ type: 'image', mime: 'image/jpeg', width: 4 * W, height: 4 * H });
      await expectUpscaled(await fetchBytes(g4.outputs[0].url), 4 * W, 4 * H);
      expect(g4.charged_credits).toBe(2 * g2.charged_credits);
      expectInvariant(g2);
      expectInvariant(g4);

      const after = await wallet(api, own.live);
      expect(after.balance_credits).toBe(before.balance_credits - g2.charged_credits - g4.charged_credits);
      expect(after.held_credits).toBe(before.held_credits);
    });

    it('face_restore: true also works', async () => {
      const res = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: uploadId, scale: 2, face_restore: true } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.params).toEqual({ upload_id: uploadId, scale: 2, face_restore: true });
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.outputs[0]).toMatchObject({ mime: 'image/jpeg', width: 2 * W, height: 2 * H });
      await expectUpscaled(await fetchBytes(g.outputs[0].url), 2 * W, 2 * H);
      expectInvariant(g);
    });

    it('a JPEG upload is upscaled too', async () => {
      const jpeg = await sharp(pngBytes).jpeg({ quality: 95 }).toBuffer();
      const id = await upload(api, org.test, jpeg, 'image/jpeg');
      const res = await api('POST', '/v1/upscale', { key: org.test, body: { model: upscaleModel.slug, upload_id: id, scale: 2 } });
      expect(res.status).toBe(202);
      const g = await waitTerminal(api, org.test, res.body.id);
      expect(g.status).toBe('succeeded');
      await expectUpscaled(await fetchBytes(g.outputs[0].url), 2 * W, 2 * H);
    });
  });

  describe('upscale via image_url', () => {
    it('with private targets allowed: fetched from the loopback server and upscaled to the right size', async () => {
      const url = `${imagesBase}/pattern.png`;
      const before = hits.filter((h) => h === '/pattern.png').length;
      const res = await apiP('POST', '/v1/upscale', { key: orgP.live, body: { model: upscaleModelP.slug, image_url: url, scale: 2 } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.prompt).toBeNull();
      expect(res.body.params).toEqual({ image_url: url, scale: 2, face_restore: false });
      expect(res.body.params).not.toHaveProperty('upload_id');
      expect(hits.filter((h) => h === '/pattern.png').length).toBe(before + 1);

      const g = await waitTerminal(apiP, orgP.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.params).toEqual({ image_url: url, scale: 2, face_restore: false });
      expect(g.prompt).toBeNull();
      expect(g.outputs[0]).toMatchObject({ type: 'image', mime: 'image/jpeg', width: 2 * W, height: 2 * H });
      await expectUpscaled(await fetchBytes(g.outputs[0].url), 2 * W, 2 * H);
      expectInvariant(g);

      const four = await apiP('POST', '/v1/upscale', { key: orgP.live, body: { model: upscaleModelP.slug, image_url: url, scale: 4 } });
      expect(four.status).toBe(202);
      const g4 = await waitTerminal(apiP, orgP.live, four.body.id);
      expect(g4.status).toBe('succeeded');
      expect(g4.outputs[0]).toMatchObject({ width: 4 * W, height: 4 * H });
    });

    it('with private targets refused: 400 parameter_invalid on image_url, nothing reserved, no generation, never contacted', async () => {
      const fresh = await s.createOrg({ credits: 10_000 });
      const before = await wallet(api, fresh.live);
      const hitsBefore = hits.length;
      const port = new URL(imagesBase).port;
      for (const url of [`${imagesBase}/pattern.png`, `https://127.0.0.1:${port}/pattern.png`, `https://localhost:${port}/pattern.png`]) {
        const res = await api('POST', '/v1/upscale', { key: fresh.live, body: { model: upscaleModel.slug, image_url: url, scale: 2 } });
        expect(res.status, url).toBe(400);
        expect(res.body.error, url).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'image_url' });
      }
      expect(hits.length).toBe(hitsBefore);
      expect(await wallet(api, fresh.live)).toEqual(before);
      expect(before).toMatchObject({ balance_credits: 10_000, held_credits: 0 });
      const list = await api('GET', '/v1/generations', { key: fresh.live });
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(0);
    });
  });

  describe('input image errors', () => {
    it("another organization's upload_id (or the other mode's) → 404 resource_not_found on upload_id; nothing reserved", async () => {
      const other = await s.createOrg({ credits: 10_000 });
      const theirs = await upload(api, other.live, pngBytes);
      const before = await wallet(api, org.live);
      for (const key of [org.live, other.test]) {
        const res = await api('POST', '/v1/upscale', { key, body: { model: upscaleModel.slug, upload_id: theirs, scale: 2 } });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_not_found', param: 'upload_id' });
      }
      const unknown = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: 'upl_doesnotexist', scale: 2 } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'resource_not_found', param: 'upload_id' });
      expect(await wallet(api, org.live)).toEqual(before);
      // The owner still can.
      expect((await api('POST', '/v1/upscale', { key: other.live, body: { model: upscaleModel.slug, upload_id: theirs } })).status).toBe(202);
    });

    it('a pending (never PUT) upload → 400 parameter_invalid on upload_id', async () => {
      const fresh = await s.createOrg({ credits: 10_000 });
      const created = await api('POST', '/v1/uploads', { key: fresh.live, body: { content_type: 'image/png', size_bytes: 10_000 } });
      expect(created.status).toBe(201);
      const res = await api('POST', '/v1/upscale', { key: fresh.live, body: { model: upscaleModel.slug, upload_id: created.body.id, scale: 2 } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'upload_id' });
      expect(await wallet(api, fresh.live)).toMatchObject({ balance_credits: 10_000, held_credits: 0 });
      expect((await api('GET', '/v1/generations', { key: fresh.live })).body.data).toHaveLength(0);
    });

    it('both upload_id and image_url → 400; neither → 400 parameter_missing', async () => {
      const id = await upload(api, org.live, pngBytes);
      const hitsBefore = hits.length;
      const both = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, upload_id: id, image_url: `${imagesBase}/pattern.png` } });
      expect(both.status).toBe(400);
      expect(both.body.error.type).toBe('invalid_request_error');
      expect(both.body.error.code).toBe('parameter_invalid');
      expect(['upload_id', 'image_url']).toContain(both.body.error.param);
      expect(hits.length).toBe(hitsBefore);

      // The same on the server that may fetch loopback: it must not fetch either.
      const idP = await upload(apiP, orgP.live, pngBytes);
      const bothP = await apiP('POST', '/v1/upscale', { key: orgP.live, body: { model: upscaleModelP.slug, upload_id: idP, image_url: `${imagesBase}/pattern.png` } });
      expect(bothP.status).toBe(400);
      expect(bothP.body.error.code).toBe('parameter_invalid');
      expect(hits.length).toBe(hitsBefore);

      const neither = await api('POST', '/v1/upscale', { key: org.live, body: { model: upscaleModel.slug, scale: 2 } });
      expect(neither.status).toBe(400);
      expect(neither.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_missing' });
      expect(['upload_id', 'image_url']).toContain(neither.body.error.param);
    });
  });

  describe('avatars', () => {
    let portrait: string;
    beforeAll(async () => {
      portrait = await upload(api, org.live, await patternPng(64, 80));
    });

    it('upload_id + text + voice_id to an audio-driven model → its speech step speaks first → a video/mp4 with that speech as its soundtrack, and a thumbnail; prompt is the text', async () => {
      const text = 'Hello there, this is a talking portrait.';
      const res = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: portrait, text, voice_id: 'alloy' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body).toMatchObject({ modality: 'avatar', prompt: text });
      // The voice model that speaks is named in params, and priced into the reservation.
      const speechModel = (await api('GET', `/v1/models/${avatarAudioModel}`, { key: org.live })).body.parameters['x-mmgen-speech'];
      expect(speechModel).toEqual(expect.any(String));
      expect(res.body.params).toMatchObject({ upload_id: portrait, text, voice_id: 'alloy', speech_model: speechModel });
      const avatarPrice = CATALOG.find((m) => m.slug === avatarAudioModel)!.unit_cost_usd;
      const speechPrice = costInCredits(CATALOG.find((m) => m.slug === speechModel)!.unit_cost_usd, new Decimal(text.length).div(1000));
      expect(speechPrice).toBeGreaterThan(0);
      expect(res.body.reserved_credits).toBe(costInCredits(avatarPrice, new Decimal(speechDurationS(text)).ceil()) + speechPrice);
      expect(res.body.params).not.toHaveProperty('image_url');
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      const video = g.outputs.find((o: any) => o.type === 'video');
      const thumb = g.outputs.find((o: any) => o.type === 'thumbnail');
      expect(video).toMatchObject({ mime: 'video/mp4' });
      expect(Number(video.duration_s)).toBeGreaterThan(0);
      const mp4 = await fetchBytes(video.url);
      expect(mp4.subarray(4, 8).toString()).toBe('ftyp');
      // A real soundtrack: the speech the voice model made, as long as the video.
      const tracks = parseMp4(mp4)!.tracks;
      expect(tracks.map((t) => t.type).sort()).toEqual(['soun', 'vide']);
      const sound = tracks.find((t) => t.type === 'soun')!;
      expect(Math.abs(sound.durationS - Number(video.duration_s))).toBeLessThan(0.1);
      // Charged for the seconds made and the speech, within the reservation.
      expect(g.charged_credits).toBe(Math.min(g.reserved_credits, costInCredits(avatarPrice, new Decimal(video.duration_s)) + speechPrice));
      expect(thumb).toBeDefined();
      expect((await fetchBytes(thumb.url)).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expectInvariant(g);
    });

    it('image_url + audio_url without text → 202 (prompt null) and succeeds; the audio is fetched once (private targets allowed)', async () => {
      const audioUrl = `${imagesBase}/speech.wav`;
      const before = hits.filter((h) => h === '/speech.wav').length;
      const res = await apiP('POST', '/v1/avatars', { key: orgP.live, body: { model: avatarAudioModel, image_url: `${imagesBase}/pattern.png`, audio_url: audioUrl } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(hits.filter((h) => h === '/speech.wav').length).toBe(before + 1);
      expect(res.body.prompt).toBeNull();
      expect(res.body.params).toMatchObject({ audio_url: audioUrl });
      const g = await waitTerminal(apiP, orgP.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.outputs.find((o: any) => o.type === 'video')).toMatchObject({ mime: 'video/mp4' });
      expectInvariant(g);
    });

    it('an avatar from image_url (private targets allowed) works too, from a text-driven model that speaks itself', async () => {
      const url = `${imagesBase}/pattern.png`;
      const res = await apiP('POST', '/v1/avatars', { key: orgP.test, body: { model: avatarTextModel, image_url: url, text: 'Hi.' } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.params).toMatchObject({ image_url: url, text: 'Hi.' });
      const g = await waitTerminal(apiP, orgP.test, res.body.id);
      expect(g.status).toBe('succeeded');
    });

    it('text and audio_url together → 400; neither → 400 parameter_missing; no portrait → 400 parameter_missing', async () => {
      const both = await api('POST', '/v1/avatars', {
        key: org.live,
        body: { model: avatarAudioModel, upload_id: portrait, text: 'hi', voice_id: 'alloy', audio_url: `${imagesBase}/speech.wav` },
      });
      expect(both.status).toBe(400);
      expect(both.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
      expect(['text', 'audio_url']).toContain(both.body.error.param);

      const neither = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: portrait } });
      expect(neither.status).toBe(400);
      expect(neither.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_missing' });
      expect(['text', 'audio_url']).toContain(neither.body.error.param);

      const noPortrait = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, text: 'hi', voice_id: 'alloy' } });
      // A text-driven model chooses its own voice: a voice_id is refused, naming it.
      const voiced = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarTextModel, upload_id: portrait, text: 'hi', voice_id: 'alloy' } });
      expect(voiced.body.error).toMatchObject({ code: 'parameter_invalid', param: 'voice_id' });
      expect(noPortrait.status).toBe(400);
      expect(noPortrait.body.error).toMatchObject({ code: 'parameter_missing' });
      expect(['upload_id', 'image_url']).toContain(noPortrait.body.error.param);
    });
  });

  describe('speech as an audio upload', () => {
    let portrait: string;
    beforeAll(async () => {
      portrait = await upload(api, org.live, await patternPng(64, 80));
    });

    /** PUTs bytes to a new upload declared as `contentType`; the PUT's answer. */
    async function put(contentType: string, bytes: Buffer) {
      const created = await api('POST', '/v1/uploads', { key: org.live, body: { content_type: contentType, size_bytes: bytes.length } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const res = await putToUploadUrl(created.body.upload_url, created.body.headers, bytes);
      return { id: created.body.id as string, status: res.status, body: (await res.json()) as any };
    }

    it('an audio/wav upload is checked for real audio and measured; an avatar lip-syncs it, its soundtrack that audio', async () => {
      const wav = silentWav(12_000, 8000); // 1.5 s
      const id = await upload(api, org.live, wav, 'audio/wav');
      const shown = await api('GET', `/v1/uploads/${id}`, { key: org.live });
      expect(shown.body).toMatchObject({ status: 'uploaded', content_type: 'audio/wav', duration_s: '1.5', width: null, height: null });
      const res = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: portrait, audio_upload_id: id } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.params).toMatchObject({ audio_upload_id: id });
      expect(res.body.params).not.toHaveProperty('speech_model');
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      const video = g.outputs.find((o: any) => o.type === 'video');
      const tracks = parseMp4(await fetchBytes(video.url))!.tracks;
      // As long as the uploaded speech.
      // (AAC pads to whole frames of 1024 samples and primes the encoder: within a few frames.)
      expect(Math.abs(tracks.find((t) => t.type === 'soun')!.durationS - 1.5)).toBeLessThan(0.2);
      expect(Math.abs(Number(video.duration_s) - 1.5)).toBeLessThan(0.1);
      expectInvariant(g);
    });

    it('refuses a file that is not what it is declared to be, or not playable, or too long; and the wrong kind of upload in each field', async () => {
      const wav = silentWav(800, 8000);
      const mislabeled = await put('audio/mpeg', wav);
      expect(mislabeled.status).toBe(400);
      expect(mislabeled.body.error.message).toMatch(/audio\/wav, but this upload was declared as audio\/mpeg/);
      const headerOnly = await put('audio/wav', silentWav(0, 8000));
      expect(headerOnly.status).toBe(400);
      expect(headerOnly.body.error.message).toMatch(/not a valid, playable audio\/wav/);
      const long = await put('audio/wav', silentWav(8000 * 61, 8000));
      expect(long.status).toBe(400);
      expect(long.body.error.message).toMatch(/at most 60 s/);

      const audio = await upload(api, org.live, wav, 'audio/wav');
      const asImage = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: audio, audio_upload_id: audio } });
      expect(asImage.body.error).toMatchObject({ code: 'parameter_invalid', param: 'upload_id' });
      const asAudio = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: portrait, audio_upload_id: portrait } });
      expect(asAudio.body.error).toMatchObject({ code: 'parameter_invalid', param: 'audio_upload_id' });
      const both = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarAudioModel, upload_id: portrait, audio_upload_id: audio, text: 'hi' } });
      expect(both.body.error).toMatchObject({ code: 'parameter_invalid' });
      // A text-driven model takes no audio at all.
      const textOnly = await api('POST', '/v1/avatars', { key: org.live, body: { model: avatarTextModel, upload_id: portrait, audio_upload_id: audio } });
      expect(textOnly.body.error).toMatchObject({ code: 'parameter_invalid', param: 'audio_upload_id' });
    });
  });

  describe('three-d from an image', () => {
    it('upload_id without a prompt → a model/gltf-binary mesh and a thumbnail; prompt null', async () => {
      const id = await upload(api, org.live, pngBytes);
      const res = await api('POST', '/v1/three-d', { key: org.live, body: { model: threeDModel, upload_id: id } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.prompt).toBeNull();
      expect(res.body.params).toMatchObject({ upload_id: id, format: 'glb' });
      expect(res.body.params).not.toHaveProperty('prompt');
      const g = await waitTerminal(api, org.live, res.body.id);
      expect(g.status, JSON.stringify(g.error)).toBe('succeeded');
      expect(g.prompt).toBeNull();
      const mesh = g.outputs.find((o: any) => o.type === 'mesh');
      expect(mesh).toMatchObject({ mime: 'model/gltf-binary' });
      expect((await fetchBytes(mesh.url)).subarray(0, 4).toString()).toBe('glTF');
      expect(g.outputs.some((o: any) => o.type === 'thumbnail')).toBe(true);
      expectInvariant(g);
    });
  });

  describe('image-to-image', () => {
    it('POST /v1/images with prompt + upload_id → 200 succeeded; params echo upload_id', async () => {
      const id = await upload(api, org.live, pngBytes);
      const res = await api('POST', '/v1/images', { key: org.live, body: { model: imageModel, prompt: 'make it autumn', upload_id: id, width: 256, height: 256 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ object: 'generation', status: 'succeeded', modality: 'image', prompt: 'make it autumn' });
      expect(res.body.params).toMatchObject({ prompt: 'make it autumn', upload_id: id, width: 256, height: 256, num_outputs: 1 });
      expect(res.body.params).not.toHaveProperty('image_url');
      expect(res.body.outputs).toHaveLength(1);
      expect(res.body.outputs[0]).toMatchObject({ type: 'image', mime: 'image/png' });
      expect((await fetchBytes(res.body.outputs[0].url)).subarray(1, 4).toString()).toBe('PNG');
      expectInvariant(res.body);
    });

    it('POST /v1/images with image_url (private targets allowed) → 200; params echo image_url', async () => {
      const url = `${imagesBase}/pattern.png`;
      const res = await apiP('POST', '/v1/images', { key: orgP.test, body: { model: imageModel, prompt: 'x', image_url: url, width: 256, height: 256 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status).toBe('succeeded');
      expect(res.body.params).toMatchObject({ image_url: url });
      expect(res.body.params).not.toHaveProperty('upload_id');
    });
  });
});
