// nsfwjs's MobileNetV2 on ONNX Runtime (onnxruntime-node: its native binaries ship inside the npm package), built from
// the package's own weights by nsfw-onnx.mjs. One intra-op thread per session: the classifier's pool runs one session
// per worker thread, so the pool's size is the number of cores it uses. Plain JavaScript (see nsfw-model.mjs).
import * as ort from 'onnxruntime-node';
import { nsfwOnnxModel } from './nsfw-onnx.mjs';

export async function loadNsfwOnnx(name = 'MobileNetV2') {
  const t0 = performance.now();
  const { bytes, size, classes } = await nsfwOnnxModel(name);
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const each = size * size * 3;
  /** n images of size×size×3 RGB bytes, back to back → n × 5 probabilities, in nsfwjs's class order. */
  async function inferBatch(rgb, n) {
    if (rgb.length !== n * each) throw new Error(`expected ${n} × ${size}×${size}×3 RGB bytes, got ${rgb.length}`);
    const out = await session.run({ image: new ort.Tensor('uint8', rgb, [n, size, size, 3]) });
    const probs = out.probs;
    if (probs.dims[0] !== n || probs.dims[1] !== classes) throw new Error(`the model answered ${probs.dims.join('×')}`);
    return Float32Array.from(probs.data);
  }
  // Run once, as nsfwjs warms its model up: the first run allocates what the later ones reuse.
  await inferBatch(new Uint8Array(each), 1);
  return { backend: 'onnx', size, loadMs: performance.now() - t0, inferBatch };
}
