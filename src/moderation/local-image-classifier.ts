/**
 * The default image classifier (contract §11: a real classifier that needs no account): nsfwjs's
 * MobileNetV2 (or InceptionV3) on TensorFlow.js, its weights read from inside the nsfwjs npm
 * package and the WASM binaries from inside @tensorflow/tfjs-backend-wasm; nothing is downloaded.
 *
 * - The model runs in one worker thread (nsfw-worker.mjs): tfjs's CPU and WASM backends compute
 *   synchronously on the calling thread (the WASM backend's own threads need Web Workers, absent
 *   in Node), so on the main thread each inference would stall every request of the server for
 *   its duration. Decoding and resizing (sharp) stay here: sharp already runs on libuv's pool.
 * - Loaded once, lazily, on the first classify() (or load(), to warm it at start); concurrent
 *   first calls share that load. A load that fails is not kept: the next call tries again.
 * - Images are classified one at a time, decode included: a burst of outputs waits here as the
 *   buffers their callers already hold instead of all being decoded and made tensors at once.
 * - The worker does not keep the process alive while idle; it is ref'd while an image is in it.
 */
import { Worker } from 'node:worker_threads';
import sharp, { type OutputInfo } from 'sharp';
import { MediaInputError } from '../media/errors.js';
import { sniffImageMime } from '../media/image-probe.js';
// Types only: the module itself (tfjs and all) is loaded in the worker, not on this thread.
import type { NsfwBackend, NsfwBackendChoice, NsfwModelName } from './nsfw-model.mjs';
import type { ImageClassifier, Scores } from './types.js';

export type { NsfwBackend, NsfwBackendChoice, NsfwModelName } from './nsfw-model.mjs';

export interface LocalImageClassifierOptions {
  /** MobileNetV2 (default; 224² input, 3.5 MB of weights) or InceptionV3 (299², 29 MB). */
  model?: NsfwModelName;
  /** `auto` (default): WASM, else CPU if WASM does not initialize here. */
  backend?: NsfwBackendChoice;
}

type FromWorker =
  | { type: 'ready'; backend: NsfwBackend; size: number; loadMs: number }
  | { type: 'load-failed'; message: string }
  | { type: 'result'; id: number; probs: Float32Array }
  | { type: 'failed'; id: number; message: string };

interface Pending {
  id: number;
  resolve: (probs: Float32Array) => void;
  reject: (e: Error) => void;
}

const NAMES: Record<NsfwModelName, string> = { MobileNetV2: 'nsfwjs-mobilenet-v2', InceptionV3: 'nsfwjs-inception-v3' };
/** The square input side each model was trained at (the worker reports its own; they must agree). */
const INPUT_SIZE: Record<NsfwModelName, number> = { MobileNetV2: 224, InceptionV3: 299 };
/** nsfwjs's output order: Drawing, Hentai, Neutral, Porn, Sexy. */
const HENTAI = 1;
const PORN = 3;
const SEXY = 4;

/** nsfwjs's five probabilities in the moderation vocabulary. */
export function scoresFromProbabilities(p: Float32Array): Scores {
  const at = (i: number): number => Math.min(1, Math.max(0, p[i] ?? 0));
  return { sexual: Math.min(1, at(PORN) + at(HENTAI)), suggestive: at(SEXY) };
}

/**
 * PNG, JPEG or WebP bytes → `size`×`size` RGB, 8 bits per channel, row-major: what the model
 * takes. The whole image is squeezed to the square (fit: fill), as nsfwjs itself resizes, so
 * nothing at the edges is cropped out of view. Transparency is flattened onto white (what a viewer
 * shows; nothing hides under alpha), EXIF orientation applied, and grey or CMYK inputs converted
 * to sRGB so that there are always three channels.
 */
