import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions, Transport } from '../core/transport.js';
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
 */
abstract class Creator<Mod extends keyof ModelParameters, Params, Result> {
  protected abstract readonly path: string;
  constructor(protected readonly transport: Transport) {}

  // `string & {}` keeps the known slugs offered by editors without refusing other strings.
  create<M extends KnownModel<Mod> | (string & {})>(params: CreateParamsFor<Mod, M, Params> & { model: M }, options?: RequestOptions): APIPromise<Result> {
    return this.transport.request<Result>({ method: 'POST', path: this.path, body: params, retry: 'idempotency-key' }, options);
  }
}

/** POST /v1/images: synchronous; the answer is the finished generation. */
export class Images extends Creator<'image', ImageCreateParams, Generation> {
  protected readonly path = '/v1/images';
}
/** POST /v1/videos: asynchronous (202); follow it with `generations.wait`. */
export class Videos extends Creator<'video', VideoCreateParams, VideoGeneration> {
  protected readonly path = '/v1/videos';
}
/** POST /v1/voice: synchronous text-to-speech. */
export class Voice extends Creator<'voice', VoiceCreateParams, Generation> {
  protected readonly path = '/v1/voice';
}
/** POST /v1/music: asynchronous (202). */
export class Music extends Creator<'music', MusicCreateParams, Generation> {
  protected readonly path = '/v1/music';
}
/** POST /v1/avatars: asynchronous (202) talking avatars. */
export class Avatars extends Creator<'avatar', AvatarCreateParams, Generation> {
  protected readonly path = '/v1/avatars';
}
/** POST /v1/three-d: asynchronous (202); a GLB mesh and a thumbnail. */
export class ThreeD extends Creator<'3d', ThreeDCreateParams, Generation> {
  protected readonly path = '/v1/three-d';
}
/** POST /v1/upscale: asynchronous (202); JPEG of input size × scale. */
export class Upscale extends Creator<'upscale', UpscaleCreateParams, Generation> {
  protected readonly path = '/v1/upscale';
}
