import type { Decimal } from 'decimal.js';
import { speaksFirst, type CatalogModel, type Modality } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import { MODALITIES, type ProducedWork } from '../generations/modalities.js';
import type { GenerationRow } from '../store/generations.js';
import { costInCredits } from './credits.js';

/**
 * What a generation costs: its modality's units (generations/modalities.ts)
 * times its model's unit price (catalog/models.ts), in whole credits. The
 * reservation is the price of what the request asks for; the charge is the
 * price of what the attempt produced, never more than the reservation.
 */
/** The billable units a request asks for (contract §4), used for the reservation. */
export function requestedUnits(modality: Modality, params: Record<string, unknown>): Decimal {
  return MODALITIES[modality].requestedUnits(params);
}

export function priceCredits(model: CatalogModel, mode: Mode, params: Record<string, unknown>): number {
  if (mode === 'test') return 0;
  return costInCredits(model.unit_cost_usd, requestedUnits(model.modality, params)) + speechCredits(model, params);
}

/** An avatar's speech step (generations/speech-step.ts): its voice model's price for the text, part of the avatar's price. */
function speechCredits(model: CatalogModel, params: Record<string, unknown>): number {
  if (!speaksFirst(model, params)) return 0;
  return costInCredits(model.speech.unit_cost_usd, requestedUnits('voice', { text: params.text }));
}

/** The actual cost of a finished attempt: the produced units, capped by the reservation. */
export function actualCredits(
  model: CatalogModel,
  row: Pick<GenerationRow, 'mode' | 'params' | 'price_credits'>,
  produced: ProducedWork,
): number {
  if (row.mode === 'test') return 0;
  const units = MODALITIES[model.modality].producedUnits?.(produced) ?? requestedUnits(model.modality, row.params);
  return Math.min(row.price_credits, costInCredits(model.unit_cost_usd, units) + speechCredits(model, row.params));
}
