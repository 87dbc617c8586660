import { Type, type Static } from '@sinclair/typebox';
import type { CatalogModel, Modality } from '../catalog/index.js';
import { priceRequest, priceVersion, type PricedRequest } from '../billing/pricing.js';
import { UPSCALE_MAX_OUTPUT_PIXELS } from '../media/index.js';
import type { RouteDemand } from '../providers/parameters.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { priceSourceOf, routePrice, tierSelectors, type TierSelector } from '../providers/route-price.js';
import type { RecordFinder } from '../providers/upstream-models.js';
import { enforceParameters, parametersOf } from './hold-to-model.js';
import { requestValidator } from './quote.js';

/**
 * A model's prices as GET /v1/models publishes them (docs/contract-addenda.md, "Published prices"): not a formula
 * of their own, but representative requests priced by the function that prices every reservation
 * (billing/pricing.ts, priceRequest), on the routes this installation would serve them with, through the steps a
 * quote takes (the modality's validation with its defaults, the model's parameters and defaults). The first is the
 * default variant (only the fields a request must carry); then one per record tier a request can select, in
 * mmgen's fields (the tier's `when` read back through the record's `map`, providers/route-price.ts), kept only if
 * that request is priced by that tier and its price differs from the default's. So a published price, the quote of
 * its example and the reservation of that request are one number (test/scenarios/published-prices.test.ts).
 */
/** A tier as GET /v1/models publishes it: the schema the route serves and the type this module builds are one. */
export const PublishedTierSchema = Type.Object(
  {
    when: Type.Object({}, { additionalProperties: true, description: 'The request fields (mmgen names, GET /v1/models parameters) that choose this price; {} for the default variant.' }),
    input_image: Type.Union([
      Type.Object({ width: Type.Integer(), height: Type.Integer() }, { description: 'The size of the input image this price is for, where the model takes one.' }),
      Type.Null(),
    ]),
    output_megapixels_at_most: Type.Optional(Type.Number({ description: 'A tier for outputs of at most this many megapixels (2^20 pixels): the input image × scale.' })),
    input_tokens_over: Type.Optional(
      Type.Integer({
        description:
          "A long-context tier: requests whose prompt is more than this many input tokens (the provider's count when charged; reserved when the messages' UTF-8 bytes, plus 8 per message, are more).",
      }),
    ),
    example: Type.Object({}, { additionalProperties: true, description: 'The request priced (an input image of `input_image` besides; with `input_tokens_over`, a prompt longer than that): send it to POST /v1/quotes.' }),
    unit_cost_usd: Type.Number({ description: 'US dollars per unit (per output with per_output; per started megapixel with per_megapixel), margin included.' }),
    per_output: Type.Boolean({ description: 'Priced per output (a track, an image), whatever its length.' }),
    per_megapixel: Type.Boolean({ description: 'Priced per started megapixel of the image: the price grows with width × height.' }),
    units: Type.String({ description: 'The units of the example (outputs, with per_output), a decimal string.' }),
    credits: Type.Integer({ minimum: 0, description: 'The credits the example reserves here with a live key (1 credit = US$0.001).' }),
    provider: Type.String({ description: 'The provider whose route prices it: the dearest this installation would serve it with.' }),
  },
  { title: 'PublishedTier' },
);
export type PublishedTier = Static<typeof PublishedTierSchema>;

export interface PublishedPricing {
  version: string;
  source: string | null;
  estimate: boolean;
  tiers: PublishedTier[];
}

/** What a request of each modality must carry besides its price-deciding fields, when the model takes it. */
const CONTENT: Record<Modality, Record<string, unknown>> = {
  image: { prompt: 'a red fox in the snow' },
  video: { prompt: 'a red fox running through the snow' },
  voice: { text: 'Hello, and welcome.' },
  music: { prompt: 'calm piano music for a quiet evening' },
  chat: { messages: [{ role: 'user', content: 'Hello.' }] },
  avatar: { text: 'Hello, and welcome.' },
  '3d': { prompt: 'a wooden chair' },
  upscale: {},
};
/** Fields some models require beyond their modality's content (a song's lyrics), with an ordinary value. */
const REQUIRED_FILLERS: Record<string, unknown> = {
  lyrics: '[Verse]\nThe evening light is soft and low\n[Chorus]\nSing along, sing along tonight',
  prompt: 'a red fox in the snow',
  text: 'Hello, and welcome.',
};
type Size = { width: number; height: number };
const DEFAULT_IMAGE: Size = { width: 1024, height: 1024 };
const MEGAPIXEL = 1024 * 1024;
// An input image is given by URL in the priced request: only its size is read (as the quote reads it).
const IMAGE_PLACEHOLDER = 'https://example.com/input.png';

/** The request fields a request of this model must carry (those it takes), and whether it needs an input image. */
function contentOf(records: RecordFinder, model: CatalogModel): { fields: Record<string, unknown>; image: boolean } {
  const parameters = parametersOf(records, model);
  const fields = Object.fromEntries(Object.entries(CONTENT[model.modality]).filter(([f]) => f in parameters.properties));
  for (const f of parameters.required ?? []) if (!(f in fields) && f in REQUIRED_FILLERS) fields[f] = REQUIRED_FILLERS[f];
  const takesImage = 'image_url' in parameters.properties;
  // An image where the model needs one, or where it takes nothing else to go on (a 3D model from an image only).
  const image = takesImage && (parameters['x-mmgen-image'] === 'required' || Object.keys(fields).length === 0);
  return { fields, image };
}

type Serving = (model: CatalogModel, demand: RouteDemand) => ReturnType<ProviderRegistry['servingRoutes']>;

