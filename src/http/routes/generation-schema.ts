import { Type, type TProperties } from '@sinclair/typebox';
import { MODALITIES } from '../../catalog/index.js';
import { Nullable, Timestamp } from '../schemas.js';

/** The Generation resource (service spec §2, contract §5). */
export const GenerationOutput = Type.Object(
  {
    id: Type.String({ description: 'out_…' }),
    type: Type.String({ enum: ['image', 'video', 'audio', 'thumbnail', 'mesh'] }),
    mime: Type.String(),
    width: Nullable(Type.Integer()),
    height: Nullable(Type.Integer()),
    duration_s: Nullable(Type.String({ description: 'Seconds as a decimal string, e.g. "5" or "12.48".' })),
    url: Type.String({
      format: 'uri',
      description: "Signed URL, valid 1 hour; reading the generation again signs a fresh one. Once the organization's `file_days` has removed the file (`files_expired_at`), it answers 410 `file_expired`.",
    }),
    moderation_status: Type.String({ enum: ['pending', 'approved', 'flagged', 'blocked'] }),
  },
  { title: 'GenerationOutput' },
);

const generationFields = {
  id: Type.String({ description: 'gen_…' }),
  object: Type.Literal('generation'),
  status: Type.String({ enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] }),
  modality: Type.String({ enum: [...MODALITIES] }),
  model: Type.String(),
  prompt: Nullable(Type.String()),
  params: Type.Object({}, { additionalProperties: true }),
  reserved_credits: Type.Integer(),
  charged_credits: Type.Integer(),
  refunded_credits: Type.Integer(),
  price_version: Nullable(Type.String({ description: "The version of the model's prices that priced it (GET /v1/models pricing.version when it was reserved, or charged); null for generations from before versions were kept." })),
  cache_hit: Type.Boolean(),
  outputs: Type.Array(GenerationOutput),
  error: Nullable(Type.Object({ type: Type.String(), code: Type.String(), message: Type.String() })),
  comparison_id: Nullable(Type.String()),
  livemode: Type.Boolean(),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
  prompt_expired_at: Nullable({
    ...Timestamp,
    description: "When the organization's `generation_days` removed the prompt, the request's text (from `params`) and a chat's `message`; null while they are kept.",
  } as typeof Timestamp),
  files_expired_at: Nullable({
    ...Timestamp,
    description: "When the organization's `file_days` deleted the input and output files; their URLs then answer 410 `file_expired`. null while they are kept.",
  } as typeof Timestamp),
  message: Type.Optional(Nullable(Type.Object({ role: Type.Literal('assistant'), content: Type.String() }))),
  usage: Type.Optional(Nullable(Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }))),
} satisfies TProperties;

export const Generation = Type.Object(generationFields, { title: 'Generation' });
export const QueuedVideo = Type.Object({ ...generationFields, generation_id: Type.String() }, { title: 'VideoGeneration' });
