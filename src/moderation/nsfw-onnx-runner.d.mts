/** Types of nsfw-onnx-runner.mjs (plain JavaScript so that a worker thread loads it without tsx). */
import type { NsfwModelName } from './nsfw-model.mjs';

export interface LoadedNsfwOnnx {
  readonly backend: 'onnx';
  readonly size: number;
  readonly loadMs: number;
  /** n images of size×size×3 RGB bytes, back to back → n × 5 probabilities, in NSFW_CLASSES order. */
  inferBatch(rgb: Uint8Array, n: number): Promise<Float32Array>;
}
export declare function loadNsfwOnnx(name?: NsfwModelName): Promise<LoadedNsfwOnnx>;
