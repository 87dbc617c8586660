import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, imageInputFields, Prompt, StringEnum } from './fields.js';
import { producedSeconds } from './units.js';

export const VideoRequest = Type.Object(
  {
    ...commonFields,
    ...imageInputFields,
    prompt: Prompt,
    duration_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })),
    aspect_ratio: Type.Optional(StringEnum(['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], { default: '16:9' })),
  },
  { additionalProperties: false },
);
export type VideoRequest = Static<typeof VideoRequest>;

export const video: ModalityDeclaration<typeof VideoRequest> = {
  request: { schema: VideoRequest, scope: 'videos:write', image: 'optional', prompt: { field: 'prompt', of: (b) => b.prompt } },
  sync: false,
  requestedUnits: (p) => new Decimal(p.duration_s as number),
  producedUnits: producedSeconds,
  outputs: { thumbnailFromVideo: true, oneWork: true, classified: true },
};
