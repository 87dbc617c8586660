import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { costInCredits } from '../../src/billing/credits.js';
import { actualCredits, priceCredits, requestedUnits } from '../../src/billing/pricing.js';
import { Catalog, type CatalogModel, type Modality } from '../../src/catalog/index.js';
import type { ProducedWork } from '../../src/generations/modalities.js';
import type { RouteDemand } from '../../src/providers/parameters.js';
import { routePrices } from '../../src/providers/route-price.js';
import { SHIPPED_RECORDS, shippedRecord } from '../../src/providers/upstream-models.js';
import type { UpstreamModelRecord } from '../../src/providers/upstream-record.js';
import { loadConfig } from '../../src/config.js';
import { PROVIDER_DECLARATIONS } from '../../src/providers/index.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import type { SimulatorJobs } from '../../src/providers/simulator/jobs.js';

/**
 * Prices agree with what is sent (issue 18, item 6; docs/contract-addenda.md, "Prices and tiers"): every
 * upstream field that decides a provider's price is pinned in the route's record or priced by it, and no
 * route that may serve a request charges more than the request's reservation.
 */

/** Upstream fields that decide a price tier somewhere in the providers' documented prices (the records' `pricing`). */
const TIER_FIELDS = [
  'quality', 'size', 'image_size', 'megapixels', 'resolution', 'generate_audio', 'service_tier', 'pro_mode', 'turbo_mode',
  'generate_type', 'enable_pbr', 'face_count', 'texture', 'tier', 'addons', 'quad', 'style',
];

/**
 * Tier-deciding fields a record neither pins nor prices, each with why that is right. `unsent`: it costs extra
 * only when sent, and mmgen never sends it (checked). `flat`: this route's documented price does not depend on it.
 */
const LEFT_ALONE: Record<string, { kind: 'unsent' | 'flat'; why: string }> = {
  'fal-ai/hunyuan3d-v3/text-to-3d:face_count': { kind: 'unsent', why: 'a custom face_count is +$0.15' },
  'fal-ai/hyper3d/rodin:addons': { kind: 'unsent', why: 'HighPack triples the price' },
  'fal-ai/hyper3d/rodin:quality': { kind: 'flat', why: '$0.40 per generation at any quality; only addons change it' },
  'black-forest-labs/flux-schnell:megapixels': { kind: 'flat', why: 'Replicate prices FLUX per image' },
  'black-forest-labs/flux-dev:megapixels': { kind: 'flat', why: 'Replicate prices FLUX per image' },
  'fal-ai/bytedance/seedream/v4/text-to-image:image_size': { kind: 'flat', why: '$0.03 per image at any size' },
  'fal-ai/bytedance/seedream/v4/edit:image_size': { kind: 'flat', why: '$0.03 per image at any size' },
  'fal-ai/stable-diffusion-v35-large:image_size': { kind: 'flat', why: 'fal documents no price; priced per image as on Replicate (≈)' },
  'ideogram-ai/ideogram-v3-turbo:resolution': { kind: 'flat', why: 'Ideogram 3.0 Turbo is one price per image' },
  'recraft-ai/recraft-v3:size': { kind: 'flat', why: 'Recraft V3 is one price per image' },
  'recraft-ai/recraft-v3:style': { kind: 'flat', why: 'Recraft V3 is one price per image in any style' },
  'fal-ai/elevenlabs/tts/multilingual-v2:style': { kind: 'flat', why: 'a voice setting; priced per character' },
  'fal-ai/elevenlabs/tts/turbo-v2.5:style': { kind: 'flat', why: 'a voice setting; priced per character' },
  'fal-ai/topaz/upscale/image:texture': { kind: 'flat', why: 'not a price field of Topaz (priced by output size, ≈)' },
};

// Every active model with every route it has (whatever the date: a route shut down later is still checked).
const models = new Catalog().models.filter((m) => m.status === 'active');

/** Each route's records: its own and the sibling endpoints it sends some requests to. */
function recordsOf(model: CatalogModel): UpstreamModelRecord[] {
  return model.routes.flatMap((r) => {
    const own = shippedRecord(r.provider, r.upstream)!;
    const siblings = [own.call.with_image, own.call.without_image].filter((id): id is string => !!id).map((id) => shippedRecord(r.provider, id)!);
    return [own, ...siblings];
  });
}

