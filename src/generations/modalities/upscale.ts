import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, imageInputFields } from './fields.js';

export const UpscaleRequest = Type.Object(
  {
    ...commonFields,
    ...imageInputFields,
    scale: Type.Optional(Type.Integer({ enum: [2, 4], default: 2 })),
    face_restore: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type UpscaleRequest = Static<typeof UpscaleRequest>;

export const upscale: ModalityDeclaration<typeof UpscaleRequest> = {
  request: { schema: UpscaleRequest, scope: 'upscale:write', image: 'required', prompt: null },
  sync: false,
  requestedUnits: (p) => new Decimal(p.scale === 4 ? 2 : 1),
  outputs: { fitToScale: true, classified: true },
};
