import type { CatalogModel, ModelRoute } from '../catalog/index.js';
import { avatarRouteDemand, routeRefusal, type RouteDemand } from './parameters.js';
import { upstreamInput, withModelDefaults } from './upstream-input.js';
import { upstreamModel } from './upstream-models.js';
import type { UpstreamModelRecord } from './upstream-record.js';

/**
 * What each route of a model charges for a request, read from the route's record (`price`,
 * docs/upstream-models.md): the tier is looked up in the body that route would send, so the price follows
 * what is sent (OpenAI's `size` after mmgen's width and height were converted), never a guess at it. The money
 * itself (units × price, whole credits) is billing's (billing/pricing.ts).
 */
export interface RoutePrice {
  route: ModelRoute;
  /** Whether the route takes the request (routeRefusal): only those can serve it, at acceptance or as a fallback. */
  takes: boolean;
  /** US dollars per unit of the modality; null: the catalog's `unit_cost_usd`. */
  unit_cost_usd: string | null;
  /** What the modality's units are multiplied by (started megapixels for a route billed per megapixel), at least 1. */
  unit_multiplier: number;
  /** Priced per output (a track, a song) whatever its length: the units are the outputs, not the modality's. */
  per_output: boolean;
}

const MEGAPIXEL = 1024 * 1024;

/** The record a request is sent by on this route: its own, or the sibling endpoint for what the request carries. */
function recordFor(route: ModelRoute, demand: RouteDemand): UpstreamModelRecord | undefined {
  const own = upstreamModel(route.provider, route.upstream);
  if (!own) return undefined;
  const siblingId = demand.image ? own.call.with_image : own.call.without_image;
  return (siblingId && upstreamModel(route.provider, siblingId)) || own;
}

/**
 * The size of the request's image as accepted, by the names a price uses besides upstream fields: `input_image`,
 * and `output_image`, the input × the request's `scale` (an upscale's output is held to exactly that). Undefined
 * when the image's size is not known.
 */
function imageSizeOf(name: string, demand: RouteDemand): { width: number; height: number } | undefined {
  const input = demand.imageSize;
  if (!input) return undefined;
  if (name === 'input_image') return input;
  if (name !== 'output_image') return undefined;
  // The default scale as acceptance applies it (generations/accept.ts); the params carry it once validated.
  const scale = typeof demand.params.scale === 'number' ? demand.params.scale : 2;
  return { width: Math.round(input.width * scale), height: Math.round(input.height * scale) };
}

function megapixels(size: { width?: unknown; height?: unknown } | undefined): number | undefined {
  return typeof size?.width === 'number' && typeof size.height === 'number' ? (size.width * size.height) / MEGAPIXEL : undefined;
}

function at(body: Record<string, unknown>, path: string): unknown {
  let v: unknown = body;
  for (const key of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** The route's price for a request, from its record's `price` (none: the catalog's price, per unit). */
export function routePrice(model: CatalogModel, route: ModelRoute, demand: RouteDemand): RoutePrice {
  const routeDemand = avatarRouteDemand(model, demand);
  const takes = routeRefusal(route, routeDemand) === null;
  const record = recordFor(route, routeDemand);
  const price = record?.price;
  if (!record || !price) return { route, takes, unit_cost_usd: null, unit_multiplier: 1, per_output: false };
  // The body as the adapter builds it (the input image aside: no tier is decided by its bytes).
  const body = upstreamInput(record, withModelDefaults(record, routeDemand.params));
  const outputMegapixels = megapixels(imageSizeOf('output_image', routeDemand));
  const tier = price.tiers?.find(
    (t) =>
      Object.entries(t.when ?? {}).every(([field, values]) => values.includes(at(body, field))) &&
      (t.output_megapixels_at_most === undefined || (outputMegapixels !== undefined && outputMegapixels <= t.output_megapixels_at_most)),
  );
  let unit_multiplier = 1;
  if (price.per_megapixel_of) {
    const of = price.per_megapixel_of;
    const size = imageSizeOf(of, routeDemand) ?? (at(body, of) as { width?: unknown; height?: unknown } | undefined);
    const mp = megapixels(size);
    if (mp !== undefined) unit_multiplier = Math.max(1, Math.ceil(mp));
  }
  return {
    route,
    takes,
    unit_cost_usd: tier?.unit_cost_usd ?? price.unit_cost_usd ?? null,
    unit_multiplier,
    per_output: price.per_output === true,
  };
}

/** Every route's price for a request, in the catalog's order. */
export function routePrices(model: CatalogModel, demand: RouteDemand): RoutePrice[] {
  return model.routes.map((r) => routePrice(model, r, demand));
}
