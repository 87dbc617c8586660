import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, imageInputFields, Prompt } from './fields.js';

const Side = Type.Optional(Type.Integer({ minimum: 256, maximum: 2048, multipleOf: 8, default: 1024 }));

export const ImageRequest = Type.Object(
  {
    ...commonFields,
    ...imageInputFields,
    prompt: Prompt,
    negative_prompt: Type.Optional(Type.String({ maxLength: 4000 })),
    num_outputs: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1 })),
    width: Side,
    height: Side,
  },
  { additionalProperties: false },
);
export type ImageRequest = Static<typeof ImageRequest>;

export const image: ModalityDeclaration<typeof ImageRequest> = {
  request: { schema: ImageRequest, scope: 'images:write', image: 'optional', prompt: { field: 'prompt', of: (b) => b.prompt } },
  sync: true,
  requestedUnits: (p) => new Decimal(p.num_outputs as number),
  producedUnits: (w) => new Decimal(w.outputs.filter((o) => o.type === 'image').length),
  outputs: { classified: true },
};
