import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { speaksFirst, withMargin, type CatalogModel, type Modality, type ModelRoute } from '../catalog/index.js';
import type { Mode } from '../domain/access.js';
import { MODALITY_RULES, type ProducedWork } from '../generations/modalities.js';
import type { RouteDemand } from '../providers/parameters.js';
import { routePriceData, routePrices, type RoutePrice } from '../providers/route-price.js';
import type { RecordFinder } from '../providers/upstream-models.js';
import type { GenerationRow } from '../store/generations.js';
import { costInCredits } from './credits.js';
import { canonicalJson } from '../canonical-json.js';

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
  return costInCredits(unitPrice(model, price), units.mul(price.unit_multiplier));
}

/** A route's price per unit (per output, per started megapixel where it says so), with the model's margin. */
function unitPrice(model: CatalogModel, price: RoutePrice): string {
  return withMargin(price.unit_cost_usd ?? model.unit_cost_usd, model.margin_percent);
}

/** The routes that may serve the request (every route, if none takes it: the registry refuses it before this matters). */
function reachable(prices: RoutePrice[]): RoutePrice[] {
  const taking = prices.filter((p) => p.takes);
  return taking.length > 0 ? taking : prices;
}

const sameRoute = (a: ModelRoute, b: ModelRoute) => a.provider === b.provider && a.upstream === b.upstream;

/**
 * A request's price on this installation, and how it was made: the route that prices it (the dearest that may serve
 * it, as below), that route's price per unit with the operator's margin, the units priced (the outputs, for a route
 * priced per output) and the credits, an avatar's speech step included. The reservation is its credits; the
 * published prices of GET /v1/models are this for representative requests (generations/published-prices.ts).
 */
export interface PricedRequest {
  credits: number;
  price: RoutePrice;
  /** US dollars per unit (per output with `price.per_output`; per started megapixel with `price.unit_multiplier`), margin included. */
  unitCostUsd: string;
  /** The units priced: the modality's, or the outputs for a route priced per output (before the megapixel multiplier). */
  units: Decimal;
  /** An avatar's speech step, in credits (0 when none). */
  speechCredits: number;
}

/**
 * The reservation: the request's units on the dearest route it may reach, plus an avatar's speech step. `serving`:
 * the routes this installation would use (the registry's servingRoutes: configured providers that take it, or the
 * route the simulator plays); a route of a provider not configured here can never serve it, so it does not raise
 * the price. Without them (or none of them known to price): every route that takes the request.
 */
export function priceCredits(records: RecordFinder, model: CatalogModel, mode: Mode, demand: RouteDemand, serving?: ServingRoutes): number {
  if (mode === 'test') return 0;
  return priceRequest(records, model, demand, serving).credits;
}

/** A request's live price (priceCredits without the test mode's 0), with the route and unit price that made it. */
export function priceRequest(records: RecordFinder, model: CatalogModel, demand: RouteDemand, serving?: ServingRoutes): PricedRequest {
  const speech = speechPrices(records, model, demand.params, serving);
  const dearest = dearestRoute(records, model, demand, serving);
  const speechCredits = speech ? Math.max(...speech.credits) : 0;
  return { ...dearest, credits: dearest.credits + speechCredits, speechCredits };
}

/** The routes an installation would serve a model's request with (the registry's servingRoutes). */
export type ServingRoutes = (model: CatalogModel, demand: RouteDemand) => readonly ModelRoute[];

function dearestRoute(records: RecordFinder, model: CatalogModel, demand: RouteDemand, serving?: ServingRoutes): Omit<PricedRequest, 'speechCredits'> {
  const work = { units: requestedUnits(model.modality, demand.params), outputs: requestedOutputs(demand.params) };
  const prices = reachable(routePrices(records, model, demand));
  const routes = serving?.(model, demand);
  const here = routes ? prices.filter((p) => routes.some((r) => sameRoute(r, p.route))) : [];
  let best: Omit<PricedRequest, 'speechCredits'> | undefined;
  for (const price of here.length > 0 ? here : prices) {
    const credits = routeCredits(model, price, work);
    // The first of equally dear routes: the catalog's order, the one tried first.
    if (!best || credits > best.credits) {
      best = { credits, price, unitCostUsd: unitPrice(model, price), units: price.per_output ? work.outputs : work.units };
    }
  }
  return best!;
}

