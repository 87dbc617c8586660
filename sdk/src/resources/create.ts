import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
import { MODALITY_ENDPOINTS } from '../generated/modalities.js';
import type {
  AvatarCreateParams,
  CreateParamsFor,
  Generation,
  KnownModel,
  ModelParameters,
  ImageCreateParams,
  MusicCreateParams,
  ThreeDCreateParams,
  UpscaleCreateParams,
  VideoCreateParams,
  VideoGeneration,
  VoiceCreateParams,
} from '../types.js';

/**
 * The generation endpoints. Each create is a credit-consuming POST: it gets an
 * Idempotency-Key (yours from `options.idempotencyKey`, or a fresh one per
 * call) that stays the same across the SDK's retries, so a retry never
 * charges twice.
 *
 * `params` is typed by its `model`: a model this SDK knows (CreateParamsFor)
 * is held to its own parameters, so `duration_s: 7` for a model that takes 5
 * or 10 fails to compile; any other model string gets the endpoint's generic
 * fields, as the server may have models this SDK does not know yet.
 *
 * Each posts to its modality's endpoint as the server declares it (MODALITY_ENDPOINTS, generated from the
 * OpenAPI document's `x-mmgen-modality`): the paths are not written here.
 */
abstract class Creator<Mod extends keyof ModelParameters & keyof typeof MODALITY_ENDPOINTS, Params, Result> {
  protected abstract readonly modality: Mod;
  constructor(protected readonly transport: Transport) {}

  // `string & {}` keeps the known slugs offered by editors without refusing other strings.
  create<M extends KnownModel<Mod> | (string & {})>(params: CreateParamsFor<Mod, M, Params> & { model: M }, options?: RequestOptions): APIPromise<Result> {
    const path = MODALITY_ENDPOINTS[this.modality].path;
    return this.transport.request<Result>({ method: 'POST', path, body: params, retry: 'idempotency-key' }, options);
  }
}

/** Images: synchronous; the answer is the finished generation. */
export class Images extends Creator<'image', ImageCreateParams, Generation> {
  protected readonly modality = 'image';
}
/** A video: asynchronous (202); follow it with `generations.wait`. */
export class Videos extends Creator<'video', VideoCreateParams, VideoGeneration> {
  protected readonly modality = 'video';
}
/** Voice: synchronous text-to-speech. */
export class Voice extends Creator<'voice', VoiceCreateParams, Generation> {
  protected readonly modality = 'voice';
}
/** Music: asynchronous (202). */
export class Music extends Creator<'music', MusicCreateParams, Generation> {
  protected readonly modality = 'music';
}
/** Avatars: asynchronous (202) talking avatars. */
export class Avatars extends Creator<'avatar', AvatarCreateParams, Generation> {
  protected readonly modality = 'avatar';
}
/** 3D: asynchronous (202); a GLB mesh and a thumbnail. */
export class ThreeD extends Creator<'3d', ThreeDCreateParams, Generation> {
  protected readonly modality = '3d';
}
/** Upscale: asynchronous (202); JPEG of input size × scale. */
export class Upscale extends Creator<'upscale', UpscaleCreateParams, Generation> {
  protected readonly modality = 'upscale';
}
