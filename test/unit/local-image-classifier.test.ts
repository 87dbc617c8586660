import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { MediaInputError } from '../../src/media/errors.js';
import { LocalImageClassifier } from '../../src/moderation/local-image-classifier.js';
import type { Scores } from '../../src/moderation/types.js';
import { renderImage } from '../../src/providers/simulator/render/index.js';

/**
 * The real nsfwjs MobileNetV2 model (no mocks) on images made here: the simulator's renders,
 * plain colours and a smooth photo-like gradient. Nothing explicit is in the repository, so
 * these check the plumbing and the score contract, not the model's judgement.
 */
const classifier = new LocalImageClassifier();
afterAll(() => classifier.close());

async function plain(colour: string, format: 'png' | 'jpeg' | 'webp' = 'png', size = 512): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** A skin-toned radial gradient with noise-free shading: closer to a photo than a flat colour. */
async function gradient(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = Math.hypot(x - width * 0.45, y - height * 0.4) / Math.hypot(width, height);
      const i = (y * width + x) * 3;
      raw[i] = Math.round(230 - 120 * d);
      raw[i + 1] = Math.round(180 - 110 * d);
      raw[i + 2] = Math.round(150 - 100 * d + 40 * (y / height));
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

function expectScores(s: Scores): void {
  expect(Object.keys(s).sort()).toEqual(['sexual', 'suggestive']);
  for (const v of [s.sexual, s.suggestive]) {
    expect(typeof v).toBe('number');
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
}

describe('LocalImageClassifier (nsfwjs MobileNetV2, real model)', () => {
  it('loads once for concurrent first calls, on ONNX Runtime', async () => {
    const img = await plain('#3366cc');
    expect(classifier.backend).toBeNull();
    const results = await Promise.all([classifier.classify(img), classifier.classify(img), classifier.load(), classifier.classify(img)]);
    expect(classifier.loads).toBe(1);
    // ONNX Runtime loads here from onnxruntime-node's own binaries; tfjs's WASM fallback takes 6–8× the CPU,
    // so landing on it silently would be a regression worth failing on.
    expect(classifier.backend).toBe('onnx');
    expect(classifier.name).toBe('nsfwjs-mobilenet-v2');
    expect(classifier.loadMs).toBeGreaterThan(0);
    const [a, b, , c] = results as [Scores, Scores, void, Scores];
    expectScores(a);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('scores PNG, JPEG and WebP renders, plain colours and a gradient, within [0, 1]', async () => {
    const inputs = await Promise.all([
      renderImage({ prompt: 'a lighthouse on a cliff at sunset', seed: 1, width: 512, height: 512, format: 'png' }).then((r) => r.bytes),
      renderImage({ prompt: 'a bowl of fruit on a table', seed: 2, width: 1024, height: 768, format: 'jpeg' }).then((r) => r.bytes),
      renderImage({ prompt: 'mountains under snow', seed: 3, width: 256, height: 512, format: 'png' }).then((r) => sharp(r.bytes).webp().toBuffer()),
      plain('#ffffff', 'jpeg'),
      plain('#000000', 'webp'),
      gradient(640, 480),
      // Transparency (flattened onto white) and a one-channel greyscale image.
      sharp({ create: { width: 300, height: 300, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 0.3 } } }).png().toBuffer(),
      sharp({ create: { width: 300, height: 300, channels: 3, background: '#808080' } }).greyscale().png().toBuffer(),
    ]);
    const scores = await Promise.all(inputs.map((b) => classifier.classify(Buffer.from(b))));
    scores.forEach(expectScores);
    // Different images, different scores (these are probabilities of a real model, not constants).
    const distinct = new Set(scores.map((s) => `${s.sexual}/${s.suggestive}`));
    expect(distinct.size).toBe(scores.length);
    expect(classifier.loads).toBe(1);
  });

  it('is deterministic for the same bytes', async () => {
    const img = await gradient(512, 512);
    const first = await classifier.classify(img);
    const again = await classifier.classify(Buffer.from(img));
    expect(again).toEqual(first);
  });

  it('refuses corrupt or unknown input with a clear error, and keeps working after it', async () => {
    const png = await plain('#22aa44');
    await expect(classifier.classify(Buffer.from('definitely not an image'))).rejects.toThrow(/not a PNG, JPEG or WebP/);
    const truncated = png.subarray(0, Math.floor(png.length / 2));
    const err = await classifier.classify(truncated).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaInputError);
    expect((err as Error).message).toMatch(/^moderation: the image could not be decoded/);
    await expect(classifier.classify(Buffer.alloc(0))).rejects.toBeInstanceOf(MediaInputError);
    expectScores(await classifier.classify(png));
    expect(classifier.loads).toBe(1);
  });

  it('loads again after close(), with the same scores', async () => {
    const img = await plain('#aa5500', 'jpeg');
    const before = await classifier.classify(img);
    await classifier.close();
    expect(await classifier.classify(img)).toEqual(before);
    expect(classifier.loads).toBe(2);
  });
});
