import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { modalityRoute } from './generation-route.js';
import { Prompt } from './generation-schema.js';

export const createThreeD = modalityRoute({
  modality: '3d',
  path: '/v1/three-d',
  operationId: 'createThreeD',
  summary: 'Text-to-3D or image-to-3D (asynchronous)',
  description: 'Answers 202; a GLB mesh (model/gltf-binary) and a thumbnail follow.',
  scope: 'three-d:write',
  image: 'optional',
  fields: {
    prompt: Type.Optional(Prompt),
    format: Type.Optional(Type.String({ enum: ['glb'], default: 'glb' })),
  },
  check: (b) => {
    if (b.prompt === undefined && b.upload_id === undefined && b.image_url === undefined) {
      throw new ApiError('parameter_missing', 'Give a `prompt`, or an input image (upload_id or image_url).', 'prompt');
    }
  },
  prompt: (b) => (b.prompt as string | undefined) ?? null,
});
