import type { Modality } from '../../catalog/index.js';
import { dataUri, nearestAspectRatio } from '../files.js';
import type { UpstreamRequest } from '../types.js';

/**
 * mmgen's request fields as a Replicate prediction's `input`, as data: one
 * mapping per modality in the names most Replicate models use, then small
 * per-model-family adjustments where a family names things its own way.
 * Undefined values are dropped, so a model never receives a field mmgen
 * was not given. Input images travel as data URIs (Replicate accepts them
 * wherever a file URL is expected).
 */
type Input = Record<string, unknown>;

function image(req: UpstreamRequest): string | undefined {
  return req.image ? dataUri(req.image) : undefined;
}

const BY_MODALITY: Record<Exclude<Modality, 'chat'>, (p: Input, req: UpstreamRequest) => Input> = {
  image: (p, req) => ({ prompt: p.prompt, num_outputs: p.num_outputs, seed: p.seed, negative_prompt: p.negative_prompt, width: p.width, height: p.height, image: image(req) }),
  video: (p, req) => ({ prompt: p.prompt, duration: p.duration_s, aspect_ratio: p.aspect_ratio, seed: p.seed, start_image: image(req) }),
  music: (p) => ({ prompt: p.prompt, duration: p.duration_s, lyrics: p.lyrics, seed: p.seed }),
  voice: (p) => ({ text: p.text, voice: p.voice_id, speed: p.speed, language: p.language }),
  avatar: (p, req) => ({ image: image(req), text: p.text, audio: p.audio_url, voice_id: p.voice_id }),
  '3d': (p, req) => ({ prompt: p.prompt, image: image(req), seed: p.seed }),
  upscale: (p, req) => ({ image: image(req), scale: p.scale, face_enhance: p.face_restore }),
};

const FLUX_RATIOS = ['1:1', '16:9', '21:9', '3:2', '2:3', '4:5', '5:4', '3:4', '4:3', '9:16', '9:21'] as const;

/** Families that name things their own way, matched by the model's "owner/name" prefix. */
const BY_FAMILY: Array<[prefix: string, adjust: (input: Input, p: Input, req: UpstreamRequest) => Input]> = [
  [
    'black-forest-labs/flux',
    (input, p) => {
      const { width, height, negative_prompt: _n, ...rest } = input;
      return {
        ...rest,
        ...(typeof width === 'number' && typeof height === 'number' ? { aspect_ratio: nearestAspectRatio(width, height, FLUX_RATIOS) } : {}),
        output_format: 'png',
        ...(p.num_outputs !== undefined ? { num_outputs: p.num_outputs } : {}),
      };
    },
  ],
  ['firtoz/trellis', (input) => ({ images: input.image ? [input.image] : undefined, seed: input.seed, generate_model: true })],
  ['meta/musicgen', (input) => ({ prompt: input.prompt, duration: input.duration, seed: input.seed, output_format: 'mp3' })],
];

export function predictionInput(req: UpstreamRequest): Input {
  if (req.modality === 'chat') throw new Error('chat is not a Replicate modality here');
  let input = BY_MODALITY[req.modality](req.params, req);
  const family = BY_FAMILY.find(([prefix]) => req.upstreamModel.startsWith(prefix));
  if (family) input = family[1](input, req.params, req);
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null));
}

/**
 * Where a prediction is created: official models by name
 * (`POST /v1/models/{owner}/{name}/predictions`), a pinned version
 * ("owner/name:version") through `POST /v1/predictions`.
 */
export function createCall(req: UpstreamRequest): { path: string; json: Record<string, unknown> } {
  const input = predictionInput(req);
  const [model, version] = req.upstreamModel.split(':') as [string, string | undefined];
  if (version) return { path: 'predictions', json: { version, input } };
  const [owner, name] = model.split('/');
  return { path: `models/${encodeURIComponent(owner ?? '')}/${encodeURIComponent(name ?? '')}/predictions`, json: { input } };
}
