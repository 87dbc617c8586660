/** Types of nsfw-model.mjs (plain JavaScript so that a worker thread loads it without tsx). */
export type NsfwModelName = 'MobileNetV2' | 'InceptionV3';
/**
 * `auto`: ONNX Runtime (MobileNetV2 only), else tfjs's WASM backend when it initializes here, else tfjs's pure
 * JavaScript CPU backend. `onnx`, `wasm`, `cpu`: that one or a failed load. (loadNsfwModel, tfjs only, takes all but
 * `onnx`.)
 */
export type NsfwBackendChoice = 'auto' | 'onnx' | 'wasm' | 'cpu';
export type NsfwBackend = 'onnx' | 'wasm' | 'cpu';

export declare const NSFW_INPUT_SIZE: Readonly<Record<NsfwModelName, number>>;
export declare const NSFW_CLASSES: readonly ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'];

export interface LoadedNsfwModel {
  readonly model: NsfwModelName;
  readonly backend: NsfwBackend;
  /** The square input side. */
  readonly size: number;
  /** Milliseconds from the call to a model that has run once (backend, weights, warm-up). */
  readonly loadMs: number;
  /** size×size×3 RGB bytes, row-major → the five probabilities, in NSFW_CLASSES order. */
  infer(rgb: Uint8Array): Promise<Float32Array>;
}

export declare function loadNsfwModel(name?: NsfwModelName, backend?: Exclude<NsfwBackendChoice, 'onnx'>): Promise<LoadedNsfwModel>;
