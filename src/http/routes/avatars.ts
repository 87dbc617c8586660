import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { modalityRoute } from './generation-route.js';

export const createAvatar = modalityRoute({
  modality: 'avatar',
  path: '/v1/avatars',
  operationId: 'createAvatar',
  summary: 'Talking avatar / lipsync (asynchronous)',
  description: 'A portrait (upload_id or image_url) speaking `text` (with voice_id) or lip-syncing `audio_url`. Answers 202; a video and its thumbnail follow.',
  scope: 'avatars:write',
  image: 'required',
  fields: {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
    voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    audio_url: Type.Optional(Type.String({ maxLength: 4096, format: 'uri' })),
  },
  check: (b) => {
    if (b.text === undefined && b.audio_url === undefined) throw new ApiError('parameter_missing', 'Give `text` or `audio_url`.', 'text');
    if (b.text !== undefined && b.audio_url !== undefined) throw new ApiError('parameter_invalid', 'Give either `text` or `audio_url`, not both.', 'audio_url');
  },
  prompt: (b) => (b.text as string | undefined) ?? null,
});
