import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { describe, it, expect, beforeAll } from 'vitest';
import { MediaInputError, configureFfmpeg, ffmpegCapabilities, mimeToOutputType, parseMp4, probeImage, speechDurationS } from '../../src/media/index.js';
import { AUDIO_SAMPLE_RATE, chatReply, clearMediaCache, countInputTokens, countTokens, mediaCacheStats, renderAudio, renderImage, renderMesh, renderVideo, streamChatReply, upscaleImage, validateGlb, type ChatMessage } from '../../src/providers/simulator/render/index.js';
import { RenderCache } from '../../src/providers/simulator/render/cache.js';

const ffmpegPath = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
/** Known before the tests are collected, so that a missing encoder is a skip (skipIf), not an early return that passes. */
const hasMp3Encoder = (await ffmpegCapabilities()).mp3;

/** ffmpeg's own reading of a file: independent of our MP4 parser. */
function ffmpegInfo(bytes: Buffer): string {
  const r = spawnSync(ffmpegPath, ['-hide_banner', '-i', 'pipe:0'], { input: bytes });
  return r.stderr.toString('utf8');
}

function isPng(b: Buffer): boolean {
  return b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
}

function isJpeg(b: Buffer): boolean {
  return b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
}

describe('renderImage', () => {
  it('renders a real PNG of the requested size', async () => {
    const img = await renderImage({ prompt: 'a lighthouse at dusk', seed: 1, width: 512, height: 512, format: 'png' });
    expect(img.mime).toBe('image/png');
    expect(isPng(img.bytes)).toBe(true);
    const meta = await sharp(img.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 512, 512]);
    expect([img.width, img.height]).toEqual([512, 512]);
  });

  it('renders a real JPEG of a non-square size', async () => {
    const img = await renderImage({ prompt: 'a lighthouse at dusk', seed: 1, width: 640, height: 384, format: 'jpeg' });
    expect(img.mime).toBe('image/jpeg');
    expect(isJpeg(img.bytes)).toBe(true);
    const meta = await sharp(img.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 640, 384]);
  });

  it('is deterministic across renders and depends on prompt and seed', async () => {
    const opts = { prompt: 'deterministic fox', seed: 7, width: 256, height: 320, format: 'png' as const };
    const a = await renderImage(opts);
    clearMediaCache(); // force a genuine second render, not a cache hit
    const b = await renderImage(opts);
    expect(b).not.toBe(a);
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect((await renderImage({ ...opts, seed: 8 })).bytes.equals(a.bytes)).toBe(false);
    expect((await renderImage({ ...opts, prompt: 'deterministic owl' })).bytes.equals(a.bytes)).toBe(false);
    // 7 and "7" are the same seed
    expect((await renderImage({ ...opts, seed: '7' })).bytes.equals(a.bytes)).toBe(true);
  });

  it('serves repeats from the cache and renders concurrent duplicates once', async () => {
    clearMediaCache();
    const opts = { prompt: 'cache me', seed: 3, width: 512, height: 512, format: 'png' as const };
    const all = await Promise.all(Array.from({ length: 20 }, () => renderImage(opts)));
    expect(new Set(all).size).toBe(1);
    const again = await renderImage(opts);
    expect(again).toBe(all[0]);
    const s = mediaCacheStats();
    expect(s.misses).toBe(1);
    expect(s.joined).toBe(19);
    expect(s.hits).toBe(1);
  });

  it('survives hostile prompt text (XML, control characters, lone surrogates)', async () => {
    const img = await renderImage({ prompt: '<svg onload="x">&amp; \u0000\u0007 \ud800 ]]> "quotes" ' + 'long'.repeat(200), width: 256, height: 256, format: 'png' });
    expect((await sharp(img.bytes).metadata()).width).toBe(256);
  });

  it('rejects out-of-range sizes and formats', async () => {
    await expect(renderImage({ prompt: 'x', width: 255, height: 512, format: 'png' })).rejects.toThrow(MediaInputError);
    await expect(renderImage({ prompt: 'x', width: 512, height: 2049, format: 'png' })).rejects.toThrow(MediaInputError);
    await expect(renderImage({ prompt: 'x', width: 512.5, height: 512, format: 'png' })).rejects.toThrow(MediaInputError);
    await expect(renderImage({ prompt: 'x', width: 512, height: 512, format: 'gif' as 'png' })).rejects.toThrow(MediaInputError);
  });
});

