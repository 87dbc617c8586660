import type { Modality } from '../api/types.js';

/**
 * How the dashboard shows a modality: its label and colour. What it is (its endpoint, sync or not, prompt field,
 * image rule) the server says in its OpenAPI document (ApiSpec.modality, from `x-mmgen-modality`).
 */
export interface ModalityInfo {
  id: Modality;
  label: string;
  color: string;
}

export const MODALITY_INFO: ModalityInfo[] = [
  { id: 'image', label: 'Image', color: '#6366f1' },
  { id: 'video', label: 'Video', color: '#ec4899' },
  { id: 'voice', label: 'Voice', color: '#14b8a6' },
  { id: 'music', label: 'Music', color: '#f59e0b' },
  { id: 'avatar', label: 'Avatar', color: '#8b5cf6' },
  { id: 'chat', label: 'Chat', color: '#0ea5e9' },
  { id: '3d', label: '3D', color: '#22c55e' },
  { id: 'upscale', label: 'Upscale', color: '#ef4444' },
];

export function modalityInfo(id: string): ModalityInfo {
  return MODALITY_INFO.find((m) => m.id === id) ?? MODALITY_INFO[0]!;
}
