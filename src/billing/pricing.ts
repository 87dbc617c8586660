import { Decimal } from 'decimal.js';
import { speaksFirst, withMargin, type CatalogModel, type Modality, type ModelRoute } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import { MODALITY_RULES, type ProducedWork } from '../generations/modalities.js';
import type { RouteDemand } from '../providers/parameters.js';
import { routePrices, type RoutePrice } from '../providers/route-price.js';
import type { GenerationRow } from '../store/generations.js';
import { costInCredits } from './credits.js';

/**
 * What a generation costs: its modality's units (generations/modalities.ts)
 * times the unit price of the route that serves it, in whole credits. A
 * route's price is the catalog's `unit_cost_usd` (catalog/models.ts) unless
 * its record prices the variant it sends (`price`, docs/upstream-models.md:
 * a tier chosen by what is sent, a per-megapixel size, a flat price per
 * output whatever its length, a fallback dearer than the primary route). The reservation is the price of what the request asks
 * for on the dearest route that may serve it (any of them may, by fallback);
 * the charge is the price of what the attempt produced on the route that
 * served it, never more than the reservation.
 */
/** The billable units a request asks for (contract §4), used for the reservation. */
export function requestedUnits(modality: Modality, params: Record<string, unknown>): Decimal {
  return MODALITY_RULES[modality].requestedUnits(params);
}

/** What is priced: the modality's units, and the outputs (for a route priced per output, `per_output`). */
interface Work {
  units: Decimal;
  outputs: Decimal;
}

/** The outputs a request asks for: `num_outputs` where the modality has it, else one (a track, a video). */
function requestedOutputs(params: Record<string, unknown>): Decimal {
  return new Decimal(typeof params.num_outputs === 'number' ? params.num_outputs : 1);
}

/** The outputs an attempt made (thumbnails are part of their output); none counted: those asked for. */
function producedOutputs(produced: ProducedWork, params: Record<string, unknown>): Decimal {
  const made = produced.outputs.filter((o) => o.type !== 'thumbnail').length;
  return made > 0 ? new Decimal(made) : requestedOutputs(params);
}

/**
 * A route's price of a piece of work, in credits, with the operator's margin (the model's own or the global one,
 * catalog/overlay.ts): here, the one place a price is made, so the quote, the reservation and the charge agree.
 */
function routeCredits(model: CatalogModel, price: RoutePrice, work: Work): number {
  const units = price.per_output ? work.outputs : work.units;
  return costInCredits(withMargin(price.unit_cost_usd ?? model.unit_cost_usd, model.margin_percent), units.mul(price.unit_multiplier));
}

/** The routes that may serve the request (every route, if none takes it: the registry refuses it before this matters). */
function reachable(prices: RoutePrice[]): RoutePrice[] {
  const taking = prices.filter((p) => p.takes);
  return taking.length > 0 ? taking : prices;
}

const sameRoute = (a: ModelRoute, b: ModelRoute) => a.provider === b.provider && a.upstream === b.upstream;

/**
 * The reservation: the request's units on the dearest route it may reach, plus an avatar's speech step. `serving`:
 * the routes this installation would use (the registry's servingRoutes: configured providers that take it, or the
 * route the simulator plays); a route of a provider not configured here can never serve it, so it does not raise
 * the price. Without them (or none of them known to price): every route that takes the request.
 */
export function priceCredits(model: CatalogModel, mode: Mode, demand: RouteDemand, serving?: ServingRoutes): number {
  if (mode === 'test') return 0;
  const speech = speechPrices(model, demand.params, serving);
  return dearestCredits(model, demand, serving) + (speech ? Math.max(...speech.credits) : 0);
}

/** The routes an installation would serve a model's request with (the registry's servingRoutes). */
export type ServingRoutes = (model: CatalogModel, demand: RouteDemand) => readonly ModelRoute[];

function dearestCredits(model: CatalogModel, demand: RouteDemand, serving?: ServingRoutes): number {
  const work = { units: requestedUnits(model.modality, demand.params), outputs: requestedOutputs(demand.params) };
  const prices = reachable(routePrices(model, demand));
  const routes = serving?.(model, demand);
  const here = routes ? prices.filter((p) => routes.some((r) => sameRoute(r, p.route))) : [];
  return Math.max(...(here.length > 0 ? here : prices).map((p) => routeCredits(model, p, work)));
}

/**
 * An avatar's speech step (generations/speech-step.ts): the text on each route of its voice model that may speak
 * it (the request the step sends: the text and voice), part of the avatar's price. Reserved at the dearest; the
 * step's route is not recorded, so the charge is the first route's (the one the step tries first), within the
 * reservation.
 */
function speechPrices(model: CatalogModel, params: Record<string, unknown>, serving?: ServingRoutes): { credits: number[] } | null {
  if (!speaksFirst(model, params)) return null;
  const spoken: Record<string, unknown> = { text: params.text, ...(params.voice_id !== undefined ? { voice_id: params.voice_id } : {}) };
  const demand: RouteDemand = { params: spoken, sent: new Set(Object.keys(spoken)), image: false };
  const work = { units: requestedUnits('voice', spoken), outputs: new Decimal(1) };
  const prices = reachable(routePrices(model.speech, demand));
  const routes = serving?.(model.speech, demand);
  const here = routes ? prices.filter((p) => routes.some((r) => sameRoute(r, p.route))) : [];
  return { credits: (here.length > 0 ? here : prices).map((p) => routeCredits(model.speech, p, work)) };
}

function speechCredits(model: CatalogModel, params: Record<string, unknown>): number {
  return speechPrices(model, params)?.credits[0] ?? 0;
}

/**
 * The actual cost of a finished attempt: the produced units at the price of the route that served it (the
 * attempt's provider; the simulator plays the first route that takes the request, so that one), capped by the
 * reservation.
 */
export function actualCredits(
  model: CatalogModel,
  row: Pick<GenerationRow, 'mode' | 'params' | 'price_credits' | 'provider'>,
  produced: ProducedWork,
  demand: RouteDemand,
): number {
  if (row.mode === 'test') return 0;
  const units = MODALITY_RULES[model.modality].producedUnits?.(produced) ?? requestedUnits(model.modality, row.params);
  const work = { units, outputs: producedOutputs(produced, row.params) };
  const prices = reachable(routePrices(model, demand));
  const served = prices.find((p) => p.route.provider === row.provider) ?? prices[0]!;
  return Math.min(row.price_credits, routeCredits(model, served, work) + speechCredits(model, row.params));
}
