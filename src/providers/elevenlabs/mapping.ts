import type { UpstreamRequest } from '../types.js';

/**
 * mmgen's voice and music requests as ElevenLabs requests, as data.
 * - voice: `voice_id` picks the voice (default: the documented premade voice
 *   "George"); `speed` goes in `voice_settings`; `language` is sent as
 *   `language_code` only to the models that accept one (ElevenLabs refuses it
 *   elsewhere), as its two-letter ISO 639-1 part.
 * - music: `duration_s` becomes `music_length_ms`; `with_vocals: false`
 *   asks for an instrumental; `lyrics`, which the compose endpoint takes only
 *   inside a composition plan, are given in the prompt.
 * Audio comes back as MP3 (44.1 kHz, 128 kb/s).
 */
export const DEFAULT_VOICE_ID = 'JBFqnCBsd6RMkjVDRZzb';
export const OUTPUT_FORMAT = 'mp3_44100_128';
const LANGUAGE_MODELS = new Set(['eleven_turbo_v2_5', 'eleven_flash_v2_5']);

export function speechPath(req: UpstreamRequest): string {
  const voice = (req.params.voice_id as string | undefined) ?? DEFAULT_VOICE_ID;
  return `v1/text-to-speech/${encodeURIComponent(voice)}`;
}

export function speechRequest(req: UpstreamRequest): Record<string, unknown> {
  const p = req.params;
  const body: Record<string, unknown> = { text: p.text, model_id: req.upstreamModel };
  if (typeof p.language === 'string' && LANGUAGE_MODELS.has(req.upstreamModel)) body.language_code = p.language.slice(0, 2).toLowerCase();
  if (typeof p.speed === 'number') body.voice_settings = { speed: p.speed };
  return body;
}

export function musicRequest(req: UpstreamRequest): Record<string, unknown> {
  const p = req.params;
  const lyrics = typeof p.lyrics === 'string' && p.lyrics ? `\n\nLyrics:\n${p.lyrics}` : '';
  return {
    prompt: `${String(p.prompt ?? '')}${lyrics}`,
    music_length_ms: Number(p.duration_s ?? 30) * 1000,
    model_id: req.upstreamModel,
    force_instrumental: p.with_vocals !== true && !lyrics,
  };
}
