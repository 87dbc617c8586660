import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';
import { Prompt } from './generation-schema.js';

export const createMusic = modalityRoute({
  modality: 'music',
  path: '/v1/music',
  operationId: 'createMusic',
  summary: 'Generate music (asynchronous)',
  description: 'Answers 202 with the queued generation; one audio output of duration_s seconds follows.',
  scope: 'music:write',
  fields: {
    prompt: Prompt,
    duration_s: Type.Optional(Type.Integer({ minimum: 5, maximum: 300, default: 30 })),
    with_vocals: Type.Optional(Type.Boolean({ default: false })),
    lyrics: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  prompt: (b) => b.prompt as string,
});
