/**
 * The default image classifier (contract §11: a real classifier that needs no account): nsfwjs's
 * MobileNetV2 (or InceptionV3), its weights read from inside the nsfwjs npm package; nothing is
 * downloaded. MobileNetV2 runs on ONNX Runtime (onnxruntime-node's native binaries, the network
 * translated from nsfwjs's own layers and weights by nsfw-onnx.mjs, the same scores to float
 * rounding); InceptionV3, or a platform without ONNX Runtime, on TensorFlow.js's WASM backend.
 *
 * - A pool of worker threads (nsfw-worker.mjs, `threads` of them, one core each): inference is
 *   synchronous on the thread that runs it, so on the main thread each one would stall every
 *   request of the server. Decoding and resizing (sharp) stay here: sharp runs on libuv's pool.
 * - Images that wait while every thread is busy go to the next free thread together, up to
 *   `maxBatch`, as one inference call (one message each way instead of one per image).
 * - Loaded once, lazily, on the first classify() (or load(), to warm it at start); concurrent
 *   first calls share that load. A load that fails is not kept: the next call tries again.
 * - Waiting images are the buffers their callers already hold: they are decoded only when a
 *   thread is about to take them. `waiting` says how many there are; the node refuses new
 *   synchronous image requests while it is at `maxBacklog` (moderator.ts, accept-request.ts).
 * - Idle workers do not keep the process alive; a worker is ref'd while a batch is in it.
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
  /** `auto` (default): ONNX Runtime, else tfjs's WASM backend, else tfjs's CPU backend. */
  backend?: NsfwBackendChoice;
  /** Worker threads (default 1); the server takes MMGEN_MODERATION_THREADS (config.ts). */
  threads?: number;
  /** Images one inference call takes at most (default 8). */
  maxBatch?: number;
  /** Waiting images at which `saturated` turns true (default: unbounded); the server takes MMGEN_MODERATION_BACKLOG. */
  maxBacklog?: number;
}

type FromWorker =
  | { type: 'ready'; backend: NsfwBackend; size: number; loadMs: number }
  | { type: 'load-failed'; message: string }
  | { type: 'result'; id: number; probs: Float32Array }
  | { type: 'failed'; id: number; message: string };

/** An image waiting for a thread, or in one. */
interface Job {
  image: Buffer;
  resolve: (scores: Scores) => void;
  reject: (e: Error) => void;
}

/** One worker thread of the pool and the batch it is working on. */
interface Slot {
  worker: Worker;
  batch: { id: number; jobs: Job[] } | null;
}

/** Thrown to callers that arrive while close() drains the pool. */
export class ClassifierClosingError extends Error {}

