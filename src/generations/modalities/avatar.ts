import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { ApiError } from '../../errors.js';
import { speechDurationS } from '../../media/index.js';
import type { ModalityDeclaration } from './declaration.js';
import { commonFields, imageInputFields } from './fields.js';
import { producedSeconds } from './units.js';

/** An audio-driven avatar is reserved at this many seconds, its upper bound. */
export const AVATAR_AUDIO_MAX_S = 60;

export const AvatarRequest = Type.Object(
  {
    ...commonFields,
    ...imageInputFields,
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 5000 })),
    voice_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    audio_url: Type.Optional(Type.String({ maxLength: 4096, format: 'uri' })),
    audio_upload_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'An upload of audio/mpeg or audio/wav (POST /v1/uploads).' })),
  },
  { additionalProperties: false },
);
export type AvatarRequest = Static<typeof AvatarRequest>;

export const avatar: ModalityDeclaration<typeof AvatarRequest> = {
  request: {
    schema: AvatarRequest,
    scope: 'avatars:write',
    image: 'required',
    prompt: { field: 'text', of: (b) => b.text ?? null },
    check: (b) => {
      const given = (['text', 'audio_url', 'audio_upload_id'] as const).filter((f) => b[f] !== undefined);
      if (given.length === 0) throw new ApiError('parameter_missing', 'Give `text`, `audio_url` or `audio_upload_id`.', 'text');
      if (given.length > 1) throw new ApiError('parameter_invalid', `Give one of \`text\`, \`audio_url\` and \`audio_upload_id\`, not ${given.join(' and ')}.`, given[1]);
    },
  },
  sync: false,
  // Speech length when the text is known; an audio-driven avatar is reserved at its upper bound.
  requestedUnits: (p) => (typeof p.text === 'string' ? new Decimal(speechDurationS(p.text)).ceil() : new Decimal(AVATAR_AUDIO_MAX_S)),
  producedUnits: producedSeconds,
  outputs: { thumbnailFromVideo: true, oneWork: true, classified: true },
};