/** The request's demand as acceptance builds it, or null when the model does not take the request. */
function demandOf(records: RecordFinder, model: CatalogModel, example: Record<string, unknown>, image: { width: number; height: number } | null): RouteDemand | null {
  const request: Record<string, unknown> = structuredClone(example);
  if (image) request.image_url = IMAGE_PLACEHOLDER;
  const sent = new Set(Object.keys(request));
  const validate = requestValidator(model.modality);
  if (!validate(request)) return null;
  try {
    enforceParameters(records, model, request, sent);
  } catch {
    return null;
  }
  const { model: _model, simulate: _simulate, cache: _cache, ...params } = request;
  return { params, sent, image: image !== null, imageSize: image ?? undefined };
}

function published(
  model: CatalogModel,
  when: Record<string, unknown>,
  content: Record<string, unknown>,
  image: { width: number; height: number } | null,
  priced: PricedRequest,
  extra: { output_megapixels_at_most?: number; input_tokens_over?: number } = {},
): PublishedTier {
  return {
    when,
    input_image: image,
    ...extra,
    example: { model: model.slug, ...content, ...when },
    unit_cost_usd: Number(priced.unitCostUsd),
    per_output: priced.price.per_output,
    per_megapixel: priced.price.per_megapixel,
    units: priced.units.toString(),
    credits: priced.credits,
    provider: priced.price.route.provider,
  };
}

/** The input image a tier by output size is priced with: an output just within its bound, at the largest scale the model takes. */
function imageForOutput(records: RecordFinder, model: CatalogModel, selector: TierSelector): { image: { width: number; height: number }; fields: Record<string, unknown> } {
  const scaleSchema = parametersOf(records, model).properties.scale as { enum?: unknown[] } | undefined;
  const scales = (scaleSchema?.enum ?? [2]).filter((s): s is number => typeof s === 'number');
  const scale = Math.max(...scales);
  const outputPixels = Math.min(selector.output_megapixels_at_most! * MEGAPIXEL, UPSCALE_MAX_OUTPUT_PIXELS);
  const side = Math.floor(Math.sqrt(outputPixels) / scale);
  return { image: { width: side, height: side }, fields: scale === 2 ? {} : { scale } };
}

/** Whether a tier's price is the default variant's: the same unit price and the same credits for its example. */
function samePrice(tier: PublishedTier, base: PublishedTier | undefined): boolean {
  return base !== undefined && tier.credits === base.credits && tier.unit_cost_usd === base.unit_cost_usd;
}

function computePublished(records: RecordFinder, model: CatalogModel, serving: Serving): PublishedPricing {
  const { source, estimate } = priceSourceOf(records, model);
  const { fields: content, image: needsImage } = contentOf(records, model);
  const baseImage = needsImage ? DEFAULT_IMAGE : null;
  const tiers: PublishedTier[] = [];
  const baseDemand = demandOf(records, model, { model: model.slug, ...content }, baseImage);
  if (baseDemand) tiers.push(published(model, {}, content, baseImage, priceRequest(records, model, baseDemand, serving)));
  const seen = new Set<string>(['{}']);
  for (const selector of tierSelectors(records, model)) {
    let when = selector.fields;
    let image: Size | null = selector.image === true || needsImage ? DEFAULT_IMAGE : null;
    if (selector.image === false && needsImage) continue;
    if (selector.output_megapixels_at_most !== undefined) {
      if (!needsImage && selector.image !== true) continue;
      const sized = imageForOutput(records, model, selector);
      image = sized.image;
      when = { ...when, ...sized.fields };
    }
    const key = JSON.stringify([when, image, selector.output_megapixels_at_most ?? null, selector.input_tokens_over ?? null]);
    if (seen.has(key)) continue;
    const accepted = demandOf(records, model, { model: model.slug, ...content, ...when }, image);
    // A tier by prompt length is priced for a prompt just over its bound (the example stays short: its prompt stands for one that long).
    const demand = accepted && selector.input_tokens_over !== undefined ? { ...accepted, inputTokens: selector.input_tokens_over + 1 } : accepted;
    // Published only if that request is priced by the tier on its route (a value read back that the route sends otherwise is not).
    if (!demand || routePrice(records, model, selector.route, demand).tier !== selector.tier) continue;
    seen.add(key);
    const priced = priceRequest(records, model, demand, serving);
    const tier = published(model, when, content, image, priced, {
      ...(selector.output_megapixels_at_most === undefined ? {} : { output_megapixels_at_most: selector.output_megapixels_at_most }),
      ...(selector.input_tokens_over === undefined ? {} : { input_tokens_over: selector.input_tokens_over }),
    });
    // Published only where its price differs from the default's: a tier of a route that does not price requests here,
    // or one whose price is the default's (Topaz's first output-size tier, which every request up to 24 MP is in).
    if (samePrice(tier, tiers[0])) continue;
    tiers.push(tier);
  }
  return { version: priceVersion(records, model), source, estimate, tiers };
}

// Per registry (the routes served and the records differ by installation), per model object (rebuilt when the
// catalog changes), and per version of the installation's records.
const cache = new WeakMap<object, WeakMap<CatalogModel, { records: object; value: PublishedPricing }>>();

/** A model's published prices on this installation (live keys' prices; a test key reserves nothing). */
export function publishedPricing(providers: Pick<ProviderRegistry, 'servingRoutes' | 'records'>, model: CatalogModel): PublishedPricing {
  let byModel = cache.get(providers);
  if (!byModel) cache.set(providers, (byModel = new WeakMap()));
  const hit = byModel.get(model);
  const records = providers.records;
  if (hit && hit.records === records.version) return hit.value;
  const value = computePublished(records, model, (m, d) => providers.servingRoutes('live', m, d));
  byModel.set(model, { records: records.version, value });
  return value;
}
