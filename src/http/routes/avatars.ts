import { Type } from '@sinclair/typebox';
import { ApiError } from '../../errors.js';
import { modalityRoute } from './generation-route.js';

export const createAvatar = modalityRoute({
  modality: 'avatar',
  path: '/v1/avatars',
  operationId: 'createAvatar',
  summary: 'Talking avatar / lipsync (asynchronous)',
  description:
    'A portrait (upload_id or image_url) speaking `text` (with voice_id), or lip-syncing speech: `audio_url`, or an audio upload as `audio_upload_id`. ' +
    'Answers 202; a video and its thumbnail follow.',
  scope: 'avatars:write',
  image: 'required',
  fields: {
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
    voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    audio_url: Type.Optional(Type.String({ maxLength: 4096, format: 'uri' })),
    audio_upload_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An upload of audio/mpeg or audio/wav (POST /v1/uploads).' })),
  },
  check: (b) => {
    const given = (['text', 'audio_url', 'audio_upload_id'] as const).filter((f) => b[f] !== undefined);
    if (given.length === 0) throw new ApiError('parameter_missing', 'Give `text`, `audio_url` or `audio_upload_id`.', 'text');
    if (given.length > 1) throw new ApiError('parameter_invalid', `Give one of \`text\`, \`audio_url\` and \`audio_upload_id\`, not ${given.join(' and ')}.`, given[1]);
  },
  prompt: (b) => (b.text as string | undefined) ?? null,
});