/** The upstream fields a record sends: its map's targets and its `set` (top-level names). */
function sentFields(record: UpstreamModelRecord): { mapped: Set<string>; pinned: Set<string> } {
  const top = (path: string) => path.split('.')[0]!;
  return {
    mapped: new Set(Object.values(record.map).map((s) => top(typeof s === 'string' ? s : s.to))),
    pinned: new Set(Object.keys(record.set).map(top)),
  };
}

describe('every tier-deciding upstream field is pinned or priced', () => {
  for (const model of models) {
    it(model.slug, () => {
      for (const record of recordsOf(model)) {
        const props = record.input.properties as Record<string, { enum?: unknown[] }>;
        const { mapped, pinned } = sentFields(record);
        const priced = new Set([...(record.price?.tiers ?? []).flatMap((t) => Object.keys(t.when ?? {}).map((f) => f.split('.')[0]!)), record.price?.per_megapixel_of].filter(Boolean));
        for (const field of TIER_FIELDS.filter((f) => f in props)) {
          const where = `${record.upstream}:${field}`;
          if (pinned.has(field) || priced.has(field)) continue;
          const left = LEFT_ALONE[where];
          expect(left, `${where} decides the price but is neither pinned (set) nor priced (price): the provider chooses its tier`).toBeDefined();
          if (left!.kind === 'unsent') expect(mapped.has(field), `${where} is sent, but is only left alone because it is never sent`).toBe(false);
        }
        // A tier can match only what is sent, with a value the provider documents.
        for (const tier of record.price?.tiers ?? []) {
          for (const [field, values] of Object.entries(tier.when ?? {})) {
            const top = field.split('.')[0]!;
            expect(mapped.has(top) || pinned.has(top), `${record.upstream}: tier on ${field}, which is never sent`).toBe(true);
            const documented = props[top]?.enum;
            if (documented) for (const v of values) expect(documented, `${record.upstream}: tier value ${String(v)} of ${field}`).toContain(v);
          }
        }
        // The request's image (input or output size) is a price's only other source: a route that takes an image.
        const imageSized = (of: string) => (of === 'input_image' || of === 'output_image') && 'image' in record.map;
        const of = record.price?.per_megapixel_of;
        if (of) expect(mapped.has(of) || imageSized(of), `${record.upstream}: per_megapixel_of ${of}, which it never sends`).toBe(true);
        for (const tier of record.price?.tiers ?? []) {
          if (tier.output_megapixels_at_most !== undefined) expect(imageSized('output_image'), `${record.upstream}: a tier by output size, without an input image`).toBe(true);
        }
      }
    });
  }

  it('the catalog price is the primary route’s price for the default variant', () => {
    for (const model of models) {
      const primary = shippedRecord(model.routes[0].provider, model.routes[0].upstream)!;
      // A price per output is not per the catalog's unit (a track, not a second): the catalog shows it as ≈.
      if (primary.price?.unit_cost_usd !== undefined && !primary.price.per_output) expect(primary.price.unit_cost_usd, model.slug).toBe(model.unit_cost_usd);
    }
  });

  it('LEFT_ALONE names only fields that exist (a stale entry would hide a new one)', () => {
    const all = new Set(models.flatMap((m) => recordsOf(m).flatMap((r) => Object.keys(r.input.properties).map((f) => `${r.upstream}:${f}`))));
    for (const key of Object.keys(LEFT_ALONE)) expect(all, key).toContain(key);
  });
});

/** Requests of each modality across the fields that choose a variant; each with and without an input image. */
function samples(model: CatalogModel): Array<Record<string, unknown>> {
  const byModality: Record<Modality, Array<Record<string, unknown>>> = {
    image: [[1024, 1024], [1536, 1024], [1024, 1536], [512, 512], [2048, 2048], [2048, 1024], [1216, 832]].flatMap(([width, height]) =>
      // Nano Banana 2 on fal takes prompts of 3 characters or more.
      [1, 4].map((num_outputs) => ({ prompt: 'a red fox', width, height, num_outputs })),
    ),
    video: [1, 4, 5, 6, 8, 10, 12, 16, 20].map((duration_s) => ({ prompt: 'p', duration_s, aspect_ratio: '16:9' })),
    // MiniMax Music takes a prompt and lyrics of 10 characters or more.
    music: [5, 30, 95, 300].map((duration_s) => ({ prompt: 'a calm piano piece', duration_s, with_vocals: false, lyrics: 'la la la, la la' })),
    voice: [1, 999, 5000].map((n) => ({ text: 'a'.repeat(n) })),
    avatar: [{ audio_url: 'https://example.com/a.mp3' }, { text: 'Hello there, this is a talking portrait.' }],
    chat: [1, 1024, 32768].map((max_tokens) => ({ messages: [{ role: 'user', content: 'hi' }], max_tokens })),
    '3d': [{ prompt: 'p', format: 'glb' }],
    upscale: [2, 4].map((scale) => ({ scale, face_restore: false })),
  };
  // The model's own defaults, as acceptance fills them in (a voice its routes require).
  const defaults = Object.assign({}, ...model.routes.map((r) => shippedRecord(r.provider, r.upstream)!.defaults ?? {}).reverse());
  return byModality[model.modality].map((p) => ({ ...defaults, ...p }));
}

