/**
 * Catalog glossary
 * - model: one entry of the catalog; it serves exactly one modality. A provider
 *   model that serves two modalities is two entries.
 * - slug: the stable public name users send in `model` (lowercase, [a-z0-9.-], no slash).
 * - route: one way to serve a model: an upstream adapter (`provider`) and the
 *   upstream model name it understands. The first route is the primary one and
 *   gives the model's public `provider`; later routes are fallbacks.
 * - unit: what one `unit_cost_usd` buys (contract §4). Prices are decimal
 *   strings so that money is never binary floating point.
 * - tier: a differently priced variant of a model (an image size, a video
 *   resolution). `unit_cost_usd` is the default variant's price on the
 *   primary route; a route's record prices its other variants and a dearer
 *   fallback (`price`, docs/upstream-models.md), and pins the tier-deciding
 *   fields no request field chooses (`set`).
 * - delisted: removed from service in release 1.1.1, or since then because
 *   every route's upstream shut down (`retired_on`); requests get 410.
 */
export const MODALITIES = ['image', 'video', 'voice', 'music', 'avatar', 'chat', '3d', 'upscale'] as const;
export type Modality = (typeof MODALITIES)[number];

/**
 * A provider's name, as registered in src/providers/index.ts (the one list of providers). The catalog is data and
 * imports no provider code, so it does not type the names: a route's name is checked against the registration
 * whenever its record is read (providers/upstream-models.ts; the catalog's lifecycle reads every route's on its
 * first read) and by test/unit/catalog.test.ts.
 */
export type ProviderName = string;

/** The billing unit of each modality (contract §4). */
export const UNIT_BY_MODALITY = {
  image: 'image',
  video: 'second',
  music: 'second',
  avatar: 'second',
  voice: '1k_characters',
  chat: 'output_token',
  '3d': 'mesh',
  upscale: 'image',
} as const satisfies Record<Modality, string>;
export type PricingUnit = (typeof UNIT_BY_MODALITY)[Modality];

/** What one unit of each modality's price covers, as GET /v1/models says it (`pricing.unit_description`). */
export const UNIT_DESCRIPTION_BY_MODALITY: Record<Modality, string> = {
  image: 'One generated image at the default size and quality; `tiers` price the other sizes and qualities.',
  video: 'One second of generated video, at the duration asked for.',
  music: 'One second of generated audio, at the duration asked for (a route priced per output: one track).',
  avatar: 'One second of generated video; a text is spoken first by the voice model, whose price is added.',
  voice: '1,000 characters of input text, prorated by the characters sent.',
  chat: 'One output token, reserved at max_tokens and charged as produced; input tokens are not billed, but a long prompt may raise the output price (`tiers`, `input_tokens_over`).',
  '3d': 'One generated mesh.',
  upscale: 'One upscaled output image (two at scale 4).',
};

export interface ModelRoute {
  provider: ProviderName;
  /** The model name as the upstream API expects it (e.g. "gpt-image-1", "black-forest-labs/flux-schnell", "fal-ai/kling-video/v2/master/text-to-video"). */
  upstream: string;
}

export interface CatalogModel {
  slug: string;
  display_name: string;
  modality: Modality;
  /** Primary route first; the public `provider` is routes[0].provider. */
  routes: [ModelRoute, ...ModelRoute[]];
  capabilities: string[];
  /** US dollars per unit of the default variant on the primary route, as an exact decimal string, e.g. "0.003" or "0.00001". */
  unit_cost_usd: string;
  status: 'active' | 'delisted';
  /**
   * Other names a request may give for this model: its providers' own ids (dated snapshots, Anthropic's dashed
   * names, ElevenLabs' model ids), so code written against a provider's SDK runs unchanged (contract §12). A
   * generation still names the slug.
   */
  aliases?: string[];
  /**
   * An audio-driven avatar model: the voice model (slug) that speaks a text request's `text` first, so the avatar
   * gets the audio it needs (generations/speech-step.ts).
   */
  speech_model?: string;
  /** The `speech_model` as served today, when it is (linked by the catalog; absent while that model is delisted). */
  speech?: CatalogModel;
  /** Routes no longer served because their upstream shut down (the catalog's date is past it); kept for `deprecation`. */
  retired_routes?: ModelRoute[];
  /** Set when the model was delisted because every upstream it was routed to shut down (the last shutdown date). */
  retired_on?: string;
  /**
   * The operator's margin over the upstream price, in percent (its own, else the global one; catalog/overlay.ts):
   * every price of the model is multiplied by 1 + margin/100 (billing/pricing.ts). Absent: none.
   */
  margin_percent?: string;
  /** Turned off by the operator: findable (its generations in flight finish), but refused to new requests and unlisted. */
  disabled?: boolean;
}
