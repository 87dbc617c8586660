import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { ApiError } from '../../errors.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, imageInputFields, Prompt, StringEnum } from './fields.js';

export const ThreeDRequest = Type.Object(
  {
    ...commonFields,
    ...imageInputFields,
    prompt: Type.Optional(Prompt),
    format: Type.Optional(StringEnum(['glb'], { default: 'glb' })),
  },
  { additionalProperties: false },
);
export type ThreeDRequest = Static<typeof ThreeDRequest>;

export const threeD: ModalityDeclaration<typeof ThreeDRequest> = {
  request: {
    schema: ThreeDRequest,
    scope: 'three-d:write',
    image: 'optional',
    prompt: { field: 'prompt', of: (b) => b.prompt ?? null },
    check: (b) => {
      if (b.prompt === undefined && b.upload_id === undefined && b.image_url === undefined) {
        throw new ApiError('parameter_missing', 'Give a `prompt`, or an input image (upload_id or image_url).', 'prompt');
      }
    },
  },
  sync: false,
  requestedUnits: () => new Decimal(1),
  outputs: { oneWork: true, classified: true },
};
