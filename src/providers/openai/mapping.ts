import type { UpstreamRequest } from '../types.js';

/**
 * How mmgen's request fields become OpenAI's, as data.
 *
 * - chat: messages pass as they are (mmgen's are already OpenAI's shape);
 *   `max_tokens` is sent as `max_completion_tokens` (the name every current
 *   model accepts); the other OpenAI sampling fields pass through.
 * - images: OpenAI takes a fixed set of sizes per model; mmgen's width and
 *   height pick the one closest in shape (then in area). The image as
 *   produced is what is stored and reported. `seed` and `negative_prompt`
 *   have no OpenAI equivalent and are not sent.
 * - speech: `voice_id` is OpenAI's `voice` (default "alloy"), `speed` passes;
 *   `language` is not sent (OpenAI detects it from the text).
 */

const CHAT_PASSTHROUGH = ['temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'user'] as const;

export function chatRequest(req: UpstreamRequest, stream: boolean): Record<string, unknown> {
  const p = req.params;
  const body: Record<string, unknown> = {
    model: req.upstreamModel,
    messages: p.messages,
    max_completion_tokens: p.max_tokens,
  };
  for (const k of CHAT_PASSTHROUGH) if (p[k] !== undefined && p[k] !== null) body[k] = p[k];
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

/** The sizes each image model accepts; a model not listed gets the requested size as it is. */
export const IMAGE_SIZES: Record<string, readonly string[]> = {
  'gpt-image-1': ['1024x1024', '1536x1024', '1024x1536'],
  'gpt-image-1-mini': ['1024x1024', '1536x1024', '1024x1536'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
};

export function imageSize(model: string, width: number | undefined, height: number | undefined): string | undefined {
  if (width === undefined || height === undefined) return undefined;
  const sizes = IMAGE_SIZES[model];
  if (!sizes) return `${width}x${height}`;
  const score = (s: string) => {
    const [w, h] = s.split('x').map(Number) as [number, number];
    return [Math.abs(Math.log(w / h) - Math.log(width / height)), Math.abs(Math.log((w * h) / (width * height)))] as const;
  };
  return [...sizes].sort((a, b) => {
    const [ra, aa] = score(a);
    const [rb, ab] = score(b);
    return ra - rb || aa - ab;
  })[0];
}

export const DEFAULT_VOICE = 'alloy';

export function speechRequest(req: UpstreamRequest): Record<string, unknown> {
  const p = req.params;
  return {
    model: req.upstreamModel,
    input: p.text,
    voice: p.voice_id ?? DEFAULT_VOICE,
    response_format: 'mp3',
    ...(p.speed !== undefined ? { speed: p.speed } : {}),
  };
}