/** Input images' sizes: small, about 24 MP at 2× (Topaz's first tier), and the largest a 2× upscale takes. */
const INPUT_SIZES = [{ width: 512, height: 512 }, { width: 3000, height: 2000 }, { width: 3000, height: 3000 }, { width: 4096, height: 4096 }];

/** What an attempt produces when it makes exactly what was asked. */
function producedAsAsked(model: CatalogModel, params: Record<string, unknown>): ProducedWork {
  const units = requestedUnits(model.modality, params).toString();
  if (model.modality === 'image') return { outputs: Array.from({ length: params.num_outputs as number }, () => ({ type: 'image' })) };
  if (model.modality === 'chat') return { outputs: [], outputTokens: params.max_tokens as number };
  return { outputs: [{ type: model.modality === 'music' || model.modality === 'voice' ? 'audio' : 'video', duration_s: units }] };
}

describe('the reservation covers the charge of every route a request may reach', () => {
  for (const model of models) {
    it(model.slug, () => {
      let checked = 0;
      for (const params of samples(model)) {
        // Without an image, and with input images of several sizes (a price may read its megapixels).
        for (const [image, imageSize] of [[false, undefined], [true, undefined], ...INPUT_SIZES.map((s) => [true, s] as const)] as const) {
          const demand: RouteDemand = { params, sent: null, image, imageSize };
          const prices = routePrices(SHIPPED_RECORDS, model, demand);
          if (!prices.some((p) => p.takes)) continue;
          const reserved = priceCredits(SHIPPED_RECORDS, model, 'live', demand);
          const charges = prices
            .filter((p) => p.takes)
            .map((p) => actualCredits(SHIPPED_RECORDS, model, { mode: 'live', params, price_credits: Number.MAX_SAFE_INTEGER, provider: p.route.provider }, producedAsAsked(model, params), demand));
          for (const c of charges) expect(c, `${model.slug} ${JSON.stringify(params).slice(0, 60)} image=${JSON.stringify(imageSize ?? image)}`).toBeLessThanOrEqual(reserved);
          // And no more than the dearest of them: a reservation is a price, not a margin.
          expect(reserved, `${model.slug} ${JSON.stringify(params).slice(0, 60)}`).toBe(Math.max(...charges));
          checked++;
        }
      }
      expect(checked, `${model.slug}: no sample request was taken by any route`).toBeGreaterThan(0);
    });
  }

  it('a tiered model’s dearest request is reserved at least any variant’s charge', () => {
    for (const model of models.filter((m) => recordsOf(m).some((r) => r.price))) {
      const one = samples(model).map((p) => ({ ...p, ...(p.num_outputs ? { num_outputs: 1 } : {}) }));
      const reserved = one.map((params) => priceCredits(SHIPPED_RECORDS, model, 'live', { params, sent: null, image: false }));
      const dearest = Math.max(...reserved);
      for (const r of reserved) expect(r, model.slug).toBeLessThanOrEqual(dearest);
    }
  });
});

