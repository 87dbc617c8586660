import { Decimal } from 'decimal.js';
import type { Modality } from '../catalog/index.js';
import { ApiError } from '../errors.js';
import { speechDurationS } from '../media/index.js';

/**
 * What differs between the eight modalities, as data: one entry per modality,
 * read by acceptance, pricing, the runner's outputs, comparisons and the
 * generation view. A new modality is an entry here, its request fields
 * (http/routes/<modality>.ts) and its models in the catalog.
 */
export interface ModalityRules {
  /** Answered in the request (200 with the finished generation) rather than queued (202). */
  sync: boolean;
  /** The billable units a request asks for (contract §4): what is reserved. */
  requestedUnits(params: Record<string, unknown>): Decimal;
  /** The units a finished attempt produced, when they differ from those requested; undefined charges what was requested. */
  producedUnits?(produced: ProducedWork): Decimal | undefined;
  /** Where a comparison's one prompt goes in this modality's request. */
  withPrompt(prompt: string, params: Record<string, unknown>): Record<string, unknown>;
  /** What happens to the provider's files before they are stored. */
  outputs: {
    /** Resized to exactly input × scale (the provider's upscale may differ by a few pixels). */
    fitToScale?: boolean;
    /** A poster frame is made from the video when the provider sent none. */
    thumbnailFromVideo?: boolean;
    /** The outputs are one work (a file and its thumbnail): they share one moderation verdict, the strictest. */
    oneWork?: boolean;
  };
  /** The reply (message, usage) is part of the generation's view. */
  replyInView?: boolean;
  /** The provider call may start alongside the reservation (early-dispatch.ts). */
  earlyDispatch?: boolean;
}

export interface ProducedWork {
  outputs: Array<{ type: string; duration_s?: string | null }>;
  outputTokens?: number | undefined;
}

/** An audio-driven avatar is reserved at this many seconds, its upper bound. */
export const AVATAR_AUDIO_MAX_S = 60;

const asPrompt = (prompt: string, params: Record<string, unknown>) => ({ prompt, ...params });
const asText = (text: string, params: Record<string, unknown>) => ({ text, ...params });

/** The length of the primary (non-thumbnail) output that has one. */
function producedSeconds(produced: ProducedWork): Decimal | undefined {
  const primary = produced.outputs.find((o) => o.type !== 'thumbnail' && o.duration_s);
  return primary?.duration_s ? new Decimal(primary.duration_s) : undefined;
}

export const MODALITY_RULES: Readonly<Record<Modality, ModalityRules>> = {
  image: {
    sync: true,
    requestedUnits: (p) => new Decimal(p.num_outputs as number),
    producedUnits: (w) => new Decimal(w.outputs.filter((o) => o.type === 'image').length),
    withPrompt: asPrompt,
    outputs: {},
  },
  video: {
    sync: false,
    requestedUnits: (p) => new Decimal(p.duration_s as number),
    producedUnits: producedSeconds,
    withPrompt: asPrompt,
    outputs: { thumbnailFromVideo: true, oneWork: true },
  },
  voice: {
    sync: true,
    requestedUnits: (p) => new Decimal((p.text as string).length).div(1000),
    withPrompt: asText,
    outputs: {},
  },
  music: {
    sync: false,
    requestedUnits: (p) => new Decimal(p.duration_s as number),
    producedUnits: producedSeconds,
    withPrompt: asPrompt,
    outputs: {},
  },
  avatar: {
    sync: false,
    // Speech length when the text is known; an audio-driven avatar is reserved at its upper bound.
    requestedUnits: (p) => (typeof p.text === 'string' ? new Decimal(speechDurationS(p.text)).ceil() : new Decimal(AVATAR_AUDIO_MAX_S)),
    producedUnits: producedSeconds,
    withPrompt: asText,
    outputs: { thumbnailFromVideo: true, oneWork: true },
  },
  chat: {
    sync: true,
    requestedUnits: (p) => new Decimal(p.max_tokens as number),
    // A provider that reports no usage is charged the reservation, never nothing.
    producedUnits: (w) => (w.outputTokens === undefined ? undefined : new Decimal(w.outputTokens)),
    withPrompt: (prompt, params) => ({ messages: [{ role: 'user', content: prompt }], ...params }),
    outputs: {},
    replyInView: true,
    earlyDispatch: true,
  },
  '3d': {
    sync: false,
    requestedUnits: () => new Decimal(1),
    withPrompt: asPrompt,
    outputs: { oneWork: true },
  },
  upscale: {
    sync: false,
    requestedUnits: (p) => new Decimal(p.scale === 4 ? 2 : 1),
    withPrompt: () => {
      throw new ApiError('parameter_invalid', 'An upscale comparison takes no prompt; give params.upload_id or params.image_url.', 'prompt');
    },
    outputs: { fitToScale: true },
  },
};
