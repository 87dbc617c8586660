import { randomUUID } from 'node:crypto';
import { FakeServer, type FakeRequest, type Reply } from './base.js';
import { recordOf, violations, type Violation } from './schemas.js';
import { fakeMp3 } from './media.js';
import { UpstreamListing } from './listing.js';

/**
 * A loopback ElevenLabs API (https://elevenlabs.io/docs/api-reference) at the
 * bare host: text-to-speech (`POST /v1/text-to-speech/{voice_id}`) and music
 * (`POST /v1/music`), both answering with MP3 bytes. It refuses what the
 * real API refuses and mmgen could get wrong: a missing `xi-api-key`, an
 * unknown voice, `language_code` on a model that does not take one (its
 * record has none), a music
 * length outside 3–600 s, an output format other than the MP3 ones.
 * The model list (`GET /v1/models`: a bare array, no lifecycle) is `listing`'s (listing.ts): the
 * text-to-speech models (no music model is known to be listed there).
 */
function detail(status: number, s: string, message: string): Reply {
  return { status, body: { detail: { status: s, message } } };
}

export class ElevenLabsFake extends FakeServer {
  constructor(opts: { key?: string } = {}) {
    super(opts.key ?? 'el-fake-key');
  }

  get baseUrl(): string {
    return this.url;
  }

  /** What `GET /v1/models` lists. */
  readonly listing = new UpstreamListing('elevenlabs', (r) => r.call.operation === 'text-to-speech');

  /** The requests refused for breaking their model's documented schema, with why. */
  readonly refused: Array<{ model: string; body: unknown; violations: Violation[] }> = [];

  /** As ElevenLabs does: an unknown model_id is a 400, a body outside the model's documented request a 422 (FastAPI-style detail). */
  private checkModel(b: Record<string, unknown> | undefined): Reply | null {
    if (!b || typeof b.model_id !== 'string') return null;
    const record = recordOf('elevenlabs', b.model_id);
    if (!record) return detail(400, 'model_not_found', `A model with model ID ${b.model_id} does not exist.`);
    if (b.language_code !== undefined && !('language_code' in record.input.properties)) {
      this.refused.push({ model: b.model_id, body: b, violations: [{ field: 'language_code', message: 'not supported by this model', keyword: 'additionalProperties' }] });
      return detail(400, 'unsupported_language', `Model '${b.model_id}' does not support language_code.`);
    }
    const bad = violations(record, b);
    if (bad.length === 0) return null;
    this.refused.push({ model: b.model_id, body: b, violations: bad });
    return { status: 422, body: { detail: bad.map((v) => ({ loc: ['body', ...(v.field ? v.field.split('.') : [])], msg: v.message, type: `value_error.${v.keyword}` })) } };
  }

  protected async route(req: FakeRequest): Promise<Reply> {
    const headers = { 'request-id': randomUUID().replace(/-/g, '') };
    if (req.headers['xi-api-key'] !== this.key) return { ...detail(401, 'invalid_api_key', 'Invalid API key'), headers };
    if (req.method === 'GET' && req.path === '/v1/models') {
      const models = this.listing.all().map((m) => ({ model_id: m.id, name: m.id, can_do_text_to_speech: true, can_do_voice_conversion: false, languages: [] }));
      return { status: 200, headers, body: models };
    }
    const format = req.query.get('output_format') ?? 'mp3_44100_128';
    if (!format.startsWith('mp3_')) return { ...detail(400, 'invalid_output_format', 'The fake only answers MP3.'), headers };
    const b = req.json as Record<string, unknown> | undefined;
    const tts = /^\/v1\/text-to-speech\/([^/]+)$/.exec(req.path);
    const refusal = req.method === 'POST' && (tts || req.path === '/v1/music') ? this.checkModel(b) : null;
    if (refusal) return { ...refusal, headers };
    if (req.method === 'POST' && tts) {
      if (!/^[A-Za-z0-9]{20}$/.test(tts[1]!)) return { ...detail(404, 'voice_not_found', `A voice with the voice_id ${tts[1]} was not found.`), headers };
      if (!b || typeof b.text !== 'string' || !b.text) return { status: 422, headers, body: { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'value_error.missing' }] } };
      return { status: 200, headers: { ...headers, 'content-type': 'audio/mpeg' }, body: await fakeMp3({ text: b.text }) };
    }
    if (req.method === 'POST' && req.path === '/v1/music') {
      if (!b || typeof b.prompt !== 'string') return { status: 422, headers, body: { detail: [{ loc: ['body', 'prompt'], msg: 'field required', type: 'value_error.missing' }] } };
      const ms = Number(b.music_length_ms ?? 30_000);
      if (!(ms >= 3000 && ms <= 600_000)) return { ...detail(422, 'invalid_music_length', 'music_length_ms must be between 3000 and 600000'), headers };
      if (/copyrighted/i.test(b.prompt)) return { ...detail(400, 'bad_prompt', 'The prompt names copyrighted material.'), headers };
      return { status: 200, headers: { ...headers, 'content-type': 'audio/mpeg' }, body: await fakeMp3({ prompt: b.prompt, durationS: ms / 1000 }) };
    }
    return { ...detail(404, 'not_found', `No route for ${req.method} ${req.path}`), headers };
  }
}
