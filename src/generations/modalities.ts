import type { Modality } from '../catalog/index.js';
import type { ModalityDeclaration } from './modalities/declaration.js';
import { avatar } from './modalities/avatar.js';
import { chat } from './modalities/chat.js';
import { image } from './modalities/image.js';
import { music } from './modalities/music.js';
import { threeD } from './modalities/three-d.js';
import { upscale } from './modalities/upscale.js';
import { video } from './modalities/video.js';
import { voice } from './modalities/voice.js';

export type { ModalityDeclaration, ProducedWork } from './modalities/declaration.js';

/**
 * What differs between the eight modalities, as data: each is declared in one module (modalities/<modality>.ts:
 * its request schema and type, its prompt, image rule, cross-field check and scope, and how it is priced, run and
 * shown). Exhaustive by type: a modality of the catalog without its declaration does not compile. Read by
 * acceptance, pricing, the runner's outputs, comparisons, the generation view and the HTTP routes.
 */
export const MODALITY_RULES: Readonly<Record<Modality, ModalityDeclaration>> = {
  image,
  video,
  voice,
  music,
  avatar,
  chat,
  '3d': threeD,
  upscale,
};