export async function decodeToRgb(image: Buffer, size: number): Promise<Buffer> {
  if (!sniffImageMime(image)) throw new MediaInputError('moderation: not a PNG, JPEG or WebP image (unrecognized first bytes)');
  let out: { data: Buffer; info: OutputInfo };
  try {
    out = await sharp(image, { failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .resize(size, size, { fit: 'fill' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new MediaInputError(`moderation: the image could not be decoded (${(err as Error).message})`);
  }
  if (out.info.channels !== 3 || out.data.length !== size * size * 3) {
    throw new MediaInputError(`moderation: decoded to ${out.info.width}×${out.info.height}×${out.info.channels}, expected ${size}×${size}×3`);
  }
  return out.data;
}

export class LocalImageClassifier implements ImageClassifier {
  readonly name: string;
  readonly model: NsfwModelName;
  /** The model's square input side (224 or 299). */
  readonly inputSize: number;
  /** The backend the model runs on once loaded (`wasm`, or `cpu` where WASM failed); null before. */
  backend: NsfwBackend | null = null;
  /** Milliseconds the worker took to load and warm the model (imports excluded), once loaded. */
  loadMs: number | null = null;
  /** How many times a worker was started to load the model (1 unless it died or was closed). */
  loads = 0;
  private readonly backendChoice: NsfwBackendChoice;
  private worker: Worker | null = null;
  private loading: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: Pending | null = null;
  private nextId = 1;

  constructor(options: LocalImageClassifierOptions = {}) {
    this.model = options.model ?? 'MobileNetV2';
    this.backendChoice = options.backend ?? 'auto';
    this.name = NAMES[this.model];
    this.inputSize = INPUT_SIZE[this.model];
  }

  /** Loads the model if it is not loaded yet; every caller before it is ready shares one load. */
  async load(): Promise<void> {
    await this.ready();
  }

  classify(image: Buffer): Promise<Scores> {
    // One image at a time: each call waits for the previous one, failed or not.
    const run = this.queue.then(async () => {
      const worker = await this.ready();
      const rgb = await decodeToRgb(image, this.inputSize);
      return scoresFromProbabilities(await this.infer(worker, rgb));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the worker; the model is loaded again on the next call. */
  async close(): Promise<void> {
    const w = this.worker ?? (await this.loading?.catch(() => null)) ?? null;
    this.worker = null;
    this.loading = null;
    if (w) await w.terminate();
  }

  private ready(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.loading ??= this.spawn().then(
      (w) => (this.worker = w),
      (err: unknown) => {
        this.loading = null; // not kept: a later call tries again
        throw err;
      },
    );
    return this.loading;
  }

  private spawn(): Promise<Worker> {
    this.loads++;
    return new Promise<Worker>((resolve, reject) => {
      const w = new Worker(new URL('./nsfw-worker.mjs', import.meta.url), {
        workerData: { model: this.model, backend: this.backendChoice },
        // The parent's --import/--require (tsx) are for TypeScript; the worker is plain JavaScript.
        execArgv: [],
      });
      let loaded = false;
      w.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          if (m.size !== this.inputSize) {
            void w.terminate();
            reject(new Error(`${this.name}: the model takes ${m.size}² images, not ${this.inputSize}²`));
            return;
          }
          loaded = true;
          this.backend = m.backend;
          this.loadMs = m.loadMs;
          w.unref();
          resolve(w);
        } else if (m.type === 'load-failed') {
          void w.terminate();
          reject(new Error(`${this.name}: the model did not load: ${m.message}`));
        } else if (this.pending?.id === m.id) {
          const p = this.pending;
          this.pending = null;
          w.unref();
          if (m.type === 'result') p.resolve(m.probs);
          else p.reject(new Error(`${this.name}: ${m.message}`));
        }
      });
      const died = (why: string): void => {
        if (this.worker === w) {
          this.worker = null;
          this.loading = null;
        }
        const err = new Error(`${this.name}: the classifier's worker ${why}`);
        if (!loaded) reject(err);
        const p = this.pending;
        this.pending = null;
        p?.reject(err);
      };
      w.on('error', (err) => died(`failed: ${err.message}`));
      w.on('exit', (code) => died(`exited (code ${code})`));
    });
  }

  private infer(w: Worker, rgb: Buffer): Promise<Float32Array> {
    return new Promise<Float32Array>((resolve, reject) => {
      const id = this.nextId++;
      this.pending = { id, resolve, reject };
      w.ref();
      // A copy of exactly the pixels, transferred (sharp's buffer may share memory).
      const pixels = new Uint8Array(rgb);
      w.postMessage({ id, rgb: pixels }, [pixels.buffer]);
    });
  }
}