describe('prices by tier and by route', () => {
  // Any shipped model: the prices of one delisted since (gpt-image-1-mini) are still the pricing's to get right.
  const model = (slug: string) => new Catalog().find(slug)!;
  const demand = (params: Record<string, unknown>): RouteDemand => ({ params, sent: null, image: false });
  const charge = (slug: string, params: Record<string, unknown>, provider: string) =>
    actualCredits(SHIPPED_RECORDS, model(slug), { mode: 'live', params, price_credits: Number.MAX_SAFE_INTEGER, provider }, producedAsAsked(model(slug), params), demand(params));

  it('gpt-image-1-mini and gpt-image-2: square at the catalog price, 1536×1024 and 1024×1536 at their size tier', () => {
    for (const [slug, upstream] of [['gpt-image-1-mini', '0.015'], ['gpt-image-2', '0.05']] as const) {
      const record = shippedRecord('openai', slug)!;
      expect(record.set.quality, 'the quality the catalog price is for').toBe('medium');
      const square = { prompt: 'p', width: 1024, height: 1024, num_outputs: 2 };
      const wide = { ...square, width: 1536 };
      expect(priceCredits(SHIPPED_RECORDS, model(slug), 'live', demand(square))).toBe(costInCredits(model(slug).unit_cost_usd, 2));
      expect(priceCredits(SHIPPED_RECORDS, model(slug), 'live', demand(wide))).toBe(costInCredits(upstream, 2));
      expect(priceCredits(SHIPPED_RECORDS, model(slug), 'live', demand({ ...square, height: 1536 }))).toBe(costInCredits(upstream, 2));
      expect(record.price?.tiers?.[0]?.unit_cost_usd).toBe(upstream);
    }
  });

  it('gpt-image-2 and gpt-image-2.6-sunburst: a medium image at OpenAI’s $30 per 1M output tokens, 2,000 tokens square and 1,667 at 1536×1024 or 1024×1536 (fal’s table)', () => {
    const perToken = new Decimal(30).div(1_000_000);
    for (const slug of ['gpt-image-2', 'gpt-image-2.6-sunburst']) {
      const square = { prompt: 'p', width: 1024, height: 1024, num_outputs: 1 };
      expect(priceCredits(SHIPPED_RECORDS, model(slug), 'live', demand(square)), slug).toBe(costInCredits(perToken.mul(2000).toFixed(), 1)); // $0.06
      for (const size of [{ width: 1536, height: 1024 }, { width: 1024, height: 1536 }]) {
        expect(priceCredits(SHIPPED_RECORDS, model(slug), 'live', demand({ ...square, ...size })), `${slug} ${size.width}×${size.height}`).toBe(costInCredits(perToken.mul(1667).toFixed(2), 1)); // $0.05
      }
    }
  });

  it('flux-dev: reserved at fal’s per-megapixel price, charged at the route that served it', () => {
    const big = { prompt: 'p', width: 2048, height: 2048, num_outputs: 1 };
    const fal = costInCredits(model('flux-dev').unit_cost_usd, 4); // 2048² is 4 MP at $0.025 per MP
    expect(priceCredits(SHIPPED_RECORDS, model('flux-dev'), 'live', demand(big))).toBe(fal);
    expect(charge('flux-dev', big, 'fal')).toBe(fal);
    expect(charge('flux-dev', big, 'replicate')).toBe(costInCredits(model('flux-dev').unit_cost_usd, 1));
  });

  it('lyria-2: fal’s dearer fallback ($0.10 a clip) sets the reservation; Replicate serving it is charged Replicate’s price', () => {
    const params = { prompt: 'p', duration_s: 30, with_vocals: false };
    expect(priceCredits(SHIPPED_RECORDS, model('lyria-2'), 'live', demand(params))).toBe(costInCredits('0.10', 1));
    expect(charge('lyria-2', params, 'replicate')).toBe(costInCredits(model('lyria-2').unit_cost_usd, 30));
    expect(charge('lyria-2', params, 'fal')).toBe(costInCredits('0.10', 1));
  });

  it('flat per-output prices: a track or a song costs the same at any length, reserved and charged', () => {
    for (const duration_s of [5, 30, 190]) {
      const params = { prompt: 'p', duration_s, with_vocals: false };
      expect(priceCredits(SHIPPED_RECORDS, model('stable-audio-2.5'), 'live', demand(params)), `${duration_s} s`).toBe(costInCredits('0.20', 1));
      expect(charge('stable-audio-2.5', params, 'fal'), `${duration_s} s`).toBe(costInCredits('0.20', 1));
    }
    // MiniMax Music has no duration input: a song is whatever length it makes, $0.03 on either route.
    const song = { prompt: 'a sad barroom ballad', lyrics: '[verse] la la la la', duration_s: 30, with_vocals: true };
    expect(priceCredits(SHIPPED_RECORDS, model('minimax-music-1.5'), 'live', demand(song))).toBe(costInCredits('0.03', 1));
    for (const provider of ['replicate', 'fal']) {
      const m = model('minimax-music-1.5');
      const threeMinutes: ProducedWork = { outputs: [{ type: 'audio', duration_s: '183.5' }] };
      expect(actualCredits(SHIPPED_RECORDS, m, { mode: 'live', params: song, price_credits: Number.MAX_SAFE_INTEGER, provider }, threeMinutes, demand(song)), provider).toBe(
        costInCredits('0.03', 1),
      );
    }
  });

  it('upscalers billed by output size: fal’s Topaz by its output-megapixel tier, Clarity per output megapixel', () => {
    const upscale = (slug: string, width: number, height: number, scale: number, provider?: string) => {
      const params = { scale, face_restore: false };
      const d: RouteDemand = { params, sent: null, image: true, imageSize: { width, height } };
      if (!provider) return priceCredits(SHIPPED_RECORDS, model(slug), 'live', d);
      return actualCredits(SHIPPED_RECORDS, model(slug), { mode: 'live', params, price_credits: Number.MAX_SAFE_INTEGER, provider }, { outputs: [{ type: 'image' }] }, d);
    };
    // Topaz: $0.08 up to 24 MP of output, $0.16 up to 48, $0.32 up to 96, per image at any scale.
    expect(upscale('topaz-image-upscale', 1024, 1024, 2, 'fal')).toBe(costInCredits('0.08', 1)); // 4 MP
    expect(upscale('topaz-image-upscale', 1024, 1024, 4, 'fal')).toBe(costInCredits('0.08', 1)); // 16 MP: one image, not two units
    expect(upscale('topaz-image-upscale', 3000, 3000, 2, 'fal')).toBe(costInCredits('0.16', 1)); // 34 MP
    expect(upscale('topaz-image-upscale', 4096, 4096, 2, 'fal')).toBe(costInCredits('0.32', 1)); // 64 MP
    expect(upscale('topaz-image-upscale', 2048, 2048, 4)).toBe(costInCredits('0.32', 1)); // reserved: 64 MP on fal
    // Clarity on fal: $0.03 per started output megapixel; reserved at that when dearer than Replicate's run.
    expect(upscale('clarity-upscaler', 1024, 1024, 2, 'fal')).toBe(costInCredits('0.03', 4));
    expect(upscale('clarity-upscaler', 1000, 700, 4, 'fal')).toBe(costInCredits('0.03', 11)); // 4000×2800 = 10.7 MP
    expect(upscale('clarity-upscaler', 1000, 700, 4)).toBe(costInCredits('0.03', 11));
    expect(upscale('clarity-upscaler', 1000, 700, 4, 'replicate')).toBe(costInCredits(model('clarity-upscaler').unit_cost_usd, 2));
  });

  it('flux-dev with an input image: fal’s image-to-image at $0.03 per started megapixel of the input', () => {
    const params = { prompt: 'p', num_outputs: 1 };
    const d: RouteDemand = { params, sent: null, image: true, imageSize: { width: 2048, height: 1536 } }; // 3 MP
    const fal = routePrices(SHIPPED_RECORDS, model('flux-dev'), d).find((p) => p.route.provider === 'fal')!;
    expect(fal).toMatchObject({ takes: true, unit_cost_usd: '0.03', unit_multiplier: 3 });
    expect(priceCredits(SHIPPED_RECORDS, model('flux-dev'), 'live', d)).toBeGreaterThanOrEqual(costInCredits('0.03', 3));
    expect(actualCredits(SHIPPED_RECORDS, model('flux-dev'), { mode: 'live', params, price_credits: Number.MAX_SAFE_INTEGER, provider: 'fal' }, { outputs: [{ type: 'image' }] }, d)).toBe(costInCredits('0.03', 3));
  });

  it('test keys pay nothing', () => {
    expect(priceCredits(SHIPPED_RECORDS, model('gpt-image-2'), 'test', demand({ prompt: 'p', width: 1536, height: 1024, num_outputs: 4 }))).toBe(0);
  });
});

