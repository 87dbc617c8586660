// One of the classifier's worker threads (started by local-image-classifier.ts, one per thread of its pool): loads the
// model once, then answers batches of images, one batch at a time. Messages in: {id, n, rgb} (n images of
// size×size×3 bytes, back to back, transferred). Out: {type: 'ready', backend, size, loadMs} | {type: 'load-failed',
// message} | {type: 'result', id, probs} (n × 5 probabilities, transferred) | {type: 'failed', id, message}.
// Plain JavaScript for the reason given in nsfw-model.mjs.
import { parentPort, workerData } from 'node:worker_threads';

const port = parentPort;
if (!port) throw new Error('nsfw-worker.mjs runs as a worker thread only');

const CLASSES = 5;

/**
 * ONNX Runtime first (`auto` or `onnx`): native kernels, about 6–8× less CPU than tfjs's WASM backend for the same
 * network (bench/README.md). tfjs is imported only when it is the one used: it is the larger module to load.
 */
async function load(model, choice) {
  if (choice === 'auto' || choice === 'onnx') {
    try {
      const { loadNsfwOnnx } = await import('./nsfw-onnx-runner.mjs');
      return await loadNsfwOnnx(model);
    } catch (err) {
      if (choice === 'onnx') throw err;
      // Another model than MobileNetV2, or no ONNX Runtime binary for this platform: tfjs runs it.
    }
  }
  const { loadNsfwModel } = await import('./nsfw-model.mjs');
  const m = await loadNsfwModel(model, choice === 'auto' ? 'auto' : choice);
  return {
    backend: m.backend,
    size: m.size,
    loadMs: m.loadMs,
    async inferBatch(rgb, n) {
      const each = m.size * m.size * 3;
      const out = new Float32Array(n * CLASSES);
      for (let i = 0; i < n; i++) out.set(await m.infer(rgb.subarray(i * each, (i + 1) * each)), i * CLASSES);
      return out;
    },
  };
}

const t0 = performance.now();
const loading = load(workerData.model, workerData.backend);
loading.then(
  (m) => port.postMessage({ type: 'ready', backend: m.backend, size: m.size, loadMs: m.loadMs ?? performance.now() - t0 }),
  (err) => port.postMessage({ type: 'load-failed', message: err instanceof Error ? err.message : String(err) }),
);

// The parent sends one batch at a time; the chain keeps answers in order even if it did not.
let chain = Promise.resolve();
port.on('message', (msg) => {
  chain = chain.then(async () => {
    try {
      const probs = await (await loading).inferBatch(msg.rgb, msg.n);
      port.postMessage({ type: 'result', id: msg.id, probs }, [probs.buffer]);
    } catch (err) {
      port.postMessage({ type: 'failed', id: msg.id, message: err instanceof Error ? err.message : String(err) });
    }
  });
});
