// The nsfwjs model on TensorFlow.js: a backend that needs no download, the model built from the
// weights that ship inside the nsfwjs npm package, and the five class probabilities of one image
// already decoded to RGB. Types: nsfw-model.d.mts.
//
// Plain JavaScript on purpose: this runs in the classifier's worker thread, and on Node 20 a
// worker cannot load TypeScript through tsx's ESM hooks; through tsx's CommonJS hook it can, but
// that hook scans every .js it loads, tfjs and the megabytes of base64 weights included, which made
// the model load 8–10 times slower (4–5 s instead of 0.5 s for MobileNetV2 on WASM). It imports
// nothing from src/, only packages.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { NSFWJS } from 'nsfwjs';

/** The square input side each model was trained at. */
export const NSFW_INPUT_SIZE = Object.freeze({ MobileNetV2: 224, InceptionV3: 299 });

/** nsfwjs's output order (its NSFW_CLASSES). */
export const NSFW_CLASSES = Object.freeze(['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy']);

// tfjs's backend is global to the thread, so it is chosen once; a later call asking for another
// one is refused rather than switching under a model already loaded on the first.
let backendChosen = null;
let backendAsked = null;

async function chooseBackend(choice) {
  if (backendChosen) {
    if (backendAsked !== choice) throw new Error(`tfjs backend already chosen as ${backendAsked} in this thread`);
    return backendChosen;
  }
  backendAsked = choice;
  backendChosen = (async () => {
    // Production mode: skips tfjs's debug checks and its console banner recommending tfjs-node
    // (which downloads a native binary at install, so it is not used).
    tf.enableProdMode();
    if (choice !== 'cpu') {
      // The .wasm binaries ship in @tensorflow/tfjs-backend-wasm's dist directory; an absolute
      // prefix there makes tfjs read them from disk (by default a browser build would fetch them).
      const require = createRequire(import.meta.url);
      setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`);
      if (await tf.setBackend('wasm').catch(() => false)) {
        await tf.ready();
        return 'wasm';
      }
      if (choice === 'wasm') throw new Error('the tfjs WASM backend did not initialize');
    }
    if (!(await tf.setBackend('cpu'))) throw new Error('the tfjs CPU backend did not initialize');
    await tf.ready();
    return 'cpu';
  })();
  return backendChosen;
}

// nsfwjs's own bundled model definitions (model JSON and base64 weight shards, inside the package).
async function modelDefinition(name) {
  if (name === 'InceptionV3') return (await import('nsfwjs/models/inception_v3')).InceptionV3Model;
  if (name === 'MobileNetV2') return (await import('nsfwjs/models/mobilenet_v2')).MobileNetV2Model;
  throw new Error(`unknown nsfwjs model ${name}`);
}

// The model through an in-memory IO handler built from those definitions. nsfwjs's load() would
// do the same, but it logs to the console on every load, first looks for a global named `model`
// (which any other code could set) and decodes the base64 one character at a time.
async function loadArtifacts(name) {
  const def = await modelDefinition(name);
  const json = (await def.modelJson()).default;
  const shards = [];
  for (const bundle of def.weightBundles) shards.push(Buffer.from((await bundle()).default, 'base64'));
  const weights = Buffer.concat(shards);
  const artifacts = {
    modelTopology: json.modelTopology,
    weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
    // An ArrayBuffer of exactly the weights (a Buffer may be a view into a larger pool).
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
  if (json.format !== undefined) artifacts.format = json.format;
  return artifacts;
}

/** Loads `name` on the chosen backend and runs it once (nsfwjs warms it up with zeros). */
export async function loadNsfwModel(name = 'MobileNetV2', backendChoice = 'auto') {
  const t0 = performance.now();
  const backend = await chooseBackend(backendChoice);
  const size = NSFW_INPUT_SIZE[name];
  if (!size) throw new Error(`unknown nsfwjs model ${name}`);
  const net = new NSFWJS(tf.io.fromMemory(await loadArtifacts(name)), { size });
  await net.load();
  const loadMs = performance.now() - t0;

  /** size×size×3 RGB bytes → the five probabilities, in NSFW_CLASSES order. */
  async function infer(rgb) {
    if (rgb.length !== size * size * 3) throw new Error(`expected ${size}×${size}×3 RGB bytes, got ${rgb.length}`);
    // tidy disposes the input tensor and every intermediate; infer() normalizes to [0, 1] itself.
    const probs = tf.tidy(() => net.infer(tf.tensor3d(rgb, [size, size, 3], 'int32')));
    try {
      return Float32Array.from(await probs.data());
    } finally {
      probs.dispose();
    }
  }
  return { model: name, backend, size, loadMs, infer };
}
