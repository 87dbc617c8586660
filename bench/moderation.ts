/**
 * The local image classifier (src/moderation/local-image-classifier.ts): load time, time and CPU
 * per image, memory once loaded, and how long the server's event loop is held, for each model and
 * backend. Run: `npm run bench:moderation` (node --import tsx bench/moderation.ts). Results are
 * printed (and written as JSON to the file BENCH_OUT names, if set); bench/README.md keeps the
 * figures of record.
 *
 * Each configuration runs in a child process of its own, so that its memory figures are its own
 * and tfjs's backend (global to a thread) is the one asked for. The images are the simulator's
 * renders (different prompts and seeds, PNG), 512² and 1024², made once by the parent; nothing is
 * downloaded. BENCH_IMAGES (default 50) images per size; the CPU backend, 10–20× slower, gets
 * BENCH_CPU_IMAGES (default 8). BENCH_CONFIGS picks configurations, e.g. `MobileNetV2/wasm`.
 *
 * Per image: wall time of classify() (decode + inference + the thread hop), and the process's CPU
 * time over it (process.cpuUsage: every thread, so sharp's pool and the worker are counted). The
 * `pool-N` rows submit every image of a size at once to N threads (batches form): their figures
 * are the run's totals ÷ images, so wall is the pool's throughput, not one image's latency. The
 * `in-process` row runs the same model on the main thread without the worker (nsfw-model.mjs
 * directly), to show what the worker costs and what it spares the event loop.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeToRgb, LocalImageClassifier, scoresFromProbabilities, type NsfwBackendChoice, type NsfwModelName } from '../src/moderation/local-image-classifier.js';
import { renderImage } from '../src/providers/simulator/render/index.js';

const IMAGES = Number(process.env.BENCH_IMAGES ?? 50);
const CPU_IMAGES = Number(process.env.BENCH_CPU_IMAGES ?? 8);
const SIZES = [512, 1024] as const;

interface Config {
  model: NsfwModelName;
  backend: NsfwBackendChoice;
  inProcess?: boolean;
  /** A pool of this many threads, every image of a size submitted at once (batches form): CPU and wall per image are the run's totals ÷ images. */
  pool?: number;
}
const ALL: Config[] = [
  { model: 'MobileNetV2', backend: 'onnx' },
  { model: 'MobileNetV2', backend: 'onnx', pool: availableParallelism() },
  { model: 'MobileNetV2', backend: 'wasm' },
  { model: 'MobileNetV2', backend: 'wasm', pool: availableParallelism() },
  { model: 'MobileNetV2', backend: 'wasm', inProcess: true },
  { model: 'MobileNetV2', backend: 'cpu' },
  { model: 'InceptionV3', backend: 'wasm' },
  { model: 'InceptionV3', backend: 'cpu' },
];
const label = (c: Config): string => `${c.model}/${c.backend}${c.inProcess ? '/in-process' : ''}${c.pool ? `/pool-${c.pool}` : ''}`;

interface SizeResult {
  side: number;
  images: number;
  wallMsMedian: number;
  wallMsP95: number;
  cpuMsMedian: number;
  cpuMsP95: number;
  decodeMsMedian: number;
  /**
   * Stalls of the main thread's event loop during the run (monitorEventLoopDelay, 5 ms
   * resolution): p99 and max. On a shared machine the max also counts time the OS did not
   * schedule the thread at all; p99 is the steadier figure.
   */
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
}
interface Result {
  config: string;
  backend: string;
  loadMs: number;
  /** The worker's own figure: backend init + weights + warm-up, module imports excluded. */
  modelLoadMs: number;
  rssBeforeMiB: number;
  rssLoadedMiB: number;
  rssAfterMiB: number;
  heapUsedLoadedMiB: number;
  sizes: SizeResult[];
}

const MiB = (n: number): number => Math.round((n / 2 ** 20) * 10) / 10;
const r1 = (n: number): number => Math.round(n * 10) / 10;
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
}

