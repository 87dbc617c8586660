import type { UpstreamRequest } from '../../providers/types.js';
import type { GenerationRow } from './model.js';

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
