import { Decimal } from 'decimal.js';
import type { CatalogModel, Modality } from '../../catalog/index.js';
import { extensionForMime, speechDurationS } from '../../media/index.js';
import type { FileLinks } from '../../files/links.js';
import { costInCredits } from '../credits.js';
import type { Mode } from '../access.js';
import type { GenerationRow, GenerationStatus, OutputRow } from '../../store/generations.js';

export type { GenerationRow, GenerationStatus, OutputRow } from '../../store/generations.js';
export type { AttemptEnd, Finishing } from '../../store/finishing.js';

/**
 * Generation glossary
 * - generation: one request for one model: its state, money and outputs.
 *   queued → running → succeeded | failed | canceled (the last three are terminal).
 * - sync / async: images, voice and chat answer with the finished generation;
 *   the others answer 202 and finish in a worker. Both run the same runner.
 * - attempt: the first submission is attempt 1; each retry of a failed
 *   generation is the next. Each attempt reserves the price again and settles
 *   once, so `reserved = charged + refunded` on every terminal generation.
 * - price: the reservation of one attempt, from the catalog and the request's
 *   units; the charge is the actual cost, never above it.
 * - output: one produced file, stored in the blob store and served by signed URL.
 */
export const TERMINAL = ['succeeded', 'failed', 'canceled'] as const;
export const SYNC_MODALITIES: readonly Modality[] = ['image', 'voice', 'chat'];

export function isTerminal(status: GenerationStatus): boolean {
  return (TERMINAL as readonly string[]).includes(status);
}

/** The billable units a request asks for (contract §4), used for the reservation. */
export function requestedUnits(modality: Modality, params: Record<string, unknown>): Decimal {
  switch (modality) {
    case 'image':
      return new Decimal(params.num_outputs as number);
    case 'video':
    case 'music':
      return new Decimal(params.duration_s as number);
    case 'avatar':
      // Speech length when the text is known; an audio-driven avatar is reserved at its upper bound.
      return typeof params.text === 'string' ? new Decimal(speechDurationS(params.text)).ceil() : new Decimal(AVATAR_AUDIO_MAX_S);
    case 'voice':
      return new Decimal((params.text as string).length).div(1000);
    case 'chat':
      return new Decimal(params.max_tokens as number);
    case '3d':
      return new Decimal(1);
    case 'upscale':
      return new Decimal(params.scale === 4 ? 2 : 1);
  }
}

export const AVATAR_AUDIO_MAX_S = 60;

export function priceCredits(model: CatalogModel, mode: Mode, params: Record<string, unknown>): number {
  if (mode === 'test') return 0;
  return costInCredits(model.unit_cost_usd, requestedUnits(model.modality, params));
}

/** The actual cost of a finished attempt: the produced units, capped by the reservation. */
export function actualCredits(
  model: CatalogModel,
  row: Pick<GenerationRow, 'mode' | 'params' | 'price_credits'>,
  produced: { outputs: Array<{ type: string; duration_s?: string | null }>; outputTokens?: number | undefined },
): number {
  if (row.mode === 'test') return 0;
  let units: Decimal;
  switch (model.modality) {
    case 'chat':
      // A provider that reports no usage is charged the reservation, never nothing.
      units = produced.outputTokens === undefined ? requestedUnits('chat', row.params) : new Decimal(produced.outputTokens);
      break;
    case 'image':
      units = new Decimal(produced.outputs.filter((o) => o.type === 'image').length);
      break;
    case 'video':
    case 'music':
    case 'avatar': {
      const primary = produced.outputs.find((o) => o.type !== 'thumbnail' && o.duration_s);
      units = primary?.duration_s ? new Decimal(primary.duration_s) : requestedUnits(model.modality, row.params);
      break;
    }
    default:
      units = requestedUnits(model.modality, row.params);
  }
  return Math.min(row.price_credits, costInCredits(model.unit_cost_usd, units));
}

export interface OutputView {
  id: string;
  type: string;
  mime: string;
  width: number | null;
  height: number | null;
  duration_s: string | null;
  url: string;
  moderation_status: string;
}

export function outputFileName(o: Pick<OutputRow, 'id' | 'mime'>): string {
  return `${o.id}.${extensionForMime(o.mime) ?? 'bin'}`;
}

export async function toOutputView(o: OutputRow, links: FileLinks): Promise<OutputView> {
  return {
    id: o.id,
    type: o.type,
    mime: o.mime,
    width: o.width,
    height: o.height,
    duration_s: o.duration_s,
    url: await links.output({ fileName: outputFileName(o), blobKey: o.blob_key, mime: o.mime }),
    moderation_status: o.moderation_status,
  };
}

export async function toGenerationView(g: GenerationRow, outputs: OutputRow[], links: FileLinks): Promise<Record<string, unknown>> {
  const view: Record<string, unknown> = {
    id: g.id,
    object: 'generation',
    status: g.status,
    modality: g.modality,
    model: g.model,
    prompt: g.prompt,
    params: g.params,
    reserved_credits: g.reserved_credits,
    charged_credits: g.charged_credits,
    refunded_credits: g.refunded_credits,
    cache_hit: g.cache_hit,
    outputs: await Promise.all(outputs.sort((a, b) => a.position - b.position).map((o) => toOutputView(o, links))),
    error: g.error,
    comparison_id: g.comparison_id,
    livemode: g.mode === 'live',
    created_at: g.created_at.toISOString(),
    completed_at: g.completed_at ? g.completed_at.toISOString() : null,
  };
  if (g.modality === 'chat') {
    view.message = g.result?.message ?? null;
    view.usage = g.result?.usage ?? null;
  }
  return view;
}
