import * as tf from '@tensorflow/tfjs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
const require = createRequire(import.meta.url);
tf.enableProdMode();
setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
await tf.setBackend('wasm'); await tf.ready();
const def = (await import('nsfwjs/models/mobilenet_v2_mid')).MobileNetV2MidModel;
const json = (await def.modelJson()).default;
const shards = []; for (const b of def.weightBundles) shards.push(Buffer.from((await b()).default, 'base64'));
const w = Buffer.concat(shards);
const model = await tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs: json.weightsManifest.flatMap(g => g.weights), weightData: w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength), format: json.format }));
const rgb = new Float32Array(224*224*3).map((_, i) => ((i * 7919) % 256)/255);
for (const B of [1, 4, 8]) {
  const x = tf.tensor4d(new Float32Array(B * rgb.length).map((_, i) => rgb[i % rgb.length]), [B, 224, 224, 3]);
  for (let k = 0; k < 2; k++) { const y = model.predict(x); await y.data(); y.dispose(); }
  const N = Math.max(3, 16 / B);
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let k = 0; k < N; k++) { const y = model.predict(x); await y.data(); y.dispose(); }
  const c = process.cpuUsage(c0);
  console.log('mid batch', B, 'cpu/img', ((c.user + c.system) / 1000 / N / B).toFixed(1), 'wall/img', ((performance.now() - t0) / N / B).toFixed(1));
  x.dispose();
}