function wavFields(b: Buffer) {
  return {
    riff: b.toString('latin1', 0, 4),
    riffSize: b.readUInt32LE(4),
    wave: b.toString('latin1', 8, 12),
    fmt: b.toString('latin1', 12, 16),
    fmtSize: b.readUInt32LE(16),
    audioFormat: b.readUInt16LE(20),
    channels: b.readUInt16LE(22),
    sampleRate: b.readUInt32LE(24),
    byteRate: b.readUInt32LE(28),
    blockAlign: b.readUInt16LE(32),
    bits: b.readUInt16LE(34),
    data: b.toString('latin1', 36, 40),
    dataSize: b.readUInt32LE(40),
  };
}

function peak(b: Buffer): number {
  let p = 0;
  for (let o = 44; o < b.length; o += 2) p = Math.max(p, Math.abs(b.readInt16LE(o)));
  return p;
}

describe('renderAudio', () => {
  it('derives speech duration from text length', () => {
    expect(speechDurationS('')).toBe('0.5');
    expect(speechDurationS('hi')).toBe('0.5');
    expect(speechDurationS('x'.repeat(30))).toBe('2');
    expect(speechDurationS('x'.repeat(187))).toBe('12.47'); // 12.4666… rounded
    expect(speechDurationS('a   b\n\tc')).toBe(speechDurationS('a b c'));
  });

  it('writes a PCM 16-bit mono WAV of exactly the requested duration', async () => {
    for (const durationS of ['12.48', 5, '0.1']) {
      const a = await renderAudio({ prompt: 'calm piano', seed: 1, durationS });
      const w = wavFields(a.bytes);
      expect(w).toMatchObject({ riff: 'RIFF', wave: 'WAVE', fmt: 'fmt ', fmtSize: 16, audioFormat: 1, channels: 1, bits: 16, data: 'data' });
      expect(w.sampleRate).toBe(AUDIO_SAMPLE_RATE);
      expect(w.byteRate).toBe(AUDIO_SAMPLE_RATE * 2);
      expect(w.blockAlign).toBe(2);
      expect(w.riffSize).toBe(a.bytes.length - 8);
      expect(w.dataSize).toBe(a.bytes.length - 44);
      expect(w.dataSize / 2 / w.sampleRate).toBe(Number(durationS));
      expect(a.durationS).toBe(String(durationS));
      expect(a.mime).toBe('audio/wav');
      expect(peak(a.bytes)).toBeGreaterThan(10_000); // audible, not silence
    }
  });

  it('sizes voice clips from the text and is deterministic', async () => {
    const text = 'Hello from the simulator. This clip is exactly as long as its text.';
    const a = await renderAudio({ text, seed: 4 });
    expect(a.durationS).toBe(speechDurationS(text));
    expect(wavFields(a.bytes).dataSize).toBe(Math.round(Number(a.durationS) * AUDIO_SAMPLE_RATE) * 2);
    clearMediaCache();
    const b = await renderAudio({ text, seed: 4 });
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect((await renderAudio({ text, seed: 5 })).bytes.equals(a.bytes)).toBe(false);
  });

  it('rejects bad durations', async () => {
    await expect(renderAudio({ prompt: 'x', durationS: 0 })).rejects.toThrow(MediaInputError);
    await expect(renderAudio({ prompt: 'x', durationS: '1e3' })).rejects.toThrow(MediaInputError);
    await expect(renderAudio({ prompt: 'x', durationS: 601 })).rejects.toThrow(MediaInputError);
    await expect(renderAudio({ prompt: 'x' })).rejects.toThrow(MediaInputError);
  });

  // Reported as skipped, not passed, on an ffmpeg without the encoder.
  it.skipIf(!hasMp3Encoder)('encodes MP3 when the ffmpeg binary has libmp3lame', async () => {
    const a = await renderAudio({ prompt: 'drums', seed: 2, durationS: 3, format: 'mp3' });
    expect(a.mime).toBe('audio/mpeg');
    const id3 = a.bytes.toString('latin1', 0, 3) === 'ID3';
    const sync = a.bytes[0] === 0xff && ((a.bytes[1] ?? 0) & 0xe0) === 0xe0;
    expect(id3 || sync).toBe(true);
    expect(ffmpegInfo(a.bytes)).toMatch(/Audio: mp3, 24000 Hz, mono/);
  });
});

