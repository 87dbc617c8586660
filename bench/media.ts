/**
 * Simulator media timings. Run: node --import tsx bench/media.ts
 * "cold" includes first use of each library (sharp/librsvg/fontconfig start-up,
 * ffmpeg capability probe), which is what the first request after boot pays.
 */
import { cpus } from 'node:os';
import { ffmpegCapabilities } from '../src/media/index.js';
import { clearMediaCache, mediaCacheStats, renderImage, renderMesh, renderVideo, upscaleImage } from '../src/providers/simulator/render/index.js';

async function time<T>(label: string, fn: () => Promise<T>, detail: (v: T) => string = () => ''): Promise<T> {
  const t0 = performance.now();
  const v = await fn();
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(38)} ${ms.toFixed(ms < 1 ? 3 : 1).padStart(9)} ms  ${detail(v)}`);
  return v;
}

async function main(): Promise<void> {
  const caps = await ffmpegCapabilities();
  console.log(`node ${process.version}, ${cpus().length} CPU(s), ffmpeg encoders: ${JSON.stringify(caps)}\n`);
  const png = { prompt: 'a lighthouse on a cliff at sunset, oil painting', seed: 42, width: 512, height: 512, format: 'png' as const };

  const img = await time('image 512x512 png, cold (first ever)', () => renderImage(png), (v) => `${v.bytes.length} B`);
  await time('image 512x512 png, cached', () => renderImage(png));
  const n = 10_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await renderImage(png);
  console.log(`${'image 512x512 png, cached, per lookup'.padEnd(38)} ${(((performance.now() - t0) / n) * 1000).toFixed(1).padStart(9)} µs  (mean of ${n})`);
  await time('image 512x512 png, new seed (warm libs)', () => renderImage({ ...png, seed: 43 }), (v) => `${v.bytes.length} B`);
  await time('image 1024x1024 jpeg, new', () => renderImage({ ...png, width: 1024, height: 1024, format: 'jpeg' }), (v) => `${v.bytes.length} B`);

  await time('video 5 s 512x288 @8fps, cold', () => renderVideo({ prompt: png.prompt, seed: 1, durationS: 5 }), (v) => `${v.video.codec}, ${v.video.bytes.length} B, thumb ${v.thumbnail.bytes.length} B`);
  await time('video 5 s 512x288 @8fps, new seed', () => renderVideo({ prompt: png.prompt, seed: 2, durationS: 5 }), (v) => `${v.video.bytes.length} B`);
  await time('video 5 s, cached', () => renderVideo({ prompt: png.prompt, seed: 2, durationS: 5 }));

  await time('mesh, cold', () => renderMesh({ prompt: 'a crystal', seed: 1 }), (v) => `${v.mesh.shape}, ${v.mesh.triangleCount} tris, ${v.mesh.bytes.length} B`);
  await time('mesh, new seed', () => renderMesh({ prompt: 'a crystal', seed: 2 }), (v) => `${v.mesh.shape}, ${v.mesh.bytes.length} B`);

  await time('upscale 512x512 -> 2048x2048 (4x)', () => upscaleImage({ input: img.bytes, scale: 4 }), (v) => `${v.width}x${v.height}, ${v.bytes.length} B`);
  await time('upscale 4x, cached', () => upscaleImage({ input: img.bytes, scale: 4 }));

  console.log('\ncache', mediaCacheStats());
  clearMediaCache();
}

await main();
