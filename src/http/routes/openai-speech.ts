import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { AUDIO_FORMAT_MIME, convertAudio, isAudioFormat, type AudioFormat } from '../../media/index.js';
import { costHeaders } from '../cost-header.js';
import { defineRoute } from '../route.js';
import { acceptGeneration, finishGenerationRequest } from './generation-route.js';
import { Simulate, StringEnum } from '../../generations/modalities/fields.js';
import { GENERATION_ID_HEADER } from './openai-images.js';

/**
 * POST /v1/audio/speech: the voice generation in OpenAI's shape (contract §12; decisions in
 * docs/contract-addenda.md, "Compatible paths"). input → text, voice → voice_id, held to the model like
 * POST /v1/voice; the answer is the audio itself, re-encoded by ffmpeg when the provider made another format.
 */

const OPENAI_NAME: Record<string, string> = { text: 'input', voice_id: 'voice' };

const Body = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200, description: 'An mmgen slug, mdl_ id, or an alias such as a provider\'s model id.' }),
    input: Type.String({ minLength: 1, maxLength: 5000, description: 'The text; charged per 1,000 characters.' }),
    voice: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'voice_id: one of the model\'s voices (GET /v1/models/{model}).' })),
    response_format: Type.Optional(StringEnum(['mp3', 'wav', 'opus', 'aac', 'flac', 'pcm'], { default: 'mp3', description: 'pcm: raw 24 kHz 16-bit little-endian mono.' })),
    speed: Type.Optional(Type.Number({ minimum: 0.25, maximum: 4, description: 'Held to the model\'s range.' })),
    instructions: Type.Optional(Type.String({ maxLength: 4096, description: "How to speak it, for the models that take it (gpt-4o-mini-tts); another model's answer is 400 naming it. Empty says nothing." })),
    stream_format: Type.Optional(StringEnum(['audio', 'sse'], { description: 'Only "audio".' })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295 })),
    cache: Type.Optional(Type.Boolean()),
    simulate: Type.Optional(Simulate),
  },
  { additionalProperties: false },
);
type SpeechAsk = Static<typeof Body>;

export const openAiSpeech = defineRoute({
  method: 'POST',
  path: '/v1/audio/speech',
  operationId: 'createOpenAiSpeech',
  summary: 'Text to speech in the OpenAI shape: the audio bytes',
  description: `The voice generation of POST /v1/voice in OpenAI's shape. The answer is the audio file; the generation id is in the ${GENERATION_ID_HEADER} header.`,
  tag: 'Compatible',
  compatible: { api: 'openai', reference: 'https://platform.openai.com/docs/api-reference/audio/createSpeech' },
  auth: { role: 'developer', scope: 'voice:write', consumesCredits: true, cacheable: true },
  errors: [402, 404, 410, 451, 502, 503],
  schema: {
    body: Body,
    response: { 200: Type.String({ description: 'The audio, as audio/mpeg, audio/wav, audio/ogg (Opus), audio/aac, audio/flac or audio/pcm', 'x-raw': true } as never) },
  },
  handler: async ({ body, deps, principal, request, reply }) => {
    const b: SpeechAsk = body;
    if (b.stream_format === 'sse') throw new ApiError('parameter_invalid', 'stream_format "sse" is not served; the answer is the audio file ("audio").', 'stream_format');
    const mm: Record<string, unknown> = { model: b.model, text: b.input };
    if (b.voice !== undefined) mm.voice_id = b.voice;
    for (const k of ['speed', 'seed', 'cache', 'simulate'] as const) if (b[k] !== undefined) mm[k] = b[k];
    // Held to the model like any voice field: a model that takes none answers 400 naming it (an empty one says nothing).
    if (b.instructions) mm.instructions = b.instructions;
    const { g, resume } = await acceptGeneration({ deps, principal, request, reply }, {
      kind: 'generation', modality: 'voice', body: mm, sent: new Set(Object.keys(mm)), claim: request.idempotency ?? undefined, paramName: (f) => OPENAI_NAME[f] ?? f,
    });
    const { row, outputs } = await finishGenerationRequest(deps, principal, g, resume);
    const audio = outputs.find((o) => o.type === 'audio');
    if (!audio) throw new Error(`voice generation ${row.id} has no audio output`);
    if (audio.moderation_status === 'pending') throw new ApiError('moderation_pending', `The audio of ${row.id} awaits its moderation verdict; read GET /v1/generations/${row.id} later.`);
    if (audio.moderation_status === 'blocked') throw new ApiError('content_blocked', `The audio of ${row.id} was blocked by moderation.`);
    const blob = await deps.blobs.get(audio.blob_key);
    if (!blob) throw new Error(`output ${audio.id} has no stored file`);
    const format: AudioFormat = b.response_format ?? 'mp3';
    const bytes = isAudioFormat(audio.mime, format) ? blob.bytes : await convertAudio(blob.bytes, format);
    void reply.status(200).header('content-type', AUDIO_FORMAT_MIME[format]).header(GENERATION_ID_HEADER, row.id).headers(costHeaders(row)).send(bytes);
    return 'sent';
  },
});