describe('renderVideo', () => {
  it('encodes an MP4 of the requested duration with a JPEG thumbnail', async () => {
    const caps = await ffmpegCapabilities();
    const r = await renderVideo({ prompt: 'waves on a beach', seed: 9, durationS: 5 });
    const v = r.video;
    expect(v.mime).toBe('video/mp4');
    expect([v.width, v.height, v.durationS]).toEqual([512, 288, '5']);
    expect(v.bytes.toString('latin1', 4, 8)).toBe('ftyp');
    const info = parseMp4(v.bytes);
    expect(info).not.toBeNull();
    expect(info?.durationS).toBe(5);
    expect(info?.tracks.map((t) => t.type)).toEqual(['vide']);
    const probe = ffmpegInfo(v.bytes);
    expect(probe).toMatch(/Duration: 00:00:05\.00/);
    expect(probe).toMatch(caps.h264 ? /Video: h264/ : /Video: mpeg4/);
    expect(probe).toMatch(/512x288/);
    expect(v.codec).toBe(caps.h264 ? 'h264' : 'mpeg4');

    expect(r.thumbnail.mime).toBe('image/jpeg');
    expect(isJpeg(r.thumbnail.bytes)).toBe(true);
    const meta = await sharp(r.thumbnail.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([512, 288]);
  });

  it('is deterministic and depends on the seed', async () => {
    const opts = { prompt: 'city lights', seed: 1, durationS: 2, width: 320, height: 180 };
    const a = await renderVideo(opts);
    clearMediaCache();
    const b = await renderVideo(opts);
    expect(b.video.bytes.equals(a.video.bytes)).toBe(true);
    expect(b.thumbnail.bytes.equals(a.thumbnail.bytes)).toBe(true);
    const c = await renderVideo({ ...opts, seed: 2 });
    expect(c.video.bytes.equals(a.video.bytes)).toBe(false);
  });

  it('matches any millisecond duration exactly and rounds odd sizes to even', async () => {
    for (const durationS of ['12.48', '1.337', 0.5]) {
      const r = await renderVideo({ prompt: 'x', durationS, width: 201, height: 129 });
      expect([r.video.width, r.video.height, r.video.durationS]).toEqual([200, 128, String(durationS)]);
      const info = parseMp4(r.video.bytes);
      expect(info?.duration).toBe(Math.round(Number(durationS) * info!.timescale));
    }
  });

  it('falls back to MPEG-4 Part 2 when configured (or when libx264 is missing)', async () => {
    configureFfmpeg({ videoCodec: 'mpeg4' });
    try {
      const r = await renderVideo({ prompt: 'fallback', seed: 1, durationS: 2, width: 256, height: 144 });
      expect(r.video.codec).toBe('mpeg4');
      expect(parseMp4(r.video.bytes)?.durationS).toBe(2);
      expect(ffmpegInfo(r.video.bytes)).toMatch(/Video: mpeg4/);
    } finally {
      configureFfmpeg({ videoCodec: 'auto' });
    }
  });

  it('can add an AAC soundtrack, music or speech', async () => {
    const music = await renderVideo({ prompt: 'talking head', seed: 1, durationS: 2, width: 256, height: 144, audio: true });
    const speech = await renderVideo({ prompt: 'talking head', seed: 1, durationS: 2, width: 256, height: 144, speech: 'Hello there, I am an avatar.' });
    for (const r of [music, speech]) {
      const info = parseMp4(r.video.bytes);
      expect(info?.tracks.map((t) => t.type)).toEqual(['vide', 'soun']);
      expect(r.video.durationS).toBe('2');
      // AAC works in 1024-sample frames, so the sound track may run a frame long.
      expect(info?.durationS).toBeGreaterThanOrEqual(2);
      expect(info?.durationS).toBeLessThan(2.05);
      expect(ffmpegInfo(r.video.bytes)).toMatch(/Audio: aac/);
    }
    expect(speech.video.bytes.equals(music.video.bytes)).toBe(false);
  });

  it('rejects bad parameters', async () => {
    await expect(renderVideo({ prompt: 'x', durationS: 0.1 })).rejects.toThrow(MediaInputError);
    await expect(renderVideo({ prompt: 'x', durationS: 5, width: 4000 })).rejects.toThrow(MediaInputError);
    await expect(renderVideo({ prompt: 'x', durationS: 5, fps: 31 })).rejects.toThrow(MediaInputError);
  });
});

describe('renderMesh', () => {
  it('builds a GLB that passes the Khronos validator, with a thumbnail', async () => {
    const r = await renderMesh({ prompt: 'a crystal', seed: 11 });
    const b = r.mesh.bytes;
    expect(r.mesh.mime).toBe('model/gltf-binary');
    expect(b.toString('latin1', 0, 4)).toBe('glTF');
    expect(b.readUInt32LE(4)).toBe(2);
    expect(b.readUInt32LE(8)).toBe(b.length);
    const report = await validateGlb(b);
    expect(report.numErrors).toBe(0);
    expect(report.numWarnings).toBe(0);
    expect(isJpeg(r.thumbnail.bytes)).toBe(true);
    const meta = await sharp(r.thumbnail.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);
  });

  it('gives every seed a valid mesh, covering all shape families', async () => {
    const shapes = new Set<string>();
    for (let seed = 0; seed < 12; seed++) {
      const r = await renderMesh({ seed });
      shapes.add(r.mesh.shape);
      expect((await validateGlb(r.mesh.bytes)).numErrors).toBe(0);
    }
    expect(shapes).toEqual(new Set(['gem', 'rock', 'tower']));
  });

  it('is deterministic', async () => {
    const a = await renderMesh({ prompt: 'teapot', seed: 3 });
    clearMediaCache();
    const b = await renderMesh({ prompt: 'teapot', seed: 3 });
    expect(b.mesh.bytes.equals(a.mesh.bytes)).toBe(true);
    expect(b.thumbnail.bytes.equals(a.thumbnail.bytes)).toBe(true);
    expect((await renderMesh({ prompt: 'teapot', seed: 4 })).mesh.bytes.equals(a.mesh.bytes)).toBe(false);
  });
});

describe('upscaleImage', () => {
  let input: Buffer;
  beforeAll(async () => {
    input = (await renderImage({ prompt: 'small', seed: 1, width: 300, height: 256, format: 'png' })).bytes;
  });

  it.each([2, 4] as const)('resamples to exactly %ix as JPEG', async (scale) => {
    const r = await upscaleImage({ input, scale, faceRestore: false });
    expect(r.mime).toBe('image/jpeg');
    expect(isJpeg(r.bytes)).toBe(true);
    expect([r.width, r.height]).toEqual([300 * scale, 256 * scale]);
    const meta = await sharp(r.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 300 * scale, 256 * scale]);
  });

  it('accepts JPEG and transparent WebP input; faceRestore changes the result', async () => {
    const jpeg = await sharp(input).jpeg().toBuffer();
    expect((await upscaleImage({ input: jpeg, scale: 2 })).width).toBe(600);
    const webp = await sharp({ create: { width: 257, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).webp().toBuffer();
    const w = await upscaleImage({ input: webp, scale: 2 });
    expect([w.width, w.height]).toEqual([514, 600]);
    const plain = await upscaleImage({ input, scale: 2, faceRestore: false });
    const restored = await upscaleImage({ input, scale: 2, faceRestore: true });
    expect(restored.bytes.equals(plain.bytes)).toBe(false);
  });

  it('uses the displayed (EXIF-rotated) size', async () => {
    const rotated = await sharp(input).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const r = await upscaleImage({ input: rotated, scale: 2 });
    expect([r.width, r.height]).toEqual([512, 600]);
    const meta = await sharp(r.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([512, 600]);
  });

  it('rejects garbage and bad scales', async () => {
    await expect(upscaleImage({ input: Buffer.from('not an image'), scale: 2 })).rejects.toThrow(MediaInputError);
    await expect(upscaleImage({ input, scale: 3 as 2 })).rejects.toThrow(MediaInputError);
    const huge = await sharp({ create: { width: 2100, height: 2100, channels: 3, background: '#808080' } }).png().toBuffer();
    await expect(upscaleImage({ input: huge, scale: 4 })).rejects.toThrow(/pixel limit/);
  });
});

describe('probeImage', () => {
  it('identifies PNG, JPEG and WebP with their sizes', async () => {
    const png = (await renderImage({ prompt: 'p', width: 256, height: 300, format: 'png' })).bytes;
    expect(await probeImage(png)).toEqual({ mime: 'image/png', width: 256, height: 300 });
    const jpeg = await sharp(png).jpeg().toBuffer();
    expect(await probeImage(jpeg)).toEqual({ mime: 'image/jpeg', width: 256, height: 300 });
    const webp = await sharp(png).webp().toBuffer();
    expect(await probeImage(webp)).toEqual({ mime: 'image/webp', width: 256, height: 300 });
  });

  it('rejects garbage, truncation and disguised files', async () => {
    const png = (await renderImage({ prompt: 'p', width: 256, height: 300, format: 'png' })).bytes;
    const jpeg = await sharp(png).jpeg().toBuffer();
    expect(await probeImage(Buffer.alloc(0))).toBeNull();
    expect(await probeImage(Buffer.from('GIF89a garbage garbage garbage'))).toBeNull();
    expect(await probeImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(await probeImage(png.subarray(0, Math.floor(png.length / 2)))).toBeNull();
    expect(await probeImage(png.subarray(0, png.length - 12))).toBeNull(); // IEND missing
    expect(await probeImage(jpeg.subarray(0, Math.floor(jpeg.length / 2)))).toBeNull();
    expect(await probeImage(Buffer.concat([png.subarray(0, 8), Buffer.from('x'.repeat(100))]))).toBeNull();
    // JPEG bytes with a PNG signature in front: magic and decoder disagree
    expect(await probeImage(Buffer.concat([png.subarray(0, 8), jpeg]))).toBeNull();
    const gif = await sharp(png).gif().toBuffer();
    expect(await probeImage(gif)).toBeNull();
  });
});

describe('chatReply', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'How do volcanoes form under the ocean?' },
  ];

  it('counts tokens by the documented rule', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('  spaced   out  ')).toBe(2);
    expect(countTokens('abcdefghijklmnopqrstuvwxyz')).toBe(3); // 12 + 12 + 2
    expect(countTokens('漢字かな abc')).toBe(5);
    expect(countInputTokens(messages)).toBe(2 + 4 + countTokens('You are terse.') + 4 + countTokens('How do volcanoes form under the ocean?'));
    expect(countInputTokens([{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'x' } }] }])).toBe(2 + 4 + 1 + 85);
  });

  it('is deterministic, plausible and self-consistent', () => {
    const a = chatReply({ messages, seed: 1, maxTokens: 500 });
    expect(chatReply({ messages, seed: 1, maxTokens: 500 })).toEqual(a);
    expect(chatReply({ messages, seed: 2, maxTokens: 500 }).content).not.toBe(a.content);
    expect(a.content).toMatch(/volcanoes/);
    expect(a.outputTokens).toBe(countTokens(a.content));
    expect(a.finishReason).toBe('stop');
    expect(a.inputTokens).toBe(countInputTokens(messages));
  });

  it('produces exactly outputTokens tokens, capped by maxTokens', () => {
    for (let n = 0; n <= 260; n += 1) {
      const r = chatReply({ messages, seed: n % 5, maxTokens: 200, outputTokens: n });
      expect(r.outputTokens).toBe(Math.min(n, 200));
      expect(countTokens(r.content)).toBe(r.outputTokens);
      expect(r.finishReason).toBe(n > 200 ? 'length' : 'stop');
    }
    const cut = chatReply({ messages, seed: 1, maxTokens: 5 });
    expect([cut.outputTokens, cut.finishReason, countTokens(cut.content)]).toEqual([5, 'length', 5]);
  });

  it('streams the same content in chunks, then the usage', async () => {
    const full = chatReply({ messages, seed: 3, outputTokens: 50 });
    let text = '';
    let deltas = 0;
    let done: unknown;
    for await (const e of streamChatReply({ messages, seed: 3, outputTokens: 50 }, { chunkTokens: 4 })) {
      if (e.type === 'delta') {
        text += e.text;
        deltas++;
      } else done = e;
    }
    expect(text).toBe(full.content);
    expect(deltas).toBe(Math.ceil(50 / 4));
    expect(done).toEqual({ type: 'done', ...full });
  });
});

