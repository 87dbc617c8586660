import type { Modality } from '../../catalog/index.js';
import { dataUri } from '../files.js';
import type { UpstreamRequest } from '../types.js';

/**
 * mmgen's request fields as a fal endpoint's input, as data: one mapping per
 * modality in the names fal's model endpoints share, then per-family
 * adjustments where an endpoint names things its own way. Undefined values
 * are dropped. Input images travel as data URIs (fal accepts them wherever an
 * `*_url` is expected). The safety checker is always on where an endpoint
 * has one; what it flags is reported as moderation (index.ts).
 */
type Input = Record<string, unknown>;

function image(req: UpstreamRequest): string | undefined {
  return req.image ? dataUri(req.image) : undefined;
}

const BY_MODALITY: Record<Exclude<Modality, 'chat'>, (p: Input, req: UpstreamRequest) => Input> = {
  image: (p, req) => ({
    prompt: p.prompt,
    num_images: p.num_outputs,
    seed: p.seed,
    negative_prompt: p.negative_prompt,
    image_size: typeof p.width === 'number' && typeof p.height === 'number' ? { width: p.width, height: p.height } : undefined,
    image_url: image(req),
    enable_safety_checker: true,
    output_format: 'png',
  }),
  video: (p, req) => ({ prompt: p.prompt, duration: p.duration_s !== undefined ? String(p.duration_s) : undefined, aspect_ratio: p.aspect_ratio, seed: p.seed, image_url: image(req) }),
  voice: (p) => ({ text: p.text, voice: p.voice_id, speed: p.speed, language_code: p.language }),
  music: (p) => ({ prompt: p.prompt, duration: p.duration_s, lyrics: p.lyrics, seed: p.seed }),
  avatar: (p, req) => ({ image_url: image(req), text: p.text, audio_url: p.audio_url, voice: p.voice_id }),
  '3d': (p, req) => ({ prompt: p.prompt, image_url: image(req), seed: p.seed }),
  upscale: (p, req) => ({ image_url: image(req), scale: p.scale, face: p.face_restore }),
};

/** Endpoints that name things their own way, matched by endpoint-id prefix. */
const BY_FAMILY: Array<[prefix: string, adjust: (input: Input) => Input]> = [
  ['fal-ai/hunyuan3d', ({ image_url, ...rest }) => ({ ...rest, input_image_url: image_url })],
  ['fal-ai/hyper3d/rodin', ({ image_url, ...rest }) => ({ ...rest, input_image_urls: image_url ? [image_url] : undefined })],
  ['fal-ai/clarity-upscaler', ({ scale, face: _f, ...rest }) => ({ ...rest, upscale_factor: scale })],
  ['fal-ai/topaz/upscale', ({ scale, face: _f, ...rest }) => ({ ...rest, upscale_factor: scale, face_enhancement: _f })],
  ['fal-ai/stable-audio', ({ duration, ...rest }) => ({ ...rest, seconds_total: duration })],
];

export function endpointInput(req: UpstreamRequest): Input {
  if (req.modality === 'chat') throw new Error('chat is not a fal modality here');
  let input = BY_MODALITY[req.modality](req.params, req);
  const family = BY_FAMILY.find(([prefix]) => req.upstreamModel.startsWith(prefix));
  if (family) input = family[1](input);
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null));
}

/**
 * The queue addresses a request by its app ("owner/alias", with a namespace
 * prefix such as "workflows/" kept), not by the full endpoint path it was
 * submitted to: status, result and cancel live under `{app}/requests/{id}`.
 */
const NAMESPACES = new Set(['workflows', 'comfy']);

export function appIdOf(endpointId: string): string {
  const parts = endpointId.split('/');
  return (NAMESPACES.has(parts[0]!) ? parts.slice(0, 3) : parts.slice(0, 2)).join('/');
}