const NAMES: Record<NsfwModelName, string> = { MobileNetV2: 'nsfwjs-mobilenet-v2', InceptionV3: 'nsfwjs-inception-v3' };
/** The square input side each model was trained at (the worker reports its own; they must agree). */
const INPUT_SIZE: Record<NsfwModelName, number> = { MobileNetV2: 224, InceptionV3: 299 };
/** nsfwjs's output order: Drawing, Hentai, Neutral, Porn, Sexy. */
const CLASSES = 5;
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
  /** Worker threads the pool runs once loaded. */
  readonly threads: number;
  readonly maxBatch: number;
  readonly maxBacklog: number;
  /** The backend the model runs on once loaded (`onnx`, `wasm`, or `cpu`); null before. */
  backend: NsfwBackend | null = null;
  /** Milliseconds the slowest worker took to load and warm the model (imports excluded), once loaded. */
  loadMs: number | null = null;
  /** How many times the pool was started to load the model (1 unless a worker died or it was closed). */
  loads = 0;
  /** Inference calls made, and images they took: images ÷ batches is the batching achieved. */
  readonly stats = { batches: 0, images: 0 };
  private readonly backendChoice: NsfwBackendChoice;
  private slots: Slot[] = [];
  private loading: Promise<void> | null = null;
  private readonly queue: Job[] = [];
  private closing: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private nextId = 1;
  /** Recent wall milliseconds per image on one thread (a moving average), for Retry-After. */
  private msPerImage = 20;

  constructor(options: LocalImageClassifierOptions = {}) {
    this.model = options.model ?? 'MobileNetV2';
    this.backendChoice = options.backend ?? 'auto';
    this.name = NAMES[this.model];
    this.inputSize = INPUT_SIZE[this.model];
    this.threads = Math.max(1, Math.floor(options.threads ?? 1));
    this.maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 8));
    this.maxBacklog = options.maxBacklog ?? Number.POSITIVE_INFINITY;
  }

  /** Images waiting for a free thread (not yet in one). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Images in the workers now. */
  get inFlight(): number {
    return this.slots.reduce((n, s) => n + (s.batch?.jobs.length ?? 0), 0);
  }

  /** Worker threads running now (0 before the first load and after close()). */
  get running(): number {
    return this.slots.length;
  }

  /** At or over the backlog bound: the server takes no new synchronous image request until it drains. */
  get saturated(): boolean {
    return this.queue.length >= this.maxBacklog;
  }

  /** Seconds until the images waiting now are likely through, rounded up (at least 1): a Retry-After. */
  get drainSeconds(): number {
    return Math.max(1, Math.ceil((this.queue.length * this.msPerImage) / this.threads / 1000));
  }

  /** Loads the model if it is not loaded yet; every caller before it is ready shares one load. */
  async load(): Promise<void> {
    await this.ready();
  }

  classify(image: Buffer): Promise<Scores> {
    if (this.closing) return Promise.reject(new ClassifierClosingError(`${this.name}: the classifier is shutting down`));
    return new Promise<Scores>((resolve, reject) => {
      this.queue.push({ image, resolve, reject });
      this.pump();
    });
  }

  /**
   * Lets every image already taken finish (waiting or in a thread), then stops the workers; callers that arrive
   * meanwhile are refused. The model is loaded again on the next call after it.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.queue.length > 0 || this.inFlight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      await this.loading?.catch(() => undefined);
      const slots = this.slots;
      this.slots = [];
      this.loading = null;
      await Promise.all(slots.map((s) => s.worker.terminate()));
    })().finally(() => {
      this.closing = null;
      this.drained = null;
    });
    return this.closing;
  }

  /** Gives each free thread its share of the waiting images, starting the pool first if it is not running. */
  private pump(): void {
    if (this.queue.length === 0) {
      if (this.inFlight === 0) this.drained?.();
      return;
    }
    if (this.slots.length === 0) {
      this.ready().then(
        () => this.pump(),
        (err: unknown) => {
          // Nothing can classify them: every waiting image fails with the load's error (the next call tries again).
          for (const job of this.queue.splice(0)) job.reject(err as Error);
          this.pump();
        },
      );
      return;
    }
    const free = this.slots.filter((s) => !s.batch);
    for (let i = 0; i < free.length && this.queue.length > 0; i++) {
      // Spread over the free threads rather than all to the first one: a batch takes as long as its images.
      const n = Math.min(this.maxBatch, Math.ceil(this.queue.length / (free.length - i)));
      void this.run(free[i]!, this.queue.splice(0, n));
    }
  }

  /** Decodes a batch here (sharp, libuv's pool), sends what decoded to the slot's thread and answers each image. */
  private async run(slot: Slot, jobs: Job[]): Promise<void> {
    const id = this.nextId++;
    slot.batch = { id, jobs };
    slot.worker.ref();
    try {
      const decoded = await Promise.allSettled(jobs.map((j) => decodeToRgb(j.image, this.inputSize)));
      const ok: Array<{ job: Job; rgb: Buffer }> = [];
      decoded.forEach((d, i) => (d.status === 'fulfilled' ? ok.push({ job: jobs[i]!, rgb: d.value }) : jobs[i]!.reject(d.reason as Error)));
      if (ok.length === 0) return;
      slot.batch.jobs = ok.map((o) => o.job);
      const each = this.inputSize * this.inputSize * 3;
      const buffer = new ArrayBuffer(ok.length * each);
      const pixels = new Uint8Array(buffer);
      ok.forEach((o, i) => pixels.set(o.rgb, i * each));
      const t0 = performance.now();
      const probs = await this.infer(slot, id, buffer, ok.length);
      this.msPerImage = 0.8 * this.msPerImage + 0.2 * ((performance.now() - t0) / ok.length);
      this.stats.batches++;
      this.stats.images += ok.length;
      ok.forEach((o, i) => o.job.resolve(scoresFromProbabilities(probs.subarray(i * CLASSES, (i + 1) * CLASSES))));
    } catch (err) {
      for (const job of slot.batch?.jobs ?? jobs) job.reject(err as Error);
    } finally {
      if (slot.batch?.id === id) slot.batch = null;
      slot.worker.unref();
      this.pump();
    }
  }

  /** `pixels` (n images back to back) is transferred: the buffer is the worker's after this. */
  private infer(slot: Slot, id: number, pixels: ArrayBuffer, n: number): Promise<Float32Array> {
    return new Promise<Float32Array>((resolve, reject) => {
      const onMessage = (m: FromWorker): void => {
        if ((m.type !== 'result' && m.type !== 'failed') || m.id !== id) return;
        done();
        if (m.type === 'result') resolve(m.probs);
        else reject(new Error(`${this.name}: ${m.message}`));
      };
      const onExit = (code: number): void => {
        done();
        reject(new Error(`${this.name}: the classifier's worker exited (code ${code})`));
      };
      const done = (): void => {
        slot.worker.off('message', onMessage);
        slot.worker.off('exit', onExit);
      };
      slot.worker.on('message', onMessage);
      slot.worker.on('exit', onExit);
      slot.worker.postMessage({ id, n, rgb: new Uint8Array(pixels) }, [pixels]);
    });
  }

  private ready(): Promise<void> {
    if (this.slots.length > 0) return Promise.resolve();
    this.loading ??= (async () => {
      this.loads++;
      const started = await Promise.allSettled(Array.from({ length: this.threads }, () => this.spawn()));
      const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) {
        await Promise.all(workers.map((w) => w.worker.terminate()));
        throw failed.reason;
      }
      const backends = new Set(workers.map((w) => w.backend));
      if (backends.size !== 1) {
        await Promise.all(workers.map((w) => w.worker.terminate()));
        throw new Error(`${this.name}: the pool's threads loaded different backends (${[...backends].join(', ')})`);
      }
      this.backend = workers[0]!.backend;
      this.loadMs = Math.max(...workers.map((w) => w.loadMs));
      this.slots = workers.map((w) => ({ worker: w.worker, batch: null }));
      for (const s of this.slots) this.watch(s);
    })().finally(() => {
      this.loading = null; // kept in slots when it worked; a failed load is not kept: a later call tries again
    });
    return this.loading;
  }

  /**
   * A worker that dies leaves the pool and its batch fails (run() answers it); the pool goes on with the threads
   * left, and once none is left the next call starts a new one.
   */
  private watch(slot: Slot): void {
    const gone = (): void => {
      this.slots = this.slots.filter((s) => s !== slot);
    };
    slot.worker.on('exit', gone);
    slot.worker.on('error', gone);
  }

  private spawn(): Promise<{ worker: Worker; backend: NsfwBackend; loadMs: number }> {
    return new Promise((resolve, reject) => {
      const w = new Worker(new URL('./nsfw-worker.mjs', import.meta.url), {
        workerData: { model: this.model, backend: this.backendChoice },
        // The parent's --import/--require (tsx) are for TypeScript; the worker is plain JavaScript.
        execArgv: [],
      });
      const onMessage = (m: FromWorker): void => {
        if (m.type === 'ready') {
          off();
          if (m.size !== this.inputSize) {
            void w.terminate();
            reject(new Error(`${this.name}: the model takes ${m.size}² images, not ${this.inputSize}²`));
            return;
          }
          w.unref();
          resolve({ worker: w, backend: m.backend, loadMs: m.loadMs });
        } else if (m.type === 'load-failed') {
          off();
          void w.terminate();
          reject(new Error(`${this.name}: the model did not load: ${m.message}`));
        }
      };
      const onError = (err: Error): void => {
        off();
        reject(new Error(`${this.name}: the classifier's worker failed: ${err.message}`));
      };
      const onExit = (code: number): void => {
        off();
        reject(new Error(`${this.name}: the classifier's worker exited (code ${code})`));
      };
      const off = (): void => {
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
      };
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
    });
  }
}