describe('mimeToOutputType', () => {
  it('maps MIME types to output kinds', () => {
    expect(mimeToOutputType('image/png')).toBe('image');
    expect(mimeToOutputType('Image/JPEG; q=1')).toBe('image');
    expect(mimeToOutputType('video/mp4')).toBe('video');
    expect(mimeToOutputType('audio/wav')).toBe('audio');
    expect(mimeToOutputType('audio/mpeg')).toBe('audio');
    expect(mimeToOutputType('model/gltf-binary')).toBe('mesh');
    expect(mimeToOutputType('application/json')).toBeNull();
    expect(mimeToOutputType('')).toBeNull();
  });
});

describe('parseMp4', () => {
  it('rejects non-MP4 bytes', () => {
    expect(parseMp4(Buffer.from('not an mp4 at all'))).toBeNull();
    expect(parseMp4(Buffer.alloc(0))).toBeNull();
  });
});

describe('RenderCache', () => {
  it('evicts least recently used entries by bytes and by count', async () => {
    const c = new RenderCache({ maxBytes: 100, maxEntries: 3, maxItemBytes: 60 });
    const put = (k: string, size: number) => c.getOrCreate(k, async () => k, () => size);
    await put('a', 40);
    await put('b', 40);
    await put('a', 40); // hit: a becomes most recent
    await put('c', 40); // 120 bytes > 100: evicts b, the least recent
    expect(c.stats()).toMatchObject({ entries: 2, bytes: 80, hits: 1, evictions: 1 });
    await put('big', 70); // over maxItemBytes: served, not kept
    expect(c.stats().entries).toBe(2);
    await put('d', 1);
    await put('e', 1); // 4 entries > 3: evicts a
    expect(c.stats()).toMatchObject({ entries: 3, evictions: 2 });
  });

  it('does not cache failures', async () => {
    const c = new RenderCache();
    let calls = 0;
    const fail = () => c.getOrCreate('k', async () => { calls++; throw new Error('boom'); }, () => 1);
    await expect(fail()).rejects.toThrow('boom');
    await expect(fail()).rejects.toThrow('boom');
    expect(calls).toBe(2);
  });
});
