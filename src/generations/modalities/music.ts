import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, Prompt } from './fields.js';
import { producedSeconds } from './units.js';

export const MusicRequest = Type.Object(
  {
    ...commonFields,
    prompt: Prompt,
    duration_s: Type.Optional(Type.Integer({ minimum: 5, maximum: 300, default: 30 })),
    with_vocals: Type.Optional(Type.Boolean({ default: false })),
    lyrics: Type.Optional(Type.String({ maxLength: 5000 })),
  },
  { additionalProperties: false },
);
export type MusicRequest = Static<typeof MusicRequest>;

export const music: ModalityDeclaration<typeof MusicRequest> = {
  request: { schema: MusicRequest, scope: 'music:write', prompt: { field: 'prompt', of: (b) => b.prompt } },
  sync: false,
  requestedUnits: (p) => new Decimal(p.duration_s as number),
  producedUnits: producedSeconds,
  outputs: {},
};
