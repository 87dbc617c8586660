import type { Modality } from '../api/types.js';
import { PALETTE, type PaletteColor } from './palette.js';

/**
 * How the dashboard shows a modality: its label and colour. What it is (its endpoint, sync or not, prompt field,
 * image rule) the server says in its OpenAPI document (ApiSpec.modality, from `x-mmgen-modality`).
 */
export interface ModalityInfo {
  id: Modality;
  label: string;
  /** Its glyph takes `color.light` in both schemes (white letters on it); its chart series the scheme's own. */
  color: PaletteColor;
}

export const MODALITY_INFO: ModalityInfo[] = [
  { id: 'image', label: 'Image', color: PALETTE[0] },
  { id: 'video', label: 'Video', color: PALETTE[1] },
  { id: 'voice', label: 'Voice', color: PALETTE[2] },
  { id: 'music', label: 'Music', color: PALETTE[3] },
  { id: 'avatar', label: 'Avatar', color: PALETTE[4] },
  { id: 'chat', label: 'Chat', color: PALETTE[5] },
  { id: '3d', label: '3D', color: PALETTE[6] },
  { id: 'upscale', label: 'Upscale', color: PALETTE[7] },
];

export function modalityInfo(id: string): ModalityInfo {
  return MODALITY_INFO.find((m) => m.id === id) ?? MODALITY_INFO[0]!;
}