/** Runs one configuration in this process (the child side). */
async function runOne(config: Config, dir: string): Promise<Result> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  let classify: (b: Buffer) => Promise<unknown>;
  let backend: string;
  let modelLoadMs: number;
  let close = async (): Promise<void> => undefined;
  if (config.inProcess) {
    const { loadNsfwModel } = await import('../src/moderation/nsfw-model.mjs');
    const m = await loadNsfwModel(config.model, config.backend === 'onnx' ? 'auto' : config.backend);
    classify = async (b) => scoresFromProbabilities(await m.infer(await decodeToRgb(b, m.size)));
    backend = m.backend;
    modelLoadMs = m.loadMs;
  } else {
    const c = new LocalImageClassifier({ model: config.model, backend: config.backend, threads: config.pool ?? 1 });
    await c.load();
    classify = (b) => c.classify(b);
    backend = c.backend ?? '?';
    modelLoadMs = c.loadMs ?? NaN;
    close = () => c.close();
  }
  const loadMs = performance.now() - t0;
  global.gc?.();
  const loaded = process.memoryUsage();
  const inputSize = config.model === 'InceptionV3' ? 299 : 224;

  const sizes: SizeResult[] = [];
  for (const side of SIZES) {
    const files = readdirSync(join(dir, String(side))).sort();
    const n = config.backend === 'cpu' ? Math.min(CPU_IMAGES, files.length) : Math.min(IMAGES, files.length);
    const images = files.slice(0, n).map((f) => readFileSync(join(dir, String(side), f)));
    await classify(images[0]!); // this size's first image, untimed
    const wall: number[] = [];
    const cpu: number[] = [];
    const decode: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    if (config.pool) {
      // All at once: the pool's threads share them and batch what waits; per image is the run's total ÷ images.
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      await Promise.all(images.map((img) => classify(img)));
      const per = performance.now() - w0;
      const c = process.cpuUsage(c0);
      for (let i = 0; i < images.length; i++) {
        wall.push(per / images.length);
        cpu.push((c.user + c.system) / 1000 / images.length);
      }
    }
    for (const img of config.pool ? [] : images) {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      await classify(img);
      wall.push(performance.now() - w0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    loop.disable();
    for (const img of images) {
      const d0 = performance.now();
      await decodeToRgb(img, inputSize);
      decode.push(performance.now() - d0);
    }
    sizes.push({
      side,
      images: n,
      wallMsMedian: r1(quantile(wall, 0.5)),
      wallMsP95: r1(quantile(wall, 0.95)),
      cpuMsMedian: r1(quantile(cpu, 0.5)),
      cpuMsP95: r1(quantile(cpu, 0.95)),
      decodeMsMedian: r1(quantile(decode, 0.5)),
      eventLoopP99Ms: r1(loop.percentile(99) / 1e6),
      eventLoopMaxMs: r1(loop.max / 1e6),
    });
  }
  const rssAfter = process.memoryUsage().rss;
  await close();
  return {
    config: label(config),
    backend,
    loadMs: Math.round(loadMs),
    modelLoadMs: Math.round(modelLoadMs),
    rssBeforeMiB: MiB(rssBefore),
    rssLoadedMiB: MiB(loaded.rss),
    rssAfterMiB: MiB(rssAfter),
    heapUsedLoadedMiB: MiB(loaded.heapUsed),
    sizes,
  };
}

async function makeImages(dir: string): Promise<void> {
  const prompts = ['a lighthouse on a cliff at sunset', 'a bowl of fruit', 'a city street in the rain', 'a portrait of an old sailor', 'mountains under snow', 'a beach at noon', 'a forest path', 'a cat on a sofa'];
  for (const side of SIZES) {
    mkdirSync(join(dir, String(side)));
    for (let i = 0; i <= IMAGES; i++) {
      const { bytes } = await renderImage({ prompt: prompts[i % prompts.length]!, seed: 1000 + i, width: side, height: side, format: 'png' });
      writeFileSync(join(dir, String(side), `${String(i).padStart(3, '0')}.png`), bytes);
    }
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--one') {
    const [, cfg, dir] = args as [string, string, string];
    const result = await runOne(JSON.parse(cfg) as Config, dir);
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
    return;
  }
  const wanted = process.env.BENCH_CONFIGS?.split(',');
  const configs = wanted ? ALL.filter((c) => wanted.includes(label(c))) : ALL;
  const dir = mkdtempSync(join(tmpdir(), 'mmgen-bench-moderation-'));
  const started = new Date().toISOString();
  console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${MiB(totalmem())} MiB; ${IMAGES} images per size (${CPU_IMAGES} on the CPU backend)`);
  try {
    const t0 = performance.now();
    await makeImages(dir);
    console.log(`images rendered in ${Math.round(performance.now() - t0)} ms\n`);
    const results: Result[] = [];
    const self = fileURLToPath(import.meta.url);
    for (const c of configs) {
      const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', self, '--one', JSON.stringify(c), dir], { maxBuffer: 16 << 20 });
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (!line) throw new Error(`${label(c)}: no result\n${stdout}`);
      const r = JSON.parse(line.slice(7)) as Result;
      results.push(r);
      console.log(`${r.config} (on ${r.backend}): load ${r.loadMs} ms (model ${r.modelLoadMs} ms), RSS ${r.rssBeforeMiB} → ${r.rssLoadedMiB} MiB loaded → ${r.rssAfterMiB} MiB after the run, main heap ${r.heapUsedLoadedMiB} MiB`);
      for (const s of r.sizes) {
        console.log(
          `  ${s.side}² ×${s.images}: wall ${s.wallMsMedian} / ${s.wallMsP95} ms (median / p95), CPU ${s.cpuMsMedian} / ${s.cpuMsP95} ms, of which decode ${s.decodeMsMedian} ms; event loop delay p99 ${s.eventLoopP99Ms} ms, max ${s.eventLoopMaxMs} ms`,
        );
      }
    }
    if (process.env.BENCH_OUT) {
      writeFileSync(process.env.BENCH_OUT, `${JSON.stringify({ started, node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, results }, null, 2)}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
