import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields } from './fields.js';

export const VoiceRequest = Type.Object(
  {
    ...commonFields,
    text: Type.String({ minLength: 1, maxLength: 5000 }),
    voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 35 })),
    speed: Type.Optional(Type.Number({ minimum: 0.5, maximum: 2 })),
    instructions: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: "How to speak it (tone, pace, accent), for the models that take it (their parameters list it)." }),
    ),
  },
  { additionalProperties: false },
);
export type VoiceRequest = Static<typeof VoiceRequest>;

export const voice: ModalityDeclaration<typeof VoiceRequest> = {
  request: { schema: VoiceRequest, scope: 'voice:write', prompt: { field: 'text', of: (b) => b.text } },
  sync: true,
  requestedUnits: (p) => new Decimal((p.text as string).length).div(1000),
  outputs: {},
};
