import * as ort from 'onnxruntime-node';
import { nsfwOnnxModel } from './src/moderation/nsfw-onnx.mjs';
import { loadNsfwModel } from './src/moderation/nsfw-model.mjs';
let t0 = performance.now();
const m = await nsfwOnnxModel();
console.log('built', m.bytes.length, 'bytes in', (performance.now()-t0).toFixed(0), 'ms');
t0 = performance.now();
const s = await ort.InferenceSession.create(m.bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
console.log('session in', (performance.now()-t0).toFixed(0), 'ms', s.inputNames, s.outputNames);
const tf = await loadNsfwModel('MobileNetV2', 'wasm');
let maxd = 0;
const imgs = [];
for (let k = 0; k < 6; k++) { const rgb = new Uint8Array(224*224*3); let seed = k*1000+7; for (let i = 0; i < rgb.length; i++) { seed = (seed * 1103515245 + 12345) & 0x7fffffff; rgb[i] = (k % 2) ? (seed >> 16) & 255 : ((i % 672) / 3 + k * 40) & 255; } imgs.push(rgb); }
for (const rgb of imgs) {
  const a = await tf.infer(rgb);
  const r = await s.run({ image: new ort.Tensor('uint8', rgb, [1, 224, 224, 3]) });
  const b = r.probs.data;
  for (let i = 0; i < 5; i++) maxd = Math.max(maxd, Math.abs(a[i] - b[i]));
  console.log(Array.from(a).map(v=>v.toFixed(4)).join(' '), '|', Array.from(b).map(v=>v.toFixed(4)).join(' '));
}
console.log('max diff', maxd);
for (const B of [1, 2, 4, 8]) {
  const data = new Uint8Array(B * 224*224*3); for (let i = 0; i < B; i++) data.set(imgs[i % imgs.length], i*224*224*3);
  const t = new ort.Tensor('uint8', data, [B, 224, 224, 3]);
  for (let k = 0; k < 2; k++) await s.run({ image: t });
  const N = Math.max(4, 32 / B);
  const c0 = process.cpuUsage(); const w0 = performance.now();
  for (let k = 0; k < N; k++) await s.run({ image: t });
  const c = process.cpuUsage(c0);
  console.log('ort batch', B, 'cpu/img', ((c.user + c.system) / 1000 / N / B).toFixed(2), 'wall/img', ((performance.now() - w0) / N / B).toFixed(2));
}
