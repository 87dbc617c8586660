import type { Modality } from '../api/types.js';

export interface ModalityInfo {
  id: Modality;
  label: string;
  /** The endpoint that creates one generation of this modality. */
  path: string;
  /** Synchronous endpoints answer with the finished generation; the others with 202 and a queued one. */
  sync: boolean;
  /** The request field the prompt of a comparison goes to (contract addenda, Comparisons); null: none. */
  promptField: 'prompt' | 'text' | 'messages' | null;
  /** Whether requests take an image input (upload_id / image_url). */
  imageInput: 'none' | 'optional' | 'required';
  color: string;
}

export const MODALITY_INFO: ModalityInfo[] = [
  { id: 'image', label: 'Image', path: '/v1/images', sync: true, promptField: 'prompt', imageInput: 'optional', color: '#6366f1' },
  { id: 'video', label: 'Video', path: '/v1/videos', sync: false, promptField: 'prompt', imageInput: 'optional', color: '#ec4899' },
  { id: 'voice', label: 'Voice', path: '/v1/voice', sync: true, promptField: 'text', imageInput: 'none', color: '#14b8a6' },
  { id: 'music', label: 'Music', path: '/v1/music', sync: false, promptField: 'prompt', imageInput: 'none', color: '#f59e0b' },
  { id: 'avatar', label: 'Avatar', path: '/v1/avatars', sync: false, promptField: 'text', imageInput: 'required', color: '#8b5cf6' },
  { id: 'chat', label: 'Chat', path: '/v1/chat', sync: true, promptField: 'messages', imageInput: 'none', color: '#0ea5e9' },
  { id: '3d', label: '3D', path: '/v1/three-d', sync: false, promptField: 'prompt', imageInput: 'optional', color: '#22c55e' },
  { id: 'upscale', label: 'Upscale', path: '/v1/upscale', sync: false, promptField: null, imageInput: 'required', color: '#ef4444' },
];

export function modalityInfo(id: string): ModalityInfo {
  return MODALITY_INFO.find((m) => m.id === id) ?? MODALITY_INFO[0]!;
}

/**
 * The billing units a request reserves (contract §4), as a fraction; null for
 * avatars, whose reservation depends on the speech length the server computes.
 */
export function billingUnits(modality: Modality, body: Record<string, unknown>, defaults: Record<string, unknown>): { num: number; den: number } | null {
  const v = (k: string) => (body[k] ?? defaults[k]) as number | string | undefined;
  switch (modality) {
    case 'image':
      return { num: Number(v('num_outputs') ?? 1), den: 1 };
    case 'video':
    case 'music':
      return { num: Number(v('duration_s') ?? 0), den: 1 };
    case 'voice':
      // The API counts UTF-16 code units (String.length), as here.
      return { num: String(body.text ?? '').length, den: 1000 };
    case 'chat':
      return { num: Number(v('max_tokens') ?? 1024), den: 1 };
    case '3d':
      return { num: 1, den: 1 };
    case 'upscale':
      return { num: Number(v('scale') ?? 2) === 4 ? 2 : 1, den: 1 };
    case 'avatar':
      return null;
  }
}
