import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';

export const createUpscale = modalityRoute({
  modality: 'upscale',
  path: '/v1/upscale',
  operationId: 'createUpscale',
  summary: 'Upscale an image 2x or 4x (asynchronous)',
  description: 'Answers 202; a JPEG of exactly the input size × scale follows.',
  scope: 'upscale:write',
  image: 'required',
  fields: {
    scale: Type.Optional(Type.Integer({ enum: [2, 4], default: 2 })),
    face_restore: Type.Optional(Type.Boolean({ default: false })),
  },
  prompt: () => null,
});
