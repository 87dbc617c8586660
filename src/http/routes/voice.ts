import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';

export const createVoice = modalityRoute({
  modality: 'voice',
  path: '/v1/voice',
  operationId: 'createVoice',
  summary: 'Text to speech (synchronous)',
  description: 'Answers with the finished generation: one audio output. Charged per 1,000 characters.',
  scope: 'voice:write',
  fields: {
    text: Type.String({ minLength: 1, maxLength: 5000 }),
    voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
    speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2 })),
    instructions: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: "How to speak it (tone, pace, accent), for the models that take it (their parameters list it)." }),
    ),
  },
  prompt: (b) => b.text as string,
});
