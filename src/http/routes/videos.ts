import { Type } from '@sinclair/typebox';
import { modalityRoute } from './generation-route.js';
import { Prompt, QueuedVideo } from './generation-schema.js';

export const createVideo = modalityRoute({
  modality: 'video',
  path: '/v1/videos',
  operationId: 'createVideo',
  summary: 'Generate a video (asynchronous)',
  description: 'Answers 202 with the queued generation and its generation_id; the MP4 and a JPEG thumbnail follow.',
  scope: 'videos:write',
  image: 'optional',
  fields: {
    prompt: Prompt,
    duration_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5 })),
    aspect_ratio: Type.Optional(Type.String({ enum: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], default: '16:9' })),
  },
  prompt: (b) => b.prompt as string,
  queuedWithGenerationId: QueuedVideo,
});
