import type { UpstreamRequest } from '../types.js';
import type { UpstreamRecords } from '../upstream-record.js';
import { documentedBody, recordForRequest, upstreamInput, withModelDefaults } from '../upstream-input.js';

/**
 * mmgen's voice and music requests as ElevenLabs requests, from each model's
 * record (src/providers/elevenlabs/models/, docs/upstream-models.md).
 * - voice: `voice_id` is the URL's path parameter (the record's default: the
 *   documented premade voice "George"); `speed` goes in `voice_settings`
 *   (0.7–1.2); `seed` passes; `language` is sent as `language_code` (its
 *   primary subtag, `en-GB` → `en`) only to the models whose record has one
 *   (ElevenLabs refuses it elsewhere).
 * - music: `duration_s` becomes `music_length_ms`; `with_vocals: false`
 *   asks for an instrumental. `lyrics` is not taken: the compose endpoint
 *   takes lyrics only inside a composition plan, and a prompt with lyrics
 *   appended could pass its 2,000 characters.
 * Audio comes back as MP3 (44.1 kHz, 128 kb/s). Every body is checked
 * against the model's record before it is sent.
 */
const NAME = 'elevenlabs';
export const OUTPUT_FORMAT = 'mp3_44100_128';

export function speechPath(records: UpstreamRecords, req: UpstreamRequest): string {
  const record = recordForRequest(records, req);
  const voice = upstreamInput(record, withModelDefaults(record, req.params), undefined, 'path').voice_id;
  if (typeof voice !== 'string') throw new Error(`elevenlabs/models/${record.upstream}: no voice_id for the path`);
  return `v1/text-to-speech/${encodeURIComponent(voice)}`;
}

export function speechRequest(records: UpstreamRecords, req: UpstreamRequest): Record<string, unknown> {
  const record = recordForRequest(records, req);
  return documentedBody(NAME, record, { ...upstreamInput(record, withModelDefaults(record, req.params)), model_id: req.upstreamModel });
}

export function musicRequest(records: UpstreamRecords, req: UpstreamRequest): Record<string, unknown> {
  const record = recordForRequest(records, req);
  return documentedBody(NAME, record, { ...upstreamInput(record, withModelDefaults(record, req.params)), model_id: req.upstreamModel });
}
