import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';
import { Prompt } from './generation-schema.js';

const Side = Type.Optional(Type.Integer({ minimum: 256, maximum: 2048, multipleOf: 8, default: 1024 }));

export const createImage = modalityRoute({
  modality: 'image',
  path: '/v1/images',
  operationId: 'createImage',
  summary: 'Generate images (synchronous)',
  description: 'Text-to-image, or image-to-image with upload_id or image_url. Answers with the finished generation.',
  scope: 'images:write',
  image: 'optional',
  fields: {
    prompt: Prompt,
    negative_prompt: Type.Optional(Type.String({ maxLength: 4000 })),
    num_outputs: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1 })),
    width: Side,
    height: Side,
  },
  prompt: (b) => b.prompt as string,
});
