// The classifier's worker thread (started by local-image-classifier.ts): loads the model once, then
// answers one image at a time. Messages in: {id, rgb} (size×size×3 bytes, transferred). Out:
// {type: 'ready', backend, size, loadMs} | {type: 'load-failed', message}
// | {type: 'result', id, probs} | {type: 'failed', id, message}.
// Plain JavaScript for the reason given in nsfw-model.mjs.
import { parentPort, workerData } from 'node:worker_threads';
import { loadNsfwModel } from './nsfw-model.mjs';

const port = parentPort;
if (!port) throw new Error('nsfw-worker.mjs runs as a worker thread only');

const loading = loadNsfwModel(workerData.model, workerData.backend);
loading.then(
  (m) => port.postMessage({ type: 'ready', backend: m.backend, size: m.size, loadMs: m.loadMs }),
  (err) => port.postMessage({ type: 'load-failed', message: err instanceof Error ? err.message : String(err) }),
);

// The parent sends one image at a time; the chain keeps answers in order even if it did not.
let chain = Promise.resolve();
port.on('message', (msg) => {
  chain = chain.then(async () => {
    try {
      const probs = await (await loading).infer(msg.rgb);
      port.postMessage({ type: 'result', id: msg.id, probs }, [probs.buffer]);
    } catch (err) {
      port.postMessage({ type: 'failed', id: msg.id, message: err instanceof Error ? err.message : String(err) });
    }
  });
});
