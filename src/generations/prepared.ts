import type { CatalogModel, Modality } from '../catalog/index.js';
import type { ImageInput } from '../providers/types.js';
import type { Principal } from '../domain/access.js';

/** A generation ready to be written: model and provider chosen, priced, input stored. */
export interface PreparedGeneration {
  id: string;
  principal: Principal;
  modality: Modality;
  model: string;
  /** The model itself, resolved once when the request was taken (early dispatch builds its upstream request from it). */
  catalogModel: CatalogModel;
  sync: boolean;
  prompt: string | null;
  params: Record<string, unknown>;
  price: number;
  /** The version of the model's prices `price` was made from. */
  priceVersion: string;
  cacheKey: string | null;
  provider: string;
  result: Record<string, unknown> | null;
  comparisonId: string | null;
  /** The input image to store under result.input_blob before the generation is accepted. */
  image?: ImageInput | undefined;
  /** The input audio (an avatar's uploaded speech) to store under result.input_audio_blob. */
  audio?: { bytes: Buffer; mime: string } | undefined;
}