/** A registry of these providers (credentials only: nothing is sent), or of the simulator serving live keys. */
function installation(providers: string[], simulate = false): ProviderRegistry {
  const refuse = () => Promise.reject(new Error('no simulator jobs here'));
  const env: Record<string, string> = { MMGEN_DATA_DIR: '/tmp/mmgen-unused', ...(simulate ? { MMGEN_SIMULATE_PROVIDERS: '1' } : {}) };
  for (const p of PROVIDER_DECLARATIONS) if (providers.includes(p.name)) env[p.env.keyVar] = 'k';
  return new ProviderRegistry(loadConfig(env), { submit: refuse, findByClientRef: refuse, cancel: refuse, get: refuse } as SimulatorJobs);
}

describe('the reservation prices the routes this installation would use', () => {
  const model = (slug: string) => models.find((m) => m.slug === slug)!;
  const reserve = (registry: ProviderRegistry, slug: string, d: RouteDemand) => priceCredits(SHIPPED_RECORDS, model(slug), 'live', d, (m, dd) => registry.servingRoutes('live', m, dd));
  const big: RouteDemand = { params: { prompt: 'p', width: 2048, height: 2048, num_outputs: 1 }, sent: null, image: false };
  const clip: RouteDemand = { params: { prompt: 'p', duration_s: 30, with_vocals: false }, sent: null, image: false };

  it('a dearer route of a provider not configured here does not raise it', () => {
    expect(reserve(installation(['replicate']), 'flux-dev', big)).toBe(costInCredits(model('flux-dev').unit_cost_usd, 1));
    expect(reserve(installation(['replicate', 'fal']), 'flux-dev', big)).toBe(costInCredits(model('flux-dev').unit_cost_usd, 4));
    expect(reserve(installation(['fal']), 'flux-dev', big)).toBe(costInCredits(model('flux-dev').unit_cost_usd, 4));
    expect(reserve(installation(['replicate']), 'lyria-2', clip)).toBe(costInCredits(model('lyria-2').unit_cost_usd, 30));
    expect(reserve(installation(['replicate', 'fal']), 'lyria-2', clip)).toBe(costInCredits('0.10', 1));
  });

  it('the simulator serving live keys: the price of the route it plays (the first that takes the request)', () => {
    const simulator = installation(['fal'], true);
    expect(simulator.servingRoutes('live', model('flux-dev'), big)).toEqual([model('flux-dev').routes[0]]);
    expect(reserve(simulator, 'flux-dev', big)).toBe(costInCredits(model('flux-dev').unit_cost_usd, 1));
    // And what it charges: that route's price (actualCredits under the simulator's provider name).
    const charged = actualCredits(SHIPPED_RECORDS, model('flux-dev'), { mode: 'live', params: big.params, price_credits: Number.MAX_SAFE_INTEGER, provider: 'simulator' }, { outputs: [{ type: 'image' }] }, big);
    expect(charged).toBe(reserve(simulator, 'flux-dev', big));
  });

  it('on any one installation, the reservation covers the charge of every route it may fall back to', () => {
    const installations = [['replicate'], ['fal'], ['openai', 'replicate'], ['replicate', 'fal'], ['fal', 'elevenlabs'], ['openai', 'anthropic', 'replicate', 'fal', 'elevenlabs']];
    for (const providers of installations) {
      const registry = installation(providers);
      for (const m of models) {
        for (const params of samples(m)) {
          const d: RouteDemand = { params, sent: null, image: false };
          const serving = registry.servingRoutes('live', m, d);
          if (serving.length === 0) continue;
          const reserved = priceCredits(SHIPPED_RECORDS, m, 'live', d, (mm, dd) => registry.servingRoutes('live', mm, dd));
          const charges = serving.map((r) => actualCredits(SHIPPED_RECORDS, m, { mode: 'live', params, price_credits: Number.MAX_SAFE_INTEGER, provider: r.provider }, producedAsAsked(m, params), d));
          expect(reserved, `${m.slug} on ${providers.join('+')}`).toBe(Math.max(...charges));
        }
      }
    }
  });
});

describe('an avatar’s speech step is priced by its voice model’s routes', () => {
  it('the speech part of a text avatar’s reservation is the voice model’s own reservation for the text and voice', () => {
    const spoken = models.filter((m) => m.speech);
    expect(spoken.length).toBeGreaterThan(0);
    for (const m of spoken) {
      const text = 'Hello there, this is a talking portrait with a longer sentence.';
      const withText: RouteDemand = { params: { ...samples(m)[1], text }, sent: null, image: true };
      const viaAudio: RouteDemand = { params: { ...withText.params, text: undefined, audio_url: 'https://example.com/a.mp3' }, sent: null, image: true };
      const voice: RouteDemand = { params: { text }, sent: new Set(['text']), image: false };
      const speech = priceCredits(SHIPPED_RECORDS, m, 'live', withText) - priceCredits(SHIPPED_RECORDS, { ...m, speech: undefined }, 'live', withText);
      // A voice route priced on its own (a record's `price`) would show here: the catalog price is not assumed.
      expect(speech, m.slug).toBe(priceCredits(SHIPPED_RECORDS, m.speech!, 'live', voice));
      expect(priceCredits(SHIPPED_RECORDS, m, 'live', viaAudio), m.slug).toBeGreaterThan(0);
    }
  });
});
