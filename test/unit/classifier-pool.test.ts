import { afterAll, describe, expect, it } from 'vitest';
import { ClassifierClosingError, decodeToRgb, LocalImageClassifier, scoresFromProbabilities } from '../../src/moderation/local-image-classifier.js';
import { loadNsfwModel } from '../../src/moderation/nsfw-model.mjs';
import { renderImage } from '../../src/providers/simulator/render/index.js';

/**
 * The local classifier's pool of worker threads, on the real model: several threads and batches give the verdicts one
 * thread gives image by image; ONNX Runtime gives tfjs's scores (the same network, to float rounding); the backlog
 * is counted and bounded; close() lets what was taken finish, then stops every thread.
 */
const renders = Promise.all(
  Array.from({ length: 12 }, (_, i) =>
    renderImage({ prompt: ['a lighthouse on a cliff', 'a bowl of fruit', 'a red fox in the snow number 2', 'a city street in the rain'][i % 4]!, seed: i === 2 ? '1311:0' : 100 + i, width: 512, height: 512, format: i % 3 === 0 ? 'jpeg' : 'png' }).then((r) => Buffer.from(r.bytes)),
  ),
);

const single = new LocalImageClassifier({ threads: 1, maxBatch: 1 });
const pool = new LocalImageClassifier({ threads: 2, maxBatch: 4, maxBacklog: 3 });
afterAll(() => Promise.all([single.close(), pool.close()]));

describe('the classifier pool (nsfwjs MobileNetV2 on ONNX Runtime, worker threads)', () => {
  it('gives, with two threads and batches of up to four, exactly the scores one thread gives one image at a time', async () => {
    const images = await renders;
    const one: unknown[] = [];
    for (const img of images) one.push(await single.classify(img));
    expect(single.stats).toEqual({ batches: images.length, images: images.length });
    const many = await Promise.all(images.map((img) => pool.classify(img)));
    expect(many).toEqual(one);
    expect(pool.running).toBe(2);
    expect(pool.backend).toBe('onnx');
    // Twelve images at once on two threads: some went in batches (fewer inference calls than images).
    expect(pool.stats.images).toBe(images.length);
    expect(pool.stats.batches).toBeLessThan(images.length);
  });

  it('scores as tfjs does on the same pixels (the same network, translated): within 1e-4 on every class', async () => {
    const images = await renders;
    const tf = await loadNsfwModel('MobileNetV2', 'wasm');
    for (const img of images) {
      const viaTf = scoresFromProbabilities(await tf.infer(await decodeToRgb(img, 224)));
      const viaPool = await pool.classify(img);
      expect(viaPool.sexual).toBeCloseTo(viaTf.sexual!, 4);
      expect(viaPool.suggestive).toBeCloseTo(viaTf.suggestive!, 4);
    }
    // The render tfjs takes for drawn explicit content (moderation-verdict.test.ts) stays over the default 0.8.
    expect((await pool.classify(images[2]!)).sexual).toBeGreaterThan(0.8);
  });

  it('counts what waits, is saturated at its bound, and drains', async () => {
    const images = await renders;
    await pool.load();
    expect(pool.saturated).toBe(false);
    const all = [...images, ...images].map((img) => pool.classify(img));
    // Two threads took up to 4 each (decoding first); the rest wait, over the bound of 3.
    expect(pool.waiting + pool.inFlight).toBe(24);
    expect(pool.waiting).toBeGreaterThanOrEqual(16);
    expect(pool.saturated).toBe(true);
    expect(pool.drainSeconds).toBeGreaterThanOrEqual(1);
    await Promise.all(all);
    expect({ waiting: pool.waiting, inFlight: pool.inFlight, saturated: pool.saturated }).toEqual({ waiting: 0, inFlight: 0, saturated: false });
  });

  it('a corrupt image in a batch fails alone; the others in it are judged', async () => {
    const images = await renders;
    const results = await Promise.allSettled([images[0]!, Buffer.from('not an image'), images[1]!, images[0]!.subarray(0, 100), images[3]!].map((b) => pool.classify(b)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
  });

  it('close() lets every image already taken finish, refuses newcomers meanwhile, then stops every thread; the next call loads again', async () => {
    const images = await renders;
    const c = new LocalImageClassifier({ threads: 2, maxBatch: 2 });
    await c.load();
    const expected = await Promise.all(images.map((img) => single.classify(img)));
    const taken = images.map((img) => c.classify(img));
    const closing = c.close();
    await expect(c.classify(images[0]!)).rejects.toBeInstanceOf(ClassifierClosingError);
    expect(await Promise.all(taken)).toEqual(expected);
    await closing;
    expect(c.running).toBe(0);
    expect(await c.classify(images[1]!)).toEqual(expected[1]);
    expect(c.loads).toBe(2);
    await c.close();
  });
});
