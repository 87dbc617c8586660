/** Types of nsfw-onnx.mjs (plain JavaScript so that a worker thread loads it without tsx). */
import type { NsfwModelName } from './nsfw-model.mjs';

export interface DecodedWeight {
  shape: number[];
  values: Float32Array;
}
export declare function decodeWeights(
  specs: ReadonlyArray<{ name: string; shape: number[]; dtype: string; quantization?: { dtype: string; scale: number; min: number } }>,
  data: Uint8Array,
): Map<string, DecodedWeight>;

/** nsfwjs's `name` as ONNX bytes (input `image`: uint8 [batch, size, size, 3]; output `probs`: float [batch, classes]). */
export declare function nsfwOnnxModel(name?: NsfwModelName): Promise<{ bytes: Uint8Array; size: number; classes: number }>;
