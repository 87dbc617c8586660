import type { Catalog } from '../catalog/index.js';
import type { BlobStore } from '../files/types.js';
import { probeImage } from '../media/index.js';
import type { RouteDemand } from '../providers/parameters.js';
import type { UpstreamRequest } from '../providers/types.js';
import type { GenerationRow } from './views.js';

/** The generation's model (catalog) and its stored input image (blobs). */
export interface UpstreamRequestPorts {
  blobs: BlobStore;
  catalog: Catalog;
}

/** The client reference of an attempt, sent with every submission so that a lost answer can be found again. */
export function clientRef(generationId: string, attempt: number): string {
  return `${generationId}#${attempt}`;
}

/** What the provider is asked for an attempt of a generation: its stored params, less `simulate`, which steers instead. */
export function requestFor(
  model: UpstreamRequest['model'],
  g: Pick<GenerationRow, 'id' | 'attempt' | 'modality' | 'params'>,
  upstreamModel: string,
  image?: UpstreamRequest['image'],
): UpstreamRequest {
  const { simulate, ...params } = g.params as Record<string, unknown> & { simulate?: UpstreamRequest['simulate'] };
  return { clientRef: clientRef(g.id, g.attempt), attempt: g.attempt, modality: g.modality, model, upstreamModel, params, image, simulate };
}

/** What the provider is asked for the generation's current attempt, with its stored input image. */
export async function upstreamRequest(deps: UpstreamRequestPorts, g: GenerationRow): Promise<UpstreamRequest> {
  const model = deps.catalog.find(g.model)!;
  let image: UpstreamRequest['image'];
  if (g.result?.input_blob) {
    const blob = await deps.blobs.get(g.result.input_blob);
    if (blob) {
      // The size was checked when the input was accepted; an upscale's output is held to input × scale.
      const size = await probeImage(blob.bytes, { decode: false });
      image = { bytes: blob.bytes, mime: blob.contentType, width: size?.width ?? 0, height: size?.height ?? 0, url: g.result.input_url };
    }
  }
  return requestFor(model, g, upstreamModelFor(model, g.provider), image);
}

/** What a generation's request carries, for choosing the routes that take it (providers/parameters.ts, routeRefusal). */
export function demandOf(g: Pick<GenerationRow, 'params' | 'result'>): RouteDemand {
  const { simulate: _steers, ...params } = g.params as Record<string, unknown>;
  const sent = g.result?.sent_fields;
  const size = g.result?.input_size;
  return {
    params,
    sent: Array.isArray(sent) ? new Set(sent) : null,
    image: typeof g.result?.input_blob === 'string',
    // Kept since prices read it (a generation accepted before has none: its charge is capped by its reservation).
    imageSize: typeof size?.width === 'number' && typeof size.height === 'number' ? { width: size.width, height: size.height } : undefined,
  };
}

/** The model's name on a provider's route (the primary route's name for the simulator). */
export function upstreamModelFor(model: UpstreamRequest['model'], provider: string | null): string {
  return (model.routes.find((r) => r.provider === provider) ?? model.routes[0]).upstream;
}
