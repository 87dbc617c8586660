import type { CatalogModel, ModelRoute } from '../catalog/index.js';
import { avatarRouteDemand, backToMmgen, routeRefusal, type RouteDemand } from './parameters.js';
import { upstreamInput, withModelDefaults } from './upstream-input.js';
import type { RecordFinder } from './upstream-models.js';
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
  /** Billed per started megapixel of the image (`per_megapixel_of`): `unit_multiplier` is those megapixels. */
  per_megapixel: boolean;
  /** The record's tier that priced it (its index in `price.tiers`, in the record the request is sent by); null: none. */
  tier: number | null;
}

const MEGAPIXEL = 1024 * 1024;

/** The record a request is sent by on this route: its own, or the sibling endpoint for what the request carries. */
function recordFor(records: RecordFinder, route: ModelRoute, demand: RouteDemand): UpstreamModelRecord | undefined {
  const own = records(route.provider, route.upstream);
  if (!own) return undefined;
  const siblingId = demand.image ? own.call.with_image : own.call.without_image;
  return (siblingId && records(route.provider, siblingId)) || own;
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

/** Tokens a message's role and framing may add to its text, on any provider's tokenizer (an upper bound). */
const TOKENS_PER_MESSAGE = 8;

/**
 * The prompt's input tokens for a price by prompt length: the provider's count once it reported one, else the most
 * the request can be. Byte-level tokenizers (OpenAI's, Anthropic's) make at most one token of each UTF-8 byte, so
 * the bytes of everything the request sends (messages with text parts, a system prompt, tool definitions: its whole
 * JSON, which only adds) and a few tokens of framing per message bound it: a reservation made on it covers the
 * charge. Counting only string contents let a long prompt sent as parts reserve, and be capped at, the short price.
 */
function promptTokens(demand: RouteDemand): number {
  if (demand.inputTokens !== undefined) return demand.inputTokens;
  const messages = demand.params.messages;
  const count = Array.isArray(messages) ? messages.length : 0;
  return TOKENS_PER_MESSAGE * count + Buffer.byteLength(JSON.stringify(demand.params) ?? '', 'utf8');
}

function at(body: Record<string, unknown>, path: string): unknown {
  let v: unknown = body;
  for (const key of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** The route's price for a request, from its record's `price` (none: the catalog's price, per unit); `records`: the installation's. */
export function routePrice(records: RecordFinder, model: CatalogModel, route: ModelRoute, demand: RouteDemand): RoutePrice {
  const routeDemand = avatarRouteDemand(model, demand);
  const takes = routeRefusal(records, route, routeDemand) === null;
  const record = recordFor(records, route, routeDemand);
  const price = record?.price;
  if (!record || !price) return { route, takes, unit_cost_usd: null, unit_multiplier: 1, per_output: false, per_megapixel: false, tier: null };
  // The body as the adapter builds it (the input image aside: no tier is decided by its bytes).
  const body = upstreamInput(record, withModelDefaults(record, routeDemand.params));
  const outputMegapixels = megapixels(imageSizeOf('output_image', routeDemand));
  const tierIndex = (price.tiers ?? []).findIndex(
    (t) =>
      Object.entries(t.when ?? {}).every(([field, values]) => values.includes(at(body, field))) &&
      (t.output_megapixels_at_most === undefined || (outputMegapixels !== undefined && outputMegapixels <= t.output_megapixels_at_most)) &&
      (t.input_tokens_over === undefined || promptTokens(routeDemand) > t.input_tokens_over),
  );
  const tier = tierIndex >= 0 ? price.tiers![tierIndex] : undefined;
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
    per_megapixel: price.per_megapixel_of !== undefined,
    tier: tier ? tierIndex : null,
  };
}

/** Every route's price for a request, in the catalog's order. */
export function routePrices(records: RecordFinder, model: CatalogModel, demand: RouteDemand): RoutePrice[] {
  return model.routes.map((r) => routePrice(records, model, r, demand));
}

/** The records a route may send a request by: its own, and the sibling endpoints it names (with, without an image). */
function routeRecords(records: RecordFinder, route: ModelRoute): Array<{ record: UpstreamModelRecord; image: boolean | null }> {
  const own = records(route.provider, route.upstream);
  if (!own) return [];
  const sibling = (id: string | undefined, image: boolean) => {
    const r = id === undefined ? undefined : records(route.provider, id);
    return r ? [{ record: r, image }] : [];
  };
  const ownImage = own.call.with_image ? false : own.call.without_image ? true : null;
  return [{ record: own, image: ownImage }, ...sibling(own.call.with_image, true), ...sibling(own.call.without_image, false)];
}

/** What a route's prices are made from (its records' `price`, siblings' included): part of a model's price version. */
export function routePriceData(records: RecordFinder, route: ModelRoute): unknown[] {
  return routeRecords(records, route).map(({ record }) => ({ upstream: record.upstream, price: record.price ?? null }));
}

/**
 * Where the model's primary route says its price was read (`price_source`, docs/upstream-models.md): `source`, the
 * first-party URL, or null; `estimate`, when the record says it is an estimate or names no source at all.
 */
export function priceSourceOf(records: RecordFinder, model: CatalogModel): { source: string | null; estimate: boolean } {
  const said = records(model.routes[0].provider, model.routes[0].upstream)?.price_source;
  // The URL alone: a record may note after it where on the page the price is ("… (model page, per-image table)").
  return { source: said?.match(/^https?:\/\/\S+/)?.[0] ?? null, estimate: said === undefined || said.startsWith('estimate:') };
}

/**
 * A record tier in mmgen's terms: the request fields (and values) that make the route send what the tier's `when`
 * names, read back through the record's `map`; `image` when the tier's record is the route's endpoint for requests
 * with (true) or without (false) an input image; `output_megapixels_at_most` as the tier says. The published prices
 * (generations/published-prices.ts) price each one with the one pricing function and keep those that select their tier.
 */
export interface TierSelector {
  route: ModelRoute;
  /** The record the tier is in (the route's own or a sibling's upstream id). */
  upstream: string;
  tier: number;
  fields: Record<string, unknown>;
  image: boolean | null;
  output_megapixels_at_most?: number;
  /** A tier by prompt length: requests whose prompt is more than this many input tokens. */
  input_tokens_over?: number;
}

/** Every tier of every route of the model, each value of its `when` as the request fields that send it. */
export function tierSelectors(records: RecordFinder, model: CatalogModel): TierSelector[] {
  const out: TierSelector[] = [];
  for (const route of model.routes) {
    for (const { record, image } of routeRecords(records, route)) {
      (record.price?.tiers ?? []).forEach((tier, index) => {
        const choices = Object.entries(tier.when ?? {}).map(([field, values]) => fieldsSending(record, field, values));
        if (choices.some((c) => c === null)) return;
        for (const fields of product(choices as Array<Array<Record<string, unknown>>>)) {
          out.push({
            route, upstream: record.upstream, tier: index, fields, image,
            ...(tier.output_megapixels_at_most === undefined ? {} : { output_megapixels_at_most: tier.output_megapixels_at_most }),
            ...(tier.input_tokens_over === undefined ? {} : { input_tokens_over: tier.input_tokens_over }),
          });
        }
      });
    }
  }
  return out;
}

/**
 * The mmgen fields that send one of `values` as the upstream `field`: one set per value that can be read back; [{}]
 * when the record pins the field (`set`) at one of them (every request sends it); null when no request can.
 */
function fieldsSending(record: UpstreamModelRecord, field: string, values: unknown[]): Array<Record<string, unknown>> | null {
  if (field in record.set) return values.includes(record.set[field]) ? [{}] : null;
  const entry = Object.entries(record.map).find(([, spec]) => (typeof spec === 'string' ? spec : spec.to) === field);
  if (!entry) return null;
  const [key, raw] = entry;
  const spec = typeof raw === 'string' ? { to: raw } : raw;
  const names = key.split(',');
  const sets = values.flatMap((v): Array<Record<string, unknown>> => {
    if (names.length === 2 && (spec.as === 'size' || spec.as === 'image_size' || spec.as === 'aspect_ratio')) {
      const size = sizeOf(spec.as, v);
      return size ? [{ [names[0]!]: size.width, [names[1]!]: size.height }] : [];
    }
    if (names.length !== 1) return [];
    const back = spec.as === 'negate' ? (typeof v === 'boolean' ? !v : undefined) : backToMmgen(spec, v);
    return back === undefined ? [] : [{ [names[0]!]: back }];
  });
  return sets.length > 0 ? sets : null;
}

/** The width and height a `size` ("WxH"), `image_size` ({width, height}) or `aspect_ratio` ("w:h") value is sent for. */
function sizeOf(as: 'size' | 'image_size' | 'aspect_ratio', v: unknown): { width: number; height: number } | undefined {
  if (as === 'image_size') {
    const o = v as { width?: unknown; height?: unknown } | null;
    return typeof o?.width === 'number' && typeof o.height === 'number' ? { width: o.width, height: o.height } : undefined;
  }
  const m = typeof v === 'string' ? (as === 'size' ? /^(\d+)x(\d+)$/ : /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/).exec(v) : null;
  if (!m) return undefined;
  const [w, h] = [Number(m[1]), Number(m[2])];
  if (as === 'size') return { width: w, height: h };
  // A ratio: its shape with the longer side 1024, in mmgen's multiples of 8.
  const scale = 1024 / Math.max(w, h);
  return { width: Math.round((w * scale) / 8) * 8, height: Math.round((h * scale) / 8) * 8 };
}

/** Every combination of one item from each list, merged. */
function product(lists: Array<Array<Record<string, unknown>>>): Array<Record<string, unknown>> {
  return lists.reduce<Array<Record<string, unknown>>>((acc, list) => acc.flatMap((a) => list.map((b) => ({ ...a, ...b }))), [{}]);
}