/**
 * A model's price version: a digest of everything its prices are made from (its catalog price and margin, its
 * routes and each one's record `price`, its speech step's version). It changes whenever a price of the model may
 * change, and only then: a generation records the version that priced it (generations.price_version), so a later
 * change (an operator's edit, a new record, a route shut down) is told apart from what was charged before it.
 */
export function priceVersion(records: RecordFinder, model: CatalogModel): string {
  const hit = versions.get(model);
  if (hit && hit.records === records.version) return hit.version;
  const version = digestOf(records, model);
  versions.set(model, { records: records.version, version });
  return version;
}

// Per model object (the catalog builds new ones when it changes) and version of the installation's records
// (RecordFinder.version: an installation's own while it has operator records).
const versions = new WeakMap<CatalogModel, { records: object; version: string }>();

function digestOf(records: RecordFinder, model: CatalogModel): string {
  const facts = {
    unit_cost_usd: model.unit_cost_usd,
    margin_percent: model.margin_percent ?? null,
    routes: model.routes.map((r) => ({ provider: r.provider, upstream: r.upstream, price: routePriceData(records, r) })),
    speech: model.speech ? priceVersion(records, model.speech) : null,
  };
  return `pv_${createHash('sha256').update(canonicalJson(facts)).digest('hex').slice(0, 16)}`;
}


/**
 * An avatar's speech step (generations/speech-step.ts): the text on each route of its voice model that may speak
 * it (the request the step sends: the text and voice), part of the avatar's price. Reserved at the dearest; the
 * step's route is not recorded, so the charge is the first route's (the one the step tries first), within the
 * reservation.
 */
function speechPrices(records: RecordFinder, model: CatalogModel, params: Record<string, unknown>, serving?: ServingRoutes): { credits: number[] } | null {
  if (!speaksFirst(model, params)) return null;
  const spoken: Record<string, unknown> = { text: params.text, ...(params.voice_id !== undefined ? { voice_id: params.voice_id } : {}) };
  const demand: RouteDemand = { params: spoken, sent: new Set(Object.keys(spoken)), image: false };
  const work = { units: requestedUnits('voice', spoken), outputs: new Decimal(1) };
  const prices = reachable(routePrices(records, model.speech, demand));
  const routes = serving?.(model.speech, demand);
  const here = routes ? prices.filter((p) => routes.some((r) => sameRoute(r, p.route))) : [];
  return { credits: (here.length > 0 ? here : prices).map((p) => routeCredits(model.speech, p, work)) };
}

function speechCredits(records: RecordFinder, model: CatalogModel, params: Record<string, unknown>): number {
  return speechPrices(records, model, params)?.credits[0] ?? 0;
}

/**
 * The actual cost of a finished attempt: the produced units at the price of the route that served it (the
 * attempt's provider; the simulator plays the first route that takes the request, so that one), capped by the
 * reservation.
 */
export function actualCredits(
  records: RecordFinder,
  model: CatalogModel,
  row: Pick<GenerationRow, 'mode' | 'params' | 'price_credits' | 'provider'>,
  produced: ProducedWork,
  demand: RouteDemand,
): number {
  if (row.mode === 'test') return 0;
  const units = MODALITY_RULES[model.modality].producedUnits?.(produced) ?? requestedUnits(model.modality, row.params);
  const work = { units, outputs: producedOutputs(produced, row.params) };
  const prices = reachable(routePrices(records, model, demand));
  const served = prices.find((p) => p.route.provider === row.provider) ?? prices[0]!;
  return Math.min(row.price_credits, routeCredits(model, served, work) + speechCredits(records, model, row.params));
}
